/**
 * The scripted model server's audio routes, in OpenAI's wire shapes as the AI SDK's openai provider sends them:
 * - `POST /v1/audio/transcriptions`: multipart/form-data with `model`, `file` (named `audio.<ext>`, with its type) and
 *   `response_format` (`verbose_json` for whisper-1); answered `{text, language, duration, segments}`.
 * - `POST /v1/audio/speech`: JSON `{model, input, voice, response_format}`; answered with audio bytes in that format
 *   (a real, silent WAV, or an MP3 frame).
 * Both are checked against what OpenAI documents (provider-validation.ts: the 4,096-character speech input, the 25 MB
 * transcription file, the formats, unknown fields) and refused as OpenAI refuses them (400), unless the checks are off.
 * Each request is recorded (fields, and each file's name, type, size and sha256) so tests prove what was sent.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { validateSpeech, validateTranscription, type ProviderRefusal } from './provider-validation';

export interface AudioRequest {
  path: '/v1/audio/transcriptions' | '/v1/audio/speech';
  headers: IncomingHttpHeaders;
  /** Form fields (transcriptions) or the JSON body (speech). */
  fields: Record<string, unknown>;
  files: { field: string; filename: string; contentType: string; size: number; sha256: string; bytes: Buffer }[];
}

/** 0.1 s of 16 kHz mono 16-bit silence as WAV. */
export function silentWav(samples = 1600): Buffer {
  const data = samples * 2;
  const b = Buffer.alloc(44 + data);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + data, 4);
  b.write('WAVE', 8);
  b.write('fmt ', 12);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(16000, 24);
  b.writeUInt32LE(32000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(data, 40);
  return b;
}

/** One MPEG-1 Layer III frame header (128 kbit/s, 44.1 kHz) and its zeroed body. */
export const SCRIPTED_MP3 = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);

function parseMultipart(body: Buffer, contentType: string): Pick<AudioRequest, 'fields' | 'files'> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) throw new Error('multipart body without a boundary');
  const sep = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const fields: Record<string, unknown> = {};
  const files: AudioRequest['files'] = [];
  let at = body.indexOf(sep);
  while (at !== -1) {
    const start = at + sep.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(sep, start);
    if (next === -1) break;
    const part = body.subarray(start + 2, next - 2); // after CRLF, before CRLF
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const content = part.subarray(split + 4);
    const name = /name="([^"]*)"/.exec(head)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    if (filename !== undefined) {
      files.push({ field: name, filename, contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? '', size: content.length, sha256: createHash('sha256').update(content).digest('hex'), bytes: Buffer.from(content) });
    } else fields[name] = content.toString('utf8');
    at = next;
  }
  return { fields, files };
}

const refuse = (res: ServerResponse, message: string, refusal?: ProviderRefusal) =>
  res
    .writeHead(refusal?.status ?? 400, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: refusal?.param ?? null, code: refusal?.code ?? null } }));

/** How the audio routes check requests: `refused` hears each refusal; `validate` false takes any body. */
export interface AudioChecks {
  validate: boolean;
  refused(request: AudioRequest, refusal: ProviderRefusal): void;
}

/** Answers an audio route; false when `path` is not one. */
export async function handleAudio(req: IncomingMessage, res: ServerResponse, path: string, record: (r: AudioRequest) => void, transcript: () => string, checks: AudioChecks): Promise<boolean> {
  const refused = (r: AudioRequest, refusal: ProviderRefusal | undefined): boolean => {
    if (!refusal || !checks.validate) return false;
    checks.refused(r, refusal);
    refuse(res, refusal.message, refusal);
    return true;
  };
  if (req.method !== 'POST' || (path !== '/v1/audio/transcriptions' && path !== '/v1/audio/speech')) return false;
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  if (path === '/v1/audio/transcriptions') {
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('multipart/form-data')) return refuse(res, 'Transcriptions take multipart/form-data.'), true;
    const parsed = parseMultipart(body, type);
    const request: AudioRequest = { path, headers: req.headers, ...parsed };
    record(request);
    if (refused(request, validateTranscription(parsed.fields, parsed.files))) return true;
    const text = transcript();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ task: 'transcribe', language: 'english', duration: 2.0, text, segments: [{ id: 0, seek: 0, start: 0, end: 2, text, tokens: [], temperature: 0, avg_logprob: 0, compression_ratio: 1, no_speech_prob: 0 }] }));
    return true;
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return refuse(res, 'The body is not JSON.'), true;
  }
  const request: AudioRequest = { path, headers: req.headers, fields: json, files: [] };
  record(request);
  if (refused(request, validateSpeech(json))) return true;
  const format = (json.response_format as string | undefined) ?? 'mp3';
  if (format === 'wav') res.writeHead(200, { 'content-type': 'audio/wav' }).end(silentWav());
  else if (format === 'mp3') res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(SCRIPTED_MP3);
  else refuse(res, `The scripted server speaks mp3 and wav, not ${format}.`);
  return true;
}
