/**
 * Audio and video through ffprobe and ffmpeg, started by the process launcher (never by a path the model gives: the
 * file the path guard opened is handed over as the programs' stdin, and they read it as `file:/dev/stdin`, so what
 * they read is the file that was checked, and it stays seekable for MP4's index at the end).
 */
import { launchHostProgram } from '../processes/launcher';
import { DeskhandError } from '../../../shared/errors';
import type { AvInfo, AvTools } from './index';

/** OpenAI's transcription endpoint takes files up to 25 MB. */
const AUDIO_MAX_BYTES = 25 * 1024 * 1024;

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  missing: boolean;
}

const NOT_INSTALLED = (program: string) =>
  `${program} is not installed on this machine, so audio and video cannot be opened. The person installs ffmpeg (e.g. \`sudo apt install ffmpeg\`, \`brew install ffmpeg\`).`;

/** Runs `program` with the open file `fd` as its stdin; stdout kept as bytes (at most `maxBytes`). */
function run(program: string, args: readonly string[], fd: number, signal: AbortSignal | undefined, maxBytes: number, timeoutMs: number): Promise<Ran> {
  const launched = launchHostProgram({ program, args, stdio: [fd, 'pipe', 'pipe'], signal, timeoutMs, graceMs: 500 });
  const { child } = launched;
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let size = 0;
    let err = '';
    let missing = false;
    let done = false;
    const finish = (code: number | null) => {
      if (done) return;
      done = true;
      resolve({ code, stdout: Buffer.concat(out), stderr: err.slice(0, 4000), missing });
    };
    child.stdout?.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) void launched.stop(0);
      else out.push(c);
    });
    child.stderr?.on('data', (c: Buffer) => {
      if (err.length < 8000) err += c.toString('utf8');
    });
    child.once('error', (e) => {
      missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      if (child.pid === undefined) finish(null);
    });
    child.once('close', (code) => finish(code));
  });
}

const num = (v: unknown): number | null => {
  const n = typeof v === 'string' ? Number(v) : typeof v === 'number' ? v : NaN;
  return Number.isFinite(n) ? n : null;
};

function fps(rate: unknown): number | null {
  if (typeof rate !== 'string') return null;
  const [a, b] = rate.split('/').map(Number);
  if (!a || !b) return null;
  return Math.round((a / b) * 100) / 100;
}

export class FfmpegAv implements AvTools {
  constructor(
    private readonly programs: { ffprobe: string; ffmpeg: string } = { ffprobe: 'ffprobe', ffmpeg: 'ffmpeg' },
    private readonly timeoutMs = 60_000,
  ) {}

  async probe(fd: number, signal?: AbortSignal): Promise<AvInfo> {
    const r = await run(this.programs.ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', 'file:/dev/stdin'], fd, signal, 4 * 1024 * 1024, this.timeoutMs);
    if (r.missing) throw new DeskhandError('unsupported', NOT_INSTALLED('ffprobe'));
    if (signal?.aborted) throw new DeskhandError('aborted', 'Reading the file was stopped.');
    if (r.code !== 0) throw new DeskhandError('usage', `The file could not be read as audio or video (${r.stderr.trim().split('\n')[0] || `ffprobe exited with ${r.code}`}); it may be damaged.`);
    let json: { format?: Record<string, unknown>; streams?: Record<string, unknown>[] };
    try {
      json = JSON.parse(r.stdout.toString('utf8')) as typeof json;
    } catch {
      throw new DeskhandError('internal', 'ffprobe gave an answer Deskhand could not read.');
    }
    const streams = json.streams ?? [];
    // A cover picture in an audio file is a video stream marked attached_pic: not a video.
    const video = streams.find((s) => s.codec_type === 'video' && (s.disposition as Record<string, unknown> | undefined)?.attached_pic !== 1);
    const audio = streams.find((s) => s.codec_type === 'audio');
    return {
      format: String(json.format?.format_long_name ?? json.format?.format_name ?? 'unknown'),
      durationSec: num(json.format?.duration) ?? num(video?.duration) ?? num(audio?.duration),
      bitRate: num(json.format?.bit_rate),
      video: video ? { codec: String(video.codec_name ?? 'unknown'), width: num(video.width) ?? 0, height: num(video.height) ?? 0, fps: fps(video.avg_frame_rate) ?? fps(video.r_frame_rate) } : null,
      audio: audio ? { codec: String(audio.codec_name ?? 'unknown'), sampleRate: num(audio.sample_rate), channels: num(audio.channels) } : null,
    };
  }

  async frame(fd: number, atSec: number, maxEdge: number | null, signal?: AbortSignal): Promise<Buffer> {
    const scale = maxEdge ? ['-vf', `scale=w='min(iw,${maxEdge})':h='min(ih,${maxEdge})':force_original_aspect_ratio=decrease`] : [];
    const args = ['-nostdin', '-v', 'error', '-ss', atSec.toFixed(3), '-i', 'file:/dev/stdin', '-frames:v', '1', ...scale, '-f', 'image2pipe', '-c:v', 'png', 'pipe:1'];
    const r = await run(this.programs.ffmpeg, args, fd, signal, 64 * 1024 * 1024, this.timeoutMs);
    if (r.missing) throw new DeskhandError('unsupported', NOT_INSTALLED('ffmpeg'));
    if (signal?.aborted) throw new DeskhandError('aborted', 'Reading the video was stopped.');
    if (r.code !== 0 || r.stdout.length === 0) throw new DeskhandError('usage', `No frame could be taken at ${atSec.toFixed(1)} s (${r.stderr.trim().split('\n')[0] || `ffmpeg exited with ${r.code}`}).`);
    return r.stdout;
  }

  async audioOf(fd: number, signal?: AbortSignal): Promise<Buffer> {
    // Speech for a transcription API: mono 16 kHz 16-bit WAV (every ffmpeg build writes it, every API takes it),
    // within the 25 MB OpenAI's transcription endpoint accepts: about 13 minutes.
    const args = ['-nostdin', '-v', 'error', '-i', 'file:/dev/stdin', '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-f', 'wav', 'pipe:1'];
    const r = await run(this.programs.ffmpeg, args, fd, signal, AUDIO_MAX_BYTES, this.timeoutMs * 3);
    if (r.stdout.length >= AUDIO_MAX_BYTES - 1024 * 1024 || (r.code !== 0 && r.stdout.length > AUDIO_MAX_BYTES / 2)) {
      throw new DeskhandError('usage', 'The sound is longer than about 13 minutes, more than a transcription API takes in one request. Cut a part (e.g. `ffmpeg -i in -ss 0 -t 600 part.wav`) and analyze that.');
    }
    if (r.missing) throw new DeskhandError('unsupported', NOT_INSTALLED('ffmpeg'));
    if (signal?.aborted) throw new DeskhandError('aborted', 'Reading the audio was stopped.');
    if (r.code !== 0 || r.stdout.length === 0) throw new DeskhandError('usage', `The sound could not be taken from the file (${r.stderr.trim().split('\n')[0] || `ffmpeg exited with ${r.code}`}).`);
    return r.stdout;
  }
}
