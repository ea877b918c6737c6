/**
 * Writes a file a compositions tool produced (a PDF, an export zip) where the approval engine checked it: the folder
 * must still lead where it led at the decision, the target may not be a symbolic link or a file with other hard links,
 * and the bytes go to a temp file in the same folder that is renamed over the target (never half a file).
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ToolError } from '../../../shared/errors';
import type { ToolContext } from '../../runtime/tool';

export async function writeChecked(abs: string, bytes: Uint8Array, ctx: Pick<ToolContext, 'checkedPaths' | 'signal'>): Promise<void> {
  const check = ctx.checkedPaths?.get(abs);
  const existing = await lstat(abs).catch(() => null);
  if (existing?.isSymbolicLink()) throw new ToolError(`${abs} is a symbolic link; write to the real path it points to. Nothing was written.`);
  if (existing && !existing.isFile()) throw new ToolError(`${abs} exists and is not a regular file. Nothing was written.`);
  if (existing && existing.nlink > 1) throw new ToolError(`${abs} has other hard links; replacing it would split them. Nothing was written.`);
  await mkdir(dirname(abs), { recursive: true });
  const dir = await realpath(dirname(abs));
  if (check && join(dir, basename(abs)) !== check.resolved) {
    throw new ToolError(`${abs} now leads to ${join(dir, basename(abs))}, not to ${check.resolved} as when the call was checked. Nothing was written.`, 'conflict');
  }
  if (ctx.signal.aborted) throw new ToolError('Stopped before writing.');
  const tmp = join(dir, `.${basename(abs).slice(0, 180)}.${randomBytes(6).toString('hex')}.deskhand-tmp`);
  const fh = await open(tmp, 'wx', 0o644);
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  if ((await realpath(dirname(abs))) !== dir) {
    await unlink(tmp).catch(() => undefined);
    throw new ToolError(`The folder of ${abs} changed while writing. Nothing was written.`, 'conflict');
  }
  await rename(tmp, join(dir, basename(abs)));
}
