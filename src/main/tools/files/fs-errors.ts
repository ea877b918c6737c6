/** Turns file-system errors into messages the model can act on, plus small helpers every file tool shares. */
import { ToolError } from '../../../shared/errors';

export function errno(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/**
 * Maps a Node fs error to a ToolError. `what` is the path as shown to the model; `kind` words the not-found case.
 * ToolErrors pass through unchanged.
 */
export function fsError(err: unknown, what: string, kind: 'file' | 'folder' | 'path' = 'path'): ToolError {
  if (err instanceof ToolError) return err;
  const code = errno(err);
  const noun = kind === 'file' ? 'File' : kind === 'folder' ? 'Folder' : 'Path';
  switch (code) {
    case 'ENOENT':
      return new ToolError(`${noun} not found: ${what}. Use find or ls to locate it.`, 'not_found');
    case 'EACCES':
    case 'EPERM':
      return new ToolError(`Permission denied: ${what}. Deskhand's process may not access it; pick another path or ask the person to change its permissions.`);
    case 'EISDIR':
      return new ToolError(`${what} is a folder, not a file. Use ls to list it.`);
    case 'ENOTDIR':
      return new ToolError(`A part of ${what} is a file, not a folder, so the path cannot exist. Check it with stat or ls.`, 'not_found');
    case 'ELOOP':
      return new ToolError(`${what} goes through too many symbolic links (a link loop?). Check it with stat.`);
    case 'ENAMETOOLONG':
      return new ToolError(`The path ${what} is too long for the file system.`);
    case 'ENOSPC':
      return new ToolError(`No space left on the device holding ${what}. Nothing was written.`);
    case 'EDQUOT':
      return new ToolError(`Disk quota exceeded for ${what}. Nothing was written.`);
    case 'EROFS':
      return new ToolError(`${what} is on a read-only file system.`);
    case 'EBUSY':
      return new ToolError(`${what} is busy (in use by another program or a mount point). Try again later or pick another path.`);
    case 'EEXIST':
      return new ToolError(`${what} already exists.`, 'conflict');
    case 'ENOTEMPTY':
      return new ToolError(`${what} is a folder that is not empty.`, 'conflict');
    case 'EXDEV':
      return new ToolError(`${what} is on another device; the operation cannot be done in one step.`);
    default:
      return new ToolError(`${noun} operation failed for ${what}: ${err instanceof Error ? err.message : String(err)}`, 'internal');
  }
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new ToolError('Stopped before finishing (the call was cancelled or timed out).', 'aborted');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** Lines in a text the way an editor counts them (a trailing newline does not start another line). */
export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 0;
  let i = -1;
  while ((i = text.indexOf('\n', i + 1)) !== -1) n++;
  return text.endsWith('\n') ? n : n + 1;
}
