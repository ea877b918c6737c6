/**
 * Media the model can see: images prepared for a model (downscaled to the providers' limits, re-encoded) and stored in
 * the data dir by content hash; audio and video described by their container. The implementation (images.ts) is built
 * by the host.
 */
export interface PreparedImage {
  /** sha256 of the stored bytes (the file is `<dataDir>/media/<sha256>.<ext>`). */
  sha256: string;
  ext: 'png' | 'jpg';
  width: number;
  height: number;
  originalWidth: number;
  originalHeight: number;
  bytes: number;
}

/** A part of an image, in the original's pixels (left, top, width, height). */
export interface ImageRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PrepareOptions {
  /** Crop to this part first (it must lie inside the image). */
  region?: ImageRegion;
  /** Keep every pixel (up to `IMAGE_FULL_MAX_EDGE`); an image that then takes over `IMAGE_MAX_BYTES` (its base64 over 5 MB) is refused, not shrunk. */
  fullResolution?: boolean;
  /** Scale to at most this long edge instead of `IMAGE_MAX_EDGE` (video frames). */
  maxEdge?: number;
}

export interface MediaService {
  /**
   * Decodes, crops to `region`, downscales to at most `IMAGE_MAX_EDGE` on the long edge (and further until it takes
   * at most `IMAGE_MAX_BYTES`, whose base64 fits Anthropic's 5 MB; with `fullResolution` neither), re-encodes and stores
   * the image.
   */
  prepareImage(bytes: Buffer, opts?: PrepareOptions): Promise<PreparedImage>;
  /**
   * Keeps a copy of what generate_media made in the media store (`<dataDir>/media/artifacts/<sha256>.<ext>`), the only
   * place the conversation's artifact view reads from (host/app/media-artifacts.ts).
   */
  storeArtifact(bytes: Buffer, ext: ArtifactExt): Promise<{ sha256: string; ext: ArtifactExt }>;
}

/** What generate_media writes and the conversation shows. */
export const ARTIFACT_EXTS = ['png', 'mp3', 'wav'] as const;
export type ArtifactExt = (typeof ARTIFACT_EXTS)[number];
export const ARTIFACT_MIME: Record<ArtifactExt, string> = { png: 'image/png', mp3: 'audio/mpeg', wav: 'audio/wav' };
/** The folder of generated artifacts, under the data dir. */
export const ARTIFACT_DIR = ['media', 'artifacts'] as const;

/**
 * The last line of a generate_media result: the artifact it stored, as one line of JSON (a path or model with a newline
 * stays on that line). The host reads it back from the stored result (artifactOf) and serves only that stored copy.
 */
export interface ArtifactRecord {
  sha256: string;
  ext: ArtifactExt;
  mime: string;
  model: string;
  /** The file written where the path guard checked. */
  path: string;
}
export const ARTIFACT_PREFIX = 'Artifact: ';
export const artifactLine = (a: ArtifactRecord): string => `${ARTIFACT_PREFIX}${JSON.stringify(a)}`;

/** The artifact a generate_media result names on its last line, or null (a failed call, another tool's output). */
export function artifactOf(output: string | null): ArtifactRecord | null {
  if (!output) return null;
  const last = output.slice(output.lastIndexOf('\n') + 1);
  if (!last.startsWith(ARTIFACT_PREFIX)) return null;
  let v: unknown;
  try {
    v = JSON.parse(last.slice(ARTIFACT_PREFIX.length));
  } catch {
    return null;
  }
  const r = v as Partial<ArtifactRecord> | null;
  if (!r || typeof r !== 'object' || typeof r.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(r.sha256)) return null;
  if (typeof r.ext !== 'string' || !(ARTIFACT_EXTS as readonly string[]).includes(r.ext)) return null;
  if (typeof r.model !== 'string' || typeof r.path !== 'string') return null;
  return { sha256: r.sha256, ext: r.ext, mime: ARTIFACT_MIME[r.ext], model: r.model, path: r.path };
}

/** What ffprobe says of an audio or video file. */
export interface AvInfo {
  format: string;
  durationSec: number | null;
  bitRate: number | null;
  video: { codec: string; width: number; height: number; fps: number | null } | null;
  audio: { codec: string; sampleRate: number | null; channels: number | null } | null;
}

/** ffprobe and ffmpeg on an open file (av.ts), started through the process launcher. */
export interface AvTools {
  probe(fd: number, signal?: AbortSignal): Promise<AvInfo>;
  /** One frame at `atSec` as PNG, scaled to at most `maxEdge` on the long edge (null: as it is). */
  frame(fd: number, atSec: number, maxEdge: number | null, signal?: AbortSignal): Promise<Buffer>;
  /** The sound track as mono 16 kHz WAV (for a transcription API). */
  audioOf(fd: number, signal?: AbortSignal): Promise<Buffer>;
}

/** The long edge of video frames given to a model (twice that with full_resolution). */
export const FRAME_MAX_EDGE = 768;
/** Frames sampled from a video by default, and at most. */
export const FRAMES_DEFAULT = 6;
export const FRAMES_MAX = 12;
/** The long edge a full-resolution image may keep (Anthropic refuses images over 8000 px). */
export const IMAGE_FULL_MAX_EDGE = 8000;

/** The long edge images are scaled down to (Anthropic's recommended maximum; OpenAI's high-detail tiles fit too). */
export const IMAGE_MAX_EDGE = 1568;
/**
 * Anthropic refuses an image over 5 MB ("Vision": 5 MB per image through the API), the smallest provider limit, and
 * measures it on the base64 text the request carries, not on the decoded image.
 */
export const IMAGE_MAX_BASE64 = 5 * 1024 * 1024;
/** How many characters of base64 `bytes` bytes take (4 for every 3, padded). */
export const base64Length = (bytes: number): number => 4 * Math.ceil(bytes / 3);
/**
 * The most bytes one prepared image may take: its base64 within IMAGE_MAX_BASE64, so 3.75 MB (an image between 3.75
 * and 5 MB decoded is over 5 MB as base64, and refused). A detailed picture at IMAGE_MAX_EDGE can take ~10 MB as PNG.
 */
export const IMAGE_MAX_BYTES = (IMAGE_MAX_BASE64 / 4) * 3;
/** Files larger than this are not opened (Spec II: 100 MB). */
export const MEDIA_MAX_BYTES = 100 * 1024 * 1024;

export type MediaKind = { kind: 'image'; mime: string } | { kind: 'audio' | 'video'; mime: string; container: string } | null;

/** What a file is, by its first bytes. */
export function sniffMedia(b: Uint8Array): MediaKind {
  const ascii = (from: number, to: number) => String.fromCharCode(...b.subarray(from, to));
  if (b[0] === 0x89 && ascii(1, 4) === 'PNG') return { kind: 'image', mime: 'image/png' };
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return { kind: 'image', mime: 'image/jpeg' };
  if (ascii(0, 3) === 'GIF') return { kind: 'image', mime: 'image/gif' };
  if (ascii(0, 2) === 'BM') return { kind: 'image', mime: 'image/bmp' };
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return { kind: 'image', mime: 'image/webp' };
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WAVE') return { kind: 'audio', mime: 'audio/wav', container: 'WAVE' };
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'AVI ') return { kind: 'video', mime: 'video/x-msvideo', container: 'AVI' };
  if (ascii(0, 3) === 'ID3' || (b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0)) return { kind: 'audio', mime: 'audio/mpeg', container: 'MP3' };
  if (ascii(0, 4) === 'OggS') return { kind: 'audio', mime: 'audio/ogg', container: 'Ogg' };
  if (ascii(0, 4) === 'fLaC') return { kind: 'audio', mime: 'audio/flac', container: 'FLAC' };
  if (ascii(4, 8) === 'ftyp') {
    const brand = ascii(8, 12);
    return brand.startsWith('M4A') ? { kind: 'audio', mime: 'audio/mp4', container: `MP4 (${brand.trim()})` } : { kind: 'video', mime: 'video/mp4', container: `MP4 (${brand.trim()})` };
  }
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return { kind: 'video', mime: 'video/webm', container: 'Matroska/WebM' };
  return null;
}

/** One companion call's tokens as the provider reported them. */
export interface CompanionUsage {
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

/** The companion model analyze_media and generate_media use (`deskhand media companion set …`). */
export interface CompanionConfig {
  provider: 'anthropic' | 'openai' | 'openai-compatible';
  /** A model with vision, for analyze_media. */
  model: string;
  /** An image-generation model (OpenAI-style `/images/generations`), for generate_media; null: none. */
  imageModel: string | null;
  baseURL: string | null;
  /** A speech-to-text model (OpenAI-style `/audio/transcriptions`), for analyze_media on audio and video sound. */
  transcriptionModel?: string | null;
  /** A text-to-speech model (OpenAI-style `/audio/speech`), for generate_media kind audio. */
  speechModel?: string | null;
  /** More vision models of the same provider the model may pick per analyze_media call (`model`). */
  models?: string[];
  /** More image models the model may pick per generate_media kind image call (`model`). */
  imageModels?: string[];
  /** More speech models the model may pick per generate_media kind audio call (`model`). */
  speechModels?: string[];
}

/** What the companion is asked to look at: images (a picture, a video's frames) and text (a question, a transcript). */
export interface AnalyzeInput {
  images: { bytes: Buffer; mime: string }[];
  prompt: string;
  /** One of the configured vision models (default: `model`). */
  model?: string;
}

export interface Companion {
  config(): CompanionConfig | null;
  /** The answer, and the tokens the provider reported for it (for the usage ledger). */
  analyze(input: AnalyzeInput, signal?: AbortSignal): Promise<{ text: string; model: string; usage?: CompanionUsage }>;
  /** `model`: one of `imageChoices` (default: `imageModel`). */
  generateImage(prompt: string, opts: { size: string | null; model?: string }, signal?: AbortSignal): Promise<{ bytes: Buffer; mime: string; model: string }>;
  /** Speech to text through the provider's transcription API. */
  transcribe(audio: { bytes: Buffer; mime: string }, signal?: AbortSignal): Promise<{ text: string; model: string; language: string | null }>;
  /** Text to speech through the provider's speech API. */
  speak(text: string, opts: { voice?: string; format: 'mp3' | 'wav'; model?: string }, signal?: AbortSignal): Promise<{ bytes: Buffer; mime: string; model: string }>;
}

const firstThen = (main: string | null | undefined, more: string[] | undefined): string[] => [...new Set([...(main ? [main] : []), ...(more ?? [])])];
/** The vision models a call may choose: the companion's `model` and its `models`. */
export const visionModels = (c: CompanionConfig): string[] => firstThen(c.model, c.models);
/** The image models a generate_media call may choose: `imageModel` and `imageModels`. */
export const imageChoices = (c: CompanionConfig): string[] => firstThen(c.imageModel, c.imageModels);
/** The speech models a generate_media call may choose: `speechModel` and `speechModels`. */
export const speechChoices = (c: CompanionConfig): string[] => firstThen(c.speechModel, c.speechModels);
