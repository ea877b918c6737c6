/** Test media made with ffmpeg itself (lavfi sources: color, testsrc, sine), written into a folder. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ffmpeg = (args: string[]) => execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });

/** A 3 s MP4 (index at the end, as ffmpeg writes it by default): one second red, one blue, one green, 320×240. */
export function colorsVideo(dir: string, name = 'colors.mp4'): string {
  const out = join(dir, name);
  const src = (c: string) => ['-f', 'lavfi', '-i', `color=c=${c}:s=320x240:r=10:d=1`];
  ffmpeg([...src('red'), ...src('blue'), ...src('green'), '-filter_complex', '[0][1][2]concat=n=3:v=1:a=0', '-c:v', 'mpeg4', '-q:v', '2', out]);
  return out;
}

/** ffmpeg's testsrc pattern with a 440 Hz tone: `seconds` long, `size` (WxH), WebM (VP8 + Vorbis… or Opus). */
export function testsrcVideo(dir: string, opts: { name?: string; seconds?: number; size?: string } = {}): string {
  const out = join(dir, opts.name ?? 'testsrc.webm');
  const d = String(opts.seconds ?? 2);
  ffmpeg(['-f', 'lavfi', '-i', `testsrc=s=${opts.size ?? '640x360'}:r=25:d=${d}`, '-f', 'lavfi', '-i', `sine=frequency=440:d=${d}`, '-c:v', 'libvpx', '-b:v', '200k', '-c:a', 'libopus', '-shortest', out]);
  return out;
}

/** A sine tone as WAV (16 kHz mono, 16-bit). */
export function toneWav(dir: string, seconds = 2, name = 'tone.wav'): string {
  const out = join(dir, name);
  ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=440:d=${seconds}:sample_rate=16000`, '-ac', '1', '-c:a', 'pcm_s16le', out]);
  return out;
}
