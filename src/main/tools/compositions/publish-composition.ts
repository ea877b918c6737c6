/**
 * publish_composition: sends exactly the bytes of the version the person approved to a target — a zip or a folder on
 * this machine, or a git remote the person configured (commit on its branch, push). Always asks, under every policy,
 * with a preview of what goes where; an unapproved composition is refused.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DeskhandError, ToolError } from '../../../shared/errors';
import { resolvePath } from '../../runtime/decision/resolve-path';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { publishedFileName, type CompositionService, type Publisher, type PublishFile } from '../../services/compositions/index';
import { writeChecked } from './write-out';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

const target = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('zip'), path: z.string().min(1).describe('The .zip file to write.') }),
  z.strictObject({ type: z.literal('folder'), path: z.string().min(1).describe('The folder to write the page into (created if missing).') }),
  z.strictObject({ type: z.literal('git'), name: z.string().min(1).max(64).describe('A git target the person configured (`deskhand compositions remote list`).') }),
]);

const params = () => z
  .object({
    id: z.string().regex(/^cmp_[0-9a-f]{10}$/).describe('The composition id.'),
    target: target.describe('Where to publish: {type:"zip",path}, {type:"folder",path} or {type:"git",name}.'),
  })
  .strict();
type Args = z.infer<ReturnType<typeof params>>;

interface Plan {
  id: string;
  version: number;
  title: string;
  files: PublishFile[];
  sha256: string;
  where: string;
}

function plan(args: Args, compositions: CompositionService, publisher: Publisher, cwd: string): Plan {
  const c = compositions.get(args.id);
  if (!c) throw new ToolError(`No composition ${args.id}.`);
  if (c.approvedVersion === null) {
    throw new ToolError(`Composition ${args.id} has no approved version. Ask the person to review it and press Approve in the Compositions panel, then publish.`);
  }
  const v = c.versions.find((x) => x.version === c.approvedVersion)!;
  let bytes: Buffer;
  try {
    bytes = compositions.read(c.id, v.version);
  } catch (err) {
    throw new ToolError(DeskhandError.isInstance(err) ? err.message : String(err));
  }
  const files = [{ name: publishedFileName(c.kind, v.mime), bytes }];
  let where: string;
  if (args.target.type === 'git') {
    const t = publisher.gitTarget(args.target.name);
    if (!t) {
      const names = publisher.gitTargetNames();
      throw new ToolError(`No git target "${args.target.name}" is configured (${names.length ? `configured: ${names.join(', ')}` : 'none is'}). The person adds one with \`deskhand compositions remote add NAME REPOSITORY --branch BRANCH\`.`);
    }
    where = `branch ${t.branch} of ${t.repository}, folder ${t.folder ?? `compositions/${c.id}`}`;
  } else where = `${args.target.type === 'zip' ? 'zip file' : 'folder'} ${resolvePath(args.target.path, cwd)}`;
  return { id: c.id, version: v.version, title: c.title, files, sha256: createHash('sha256').update(bytes).digest('hex'), where };
}

export const createPublishComposition = (compositions: CompositionService, publisher: Publisher) =>
  defineTool({
    name: 'publish_composition',
    description:
      'Publish the version of a composition the person approved: as a zip or into a folder on this machine, or to a git target ' +
      'the person configured (a commit on its branch, pushed: a pages branch serves it at a stable URL, returned). The published bytes are exactly the approved version\'s. Always ' +
      'asks the person, with a preview; refused while no version is approved.',
    params,
    risk: 'unknown',
    disclosure: 'internal',
    facts: { writes: true, sendsOut: true },
    effects: (args) => {
      const base = { egress: args.target.type === 'git', assessment: { risk: 'high-risk' as const, reasons: ['publishing sends a composition out of Deskhand'], alwaysAsk: 'publish_composition is always previewed' } };
      if (args.target.type === 'git') {
        const t = publisher.gitTarget(args.target.name);
        const host = t && /^[a-z+]+:\/\/([^/@]*@)?([^/:]+)/i.exec(t.repository)?.[2];
        return { ...base, network: true, processes: true, ...(host ? { hosts: [host] } : {}), ...(t && !host ? { paths: { write: [t.repository] } } : {}) };
      }
      return { ...base, paths: { write: [args.target.path] } };
    },
    pair: {
      executeName: 'execute_publish_composition',
      async propose(args, ctx) {
        const p = plan(args, compositions, publisher, ctx.state.cwd);
        const f = p.files[0]!;
        const head = f.name.endsWith('.html') || f.name.endsWith('.md') || f.name.endsWith('.svg') ? Buffer.from(f.bytes).toString('utf8').split('\n').slice(0, 40).join('\n') : `(${f.bytes.length} bytes of ${f.name})`;
        return {
          description: `Publish "${p.title}" (${p.id}, approved version ${p.version}) to ${p.where}`,
          preview: `${f.name}: ${f.bytes.length} bytes, sha256 ${p.sha256}\n\n${head}`,
        };
      },
    },
    presentation: { title: 'Publish a composition', icon: 'web', summary: (args) => `${args.id} → ${args.target.type === 'git' ? `git ${args.target.name}` : args.target.path}` },
    timeoutMs: 180_000,
    async execute(args, ctx: ToolContext) {
      const p = plan(args, compositions, publisher, ctx.state.cwd);
      if (args.target.type === 'zip') {
        await writeChecked(resolvePath(args.target.path, ctx.state.cwd), publisher.zip(p.files), ctx);
      } else if (args.target.type === 'folder') {
        const dir = resolvePath(args.target.path, ctx.state.cwd);
        await mkdir(dir, { recursive: true });
        for (const f of p.files) await writeChecked(join(dir, f.name), f.bytes, { ...ctx, checkedPaths: new Map() });
      } else {
        const t = publisher.gitTarget(args.target.name)!;
        try {
          const folder = t.folder ?? `compositions/${p.id}`;
          const commit = await publisher.toGit(t, folder, p.files, `Publish ${p.title} (${p.id} v${p.version})`, ctx.signal);
          const url = publisher.pageUrl(t, folder, p.files[0]!.name);
          const where = url
            ? `\nURL: ${url} (stable: later publishes of this composition replace it there; the host may take a minute to serve a new commit)`
            : `\nNo pages URL is known for this target (the person can add one: \`deskhand compositions remote add ${args.target.name} ${t.repository} --branch ${t.branch} --url URL\`).`;
          return { output: `Published ${p.id} version ${p.version} (sha256 ${p.sha256}) to ${p.where}: commit ${commit}.${where}` };
        } catch (err) {
          throw new ToolError(DeskhandError.isInstance(err) ? err.message : String(err));
        }
      }
      return { output: `Published ${p.id} version ${p.version} (sha256 ${p.sha256}) to ${p.where}.` };
    },
  });
