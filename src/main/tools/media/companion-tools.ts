/**
 * analyze_media and generate_media through the companion model the person set up. analyze_media sends the image
 * (downscaled) and the question to that provider; generate_media sends the prompt and writes the image where the path
 * guard checked. Both send material off the machine to a third party, so both are high-risk egress with an approval
 * pair (Spec I): the proposal names the file (its size and type) or the prompt, and the provider, host and model it
 * would go to; nothing is read for sending, and nothing is sent, before the call is approved (by a person, or by the
 * high-risk policy).
 */
import { readFile, stat } from 'node:fs/promises';
import { z } from 'zod';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { openVerified } from '../../runtime/path-guard';
import { resolvePath } from '../../runtime/resolve-path';
import { defineTool, type Proposal, type ToolContext } from '../../runtime/tool';
import { MEDIA_MAX_BYTES, sniffMedia, type Companion, type CompanionConfig, type MediaService } from '../../services/media/index';

/** Where a companion call goes, in words a person can check: provider, host and model. */
function destination(c: CompanionConfig | null, model: 'model' | 'imageModel'): string {
  if (!c) return 'no companion model is set up (the call will fail without sending anything)';
  const fallback = c.provider === 'anthropic' ? 'api.anthropic.com' : c.provider === 'openai' ? 'api.openai.com' : 'its configured address';
  let host = fallback;
  if (c.baseURL) {
    try {
      host = new URL(c.baseURL).host;
    } catch {
      host = c.baseURL;
    }
  }
  return `${c.provider} at ${host}, model ${c[model] ?? '(none set)'}`;
}

async function describeFile(path: string, ctx: ToolContext): Promise<string> {
  const abs = resolvePath(path, ctx.state.cwd);
  try {
    const st = await stat(abs);
    return `${abs} (${st.size} bytes)`;
  } catch {
    return `${abs} (not readable now)`;
  }
}

export function analyzeProposal(companion: Companion, args: { path: string; question: string }, file: string): Proposal {
  const to = destination(companion.config(), 'model');
  return {
    description: `Send ${file} to ${to}`,
    preview: [`File: ${file} (downscaled to at most 1568 px, re-encoded)`, `Sent to: ${to}`, `Question: ${args.question}`].join('\n'),
  };
}

export function generateProposal(companion: Companion, args: { prompt: string; path: string; size?: string | undefined }, ctx: ToolContext): Proposal {
  const to = destination(companion.config(), 'imageModel');
  const where = resolvePath(args.path, ctx.state.cwd);
  return {
    description: `Send an image prompt to ${to}; write ${where}`,
    preview: [`Sent to: ${to}`, `Prompt: ${args.prompt}`, ...(args.size ? [`Size: ${args.size}`] : []), `Writes: ${where}`].join('\n'),
  };
}

const asToolError = (err: unknown): never => {
  if (err instanceof ToolError) throw err;
  if (DeskhandError.isInstance(err)) throw new ToolError(err.message);
  throw new ToolError(`The companion model failed: ${(err as Error).message}`);
};

async function readChecked(path: string, ctx: ToolContext): Promise<Buffer> {
  const abs = resolvePath(path, ctx.state.cwd);
  try {
    const { fh } = await openVerified(abs, ctx.checkedPaths?.get(abs)?.resolved);
    try {
      if ((await fh.stat()).size > MEDIA_MAX_BYTES) throw new ToolError(`${path} is larger than ${MEDIA_MAX_BYTES} bytes.`);
      return await readFile(fh);
    } finally {
      await fh.close();
    }
  } catch (err) {
    if (err instanceof ToolError) throw err;
    throw new ToolError(`${path} could not be opened: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}.`);
  }
}

export const createAnalyzeMedia = (companion: Companion, media: MediaService, dataDir: string) =>
  defineTool({
    name: 'analyze_media',
    description:
      'Ask the companion model (a vision model the person set up) a question about an image file: what it shows, text in it, ' +
      'a chart\'s values. The image (scaled to at most 1568 px) and the question are sent to that model\'s provider.',
    params: z.object({ path: z.string().describe('The image file.'), question: z.string().min(1).max(4000).describe('What to find out about the image.') }).strict(),
    risk: 'high-risk',
    disclosure: 'internal',
    effects: (args) => ({ paths: { read: [args.path] }, egress: true, network: true }),
    pair: {
      executeName: 'execute_analyze_media',
      propose: async (args, ctx) => analyzeProposal(companion, args, await describeFile(args.path, ctx)),
    },
    presentation: { title: 'Ask about an image', icon: 'file', summary: (args) => `${args.path}: ${args.question.slice(0, 60)}` },
    timeoutMs: 120_000,
    async execute(args, ctx) {
      const bytes = await readChecked(args.path, ctx);
      if (sniffMedia(bytes)?.kind !== 'image') throw new ToolError(`${args.path} is not an image (PNG, JPEG, GIF, BMP or WebP).`);
      try {
        const img = await media.prepareImage(bytes);
        const prepared = await readFile(`${dataDir}/media/${img.sha256}.${img.ext}`);
        const answer = await companion.analyze({ bytes: prepared, mime: img.ext === 'png' ? 'image/png' : 'image/jpeg' }, args.question, ctx.signal);
        const c = companion.config();
        return { output: `${c?.model ?? 'The companion model'} on ${args.path}:\n${answer}`, untrustedSource: `analyze_media ${args.path}` };
      } catch (err) {
        return asToolError(err);
      }
    },
  });

export const createGenerateMedia = (companion: Companion, write: (abs: string, bytes: Uint8Array, ctx: ToolContext) => Promise<void>) =>
  defineTool({
    name: 'generate_media',
    description:
      'Make an image from a prompt with the companion image model the person set up, and save it to path (a .png). The prompt ' +
      'is sent to that model\'s provider. For charts and diagrams with exact numbers prefer an SVG or HTML composition.',
    params: z
      .object({
        prompt: z.string().min(1).max(4000).describe('What the image should show.'),
        kind: z.literal('image').describe('What to make (images only for now).'),
        size: z.string().regex(/^\d{2,4}x\d{2,4}$/).optional().describe('WIDTHxHEIGHT, e.g. 1024x1024 (the model may support only some sizes).'),
        path: z.string().min(1).describe('Where to save the image (.png).'),
      })
      .strict(),
    risk: 'high-risk',
    disclosure: 'internal',
    effects: (args) => ({ paths: { write: [args.path] }, egress: true, network: true }),
    pair: {
      executeName: 'execute_generate_media',
      propose: async (args, ctx) => generateProposal(companion, args, ctx),
    },
    presentation: { title: 'Make an image', icon: 'file', summary: (args) => `${args.path}: ${args.prompt.slice(0, 60)}` },
    timeoutMs: 180_000,
    async execute(args, ctx) {
      if (!/\.png$/i.test(args.path)) throw new ToolError(`${args.path} does not end in .png; name the PNG file to write.`);
      try {
        const img = await companion.generateImage(args.prompt, args.size ?? null, ctx.signal);
        if (sniffMedia(img.bytes)?.kind !== 'image') throw new ToolError('The image model returned something that is not an image; nothing was written.');
        await write(resolvePath(args.path, ctx.state.cwd), img.bytes, ctx);
        return { output: `Wrote ${args.path}: ${img.mime}, ${img.bytes.length} bytes, made by ${companion.config()?.imageModel ?? 'the image model'}.` };
      } catch (err) {
        return asToolError(err);
      }
    },
  });
