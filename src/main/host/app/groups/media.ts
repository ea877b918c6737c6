/**
 * The contract's browser-screenshot, generated-media and companion-model methods (a handler group). A screenshot is
 * read only as the path a `browser_screenshot` call of that conversation printed, and only inside
 * `<data>/browser/screenshots/<conversation>/`; a generated image or speech only as the copy its generate_media call
 * stored in `<data>/media/artifacts/`, named on that call's result: the renderer never names a file.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { MethodResult, ParsedParams } from '../../../../shared/contract';
import { DeskhandError, errorMessage } from '../../../../shared/errors';
import { CompanionModel } from '../../../services/media/companion';
import { ARTIFACT_DIR, artifactOf, sniffMedia } from '../../../services/media';
import { KEY_ENV } from '../../../services/providers/config';
import type { HandlerGroup } from '../handler-groups';
import type { AppRuntime } from '../../assembly/open-runtime';

/** Larger PNGs (a very long full page) are not sent to the card; it names the file instead. */
export const CARD_SHOT_LIMIT = 12 * 1024 * 1024;

/** The folder browser_screenshot writes a conversation's PNGs to (tools/browser/pages.ts builds the same path). */
export function browserShotDir(dataDir: string, conversationId: string): string {
  return join(dataDir, 'browser', 'screenshots', conversationId.replace(/[^\w.-]/g, '_'));
}

/** The PNG a browser_screenshot call saved, checked against the folder only the browser family writes. */
export function readBrowserShot(runtime: AppRuntime, dataDir: string, p: ParsedParams<'readBrowserScreenshot'>): MethodResult<'readBrowserScreenshot'> {
  const row = runtime.records.toolCallOutput(p.conversationId, p.runId, p.callId);
  if (!row) throw new DeskhandError('not_found', `No tool call ${p.callId} in this conversation.`);
  const m = /^Screenshot: (\S+\.png) \(\d+ bytes, PNG\)$/m.exec(row.output ?? '');
  if (!m) throw new DeskhandError('not_found', 'That call saved no screenshot.');
  let real: string;
  let root: string;
  try {
    real = realpathSync(m[1]!);
    root = realpathSync(browserShotDir(dataDir, p.conversationId));
  } catch {
    throw new DeskhandError('not_found', `The screenshot ${m[1]} is gone.`);
  }
  const rel = relative(root, real);
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || !real.endsWith('.png')) throw new DeskhandError('usage', 'Only screenshots the browser saved for this conversation can be shown.');
  const size = statSync(real).size;
  if (size > CARD_SHOT_LIMIT) throw new DeskhandError('usage', `The screenshot is ${(size / 1048576).toFixed(1)} MB, too large to show here; it is at ${real}.`);
  return { dataUrl: `data:image/png;base64,${readFileSync(real).toString('base64')}`, path: real };
}

/** The tools whose results name a stored artifact (the pair's visible name and its execute half). */
const ARTIFACT_TOOLS = new Set(['generate_media', 'execute_generate_media']);

/**
 * What a generate_media call stored: the call must be this conversation's, that tool's, finished without error, and its
 * result's last line must name the copy; only `<data>/media/artifacts/<sha256>.<ext>` is read (a regular file, not a
 * link), and only when its bytes still hash to that name and are the image or audio the result says.
 */
export function readArtifact(runtime: AppRuntime, dataDir: string, p: ParsedParams<'readMediaArtifact'>): MethodResult<'readMediaArtifact'> {
  const row = runtime.records.toolCallOutput(p.conversationId, p.runId, p.callId);
  if (!row) throw new DeskhandError('not_found', `No tool call ${p.callId} in this conversation.`);
  const art = ARTIFACT_TOOLS.has(row.tool) && row.status === 'done' && !row.is_error ? artifactOf(row.output) : null;
  if (!art) throw new DeskhandError('not_found', 'That call made no image or speech.');
  const file = join(dataDir, ...ARTIFACT_DIR, `${art.sha256}.${art.ext}`);
  let bytes: Buffer;
  try {
    if (!lstatSync(file).isFile()) throw new Error('not a file');
    if (statSync(file).size > CARD_SHOT_LIMIT) throw new DeskhandError('usage', `It is ${(statSync(file).size / 1048576).toFixed(1)} MB, too large to show here; it is at ${art.path}.`);
    bytes = readFileSync(file);
  } catch (err) {
    if (DeskhandError.isInstance(err)) throw err;
    throw new DeskhandError('not_found', `The stored copy of ${art.path} is gone.`);
  }
  if (createHash('sha256').update(bytes).digest('hex') !== art.sha256) throw new DeskhandError('usage', `The stored copy of ${art.path} has changed since the call made it; it is not shown.`);
  const kind = sniffMedia(bytes);
  const want = art.ext === 'png' ? 'image' : 'audio';
  if (kind?.kind !== want) throw new DeskhandError('usage', `The stored copy of ${art.path} is not ${want === 'image' ? 'an image' : 'audio'}.`);
  return { kind: want, mime: kind.mime, dataUrl: `data:${kind.mime};base64,${bytes.toString('base64')}`, bytes: bytes.length, sha256: art.sha256, model: art.model, path: art.path };
}

function keyLine(provider: keyof typeof KEY_ENV): string {
  const env = KEY_ENV[provider];
  return env ? `Uses the ${provider === 'openai' ? 'OpenAI' : 'Anthropic'} key saved under Providers, else ${env}.` : 'Uses OPENAI_COMPATIBLE_API_KEY if set (many local servers need none).';
}

/** Browser screenshots and generated media for tool cards, and the companion model (a handler group, handler-groups.ts). */
export const mediaGroup: HandlerGroup<'readBrowserScreenshot' | 'readMediaArtifact' | 'getCompanion' | 'setCompanion'> = ({ runtime, dataDir }) => {
  const companionFile = new CompanionModel(dataDir);
  const getCompanion = async (): Promise<MethodResult<'getCompanion'>> => {
    let companion: MethodResult<'getCompanion'>['companion'] = null;
    try {
      companion = companionFile.config();
    } catch (err) {
      return { companion: null, key: `The saved companion does not parse (${errorMessage(err).slice(0, 200)}); save a new one.` };
    }
    return { companion, key: companion ? keyLine(companion.provider) : 'No companion model: analyze_media and generate_media are off.' };
  };
  return {
    readBrowserScreenshot: async (p) => readBrowserShot(runtime, dataDir, p),
    readMediaArtifact: async (p) => readArtifact(runtime, dataDir, p),
    getCompanion,
    async setCompanion(p) {
      if (p.companion?.provider === 'openai-compatible' && !p.companion.baseURL) throw new DeskhandError('usage', 'An OpenAI-compatible companion needs its base URL.');
      if (p.companion?.provider === 'anthropic' && (p.companion.imageModel || p.companion.imageModels?.length)) throw new DeskhandError('usage', 'Anthropic has no image generation: leave the image model empty, or choose OpenAI or an OpenAI-compatible server.');
      if (p.companion?.provider === 'anthropic' && (p.companion.speechModel || p.companion.speechModels?.length)) throw new DeskhandError('usage', 'Anthropic makes no speech: leave the speech models empty, or choose OpenAI or an OpenAI-compatible server.');
      companionFile.save(p.companion);
      return getCompanion();
    },
  };
};
