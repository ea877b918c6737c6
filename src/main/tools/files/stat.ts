/** stat: does a path exist, and what is it (type, link target, size, permissions, times, links). */
import type { Stats } from 'node:fs';
import { lstat, readlink, stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import { errno, formatBytes, fsError } from './fs-errors';
import { displayPath, resolveToolPath } from './paths';

const params = () => z.object({
  path: z.string().describe('File, folder or link to inspect: absolute, relative to the working directory, or starting with ~.'),
});

function typeOf(st: Stats): string {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isFIFO()) return 'pipe';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  return 'other';
}

function permissions(mode: number): string {
  const bits = 'rwxrwxrwx';
  let s = '';
  for (let i = 0; i < 9; i++) s += mode & (1 << (8 - i)) ? bits[i] : '-';
  return s;
}

function describe(st: Stats): string[] {
  const lines = [`size: ${st.size} bytes${st.size >= 1024 ? ` (${formatBytes(st.size)})` : ''}`];
  lines.push(`mode: ${(st.mode & 0o7777).toString(8).padStart(4, '0')} (${permissions(st.mode)})`);
  lines.push(`modified: ${st.mtime.toISOString()}`);
  lines.push(`created: ${st.birthtimeMs > 0 ? st.birthtime.toISOString() : 'unknown'}`);
  lines.push(`nlink: ${st.nlink}`);
  return lines;
}

export const statTool = defineTool({
  name: 'stat',
  facts: { loadsWith: 'fileops' },
  description:
    'Check whether a path exists and get its metadata: type (file, directory, symlink with its target), size, ' +
    'permissions, modification time and hard-link count. A missing path is reported as "exists: false", not as an ' +
    'error. Use it before writing or removing to check what is there.',
  params,
  risk: 'read-only',
  disclosure: 'internal',
  presentation: { title: 'Look at a file', icon: 'file', summary: (args) => args.path },
  effects: (args) => ({ paths: { read: [args.path] } }),
  async execute(args, ctx) {
    const abs = resolveToolPath(args.path, ctx);
    const shown = displayPath(abs, ctx.state.cwd);
    let st: Stats;
    try {
      st = await lstat(abs);
    } catch (err) {
      const code = errno(err);
      if (code === 'ENOENT' || code === 'ENOTDIR') return { output: `path: ${abs}\nexists: false` };
      throw fsError(err, shown);
    }
    const lines = [`path: ${abs}`, 'exists: true', `type: ${typeOf(st)}`];
    if (st.isSymbolicLink()) {
      const target = await readlink(abs).catch(() => '?');
      lines.push(`target: ${target}`);
      try {
        const t = await stat(abs);
        lines.push(`target type: ${typeOf(t)}`);
        lines.push(...describe(t).map((l) => `target ${l}`));
      } catch {
        lines.push('target type: missing (broken link)');
      }
      lines.push(...describe(st).filter((l) => l.startsWith('modified') || l.startsWith('nlink')));
    } else {
      lines.push(...describe(st));
    }
    return { output: lines.join('\n') };
  },
});
