/**
 * Atomic file replacement: write a temp file in the same folder, fsync it, rename it over the target, fsync the
 * folder. A stopped or crashed write leaves the old version or the new one, never half a file. Also the guards every
 * writing tool shares: no writing through symlinks, no splitting hard links, and the read-before-write snapshot rule.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { copyFile, lstat, open, readFile, readlink, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ToolError } from '../../../shared/errors';
import { resolvedDir } from '../../runtime/decision/path-guard';
import type { ConversationState, FileSnapshot, ToolContext } from '../../runtime/tool';
import { errno, fsError } from './fs-errors';

export interface AtomicWriteOptions {
  /** Permission bits for the result (the existing file's, to keep them); default 0o666 minus the umask. */
  mode?: number;
  /** Owner to keep when replacing someone else's file (best effort; only root may change it). */
  uid?: number;
  gid?: number;
}

function tempPathFor(target: string): string {
  const base = basename(target).slice(0, 180);
  return join(dirname(target), `.${base}.${randomBytes(6).toString('hex')}.deskhand-tmp`);
}

/** fsync a folder so the rename itself is durable. Some platforms (Windows) cannot open folders: ignore that. */
async function syncDir(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (err) {
    const code = errno(err);
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EACCES' && code !== 'EINVAL' && code !== 'EBADF') throw err;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * Replaces `target` atomically. `fill` writes the content into the open temp file (or, when `seed` is given, the temp
 * file starts as a copy of `seed` and `fill` appends to it). Returns the lstat of the written file.
 */
async function atomicReplace(
  target: string,
  fill: (fh: Awaited<ReturnType<typeof open>>) => Promise<void>,
  opts: AtomicWriteOptions & { seed?: string },
): Promise<Stats> {
  const tmp = tempPathFor(target);
  // Where the folder really is now; a folder swapped for a link while we write is detected before and after the rename.
  const realDir = resolvedDir(dirname(target));
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  let renamed = false;
  try {
    if (opts.seed) {
      // Reflink when the file system can (instant on btrfs/xfs/apfs), a plain copy otherwise.
      await copyFile(opts.seed, tmp, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
      fh = await open(tmp, 'a');
    } else {
      fh = await open(tmp, 'wx', 0o666);
    }
    if (opts.mode !== undefined) await fh.chmod(opts.mode & 0o7777);
    if (opts.uid !== undefined && opts.gid !== undefined && typeof process.getuid === 'function') {
      if (opts.uid !== process.getuid() || opts.gid !== process.getgid?.()) await fh.chown(opts.uid, opts.gid).catch(() => undefined);
    }
    await fill(fh);
    await fh.sync();
    const written = await fh.stat();
    await fh.close();
    fh = undefined;
    const movedAway = async (path: string): Promise<boolean> => {
      const st = await lstat(join(realDir, basename(path))).catch(() => null);
      return resolvedDir(dirname(target)) !== realDir || !st || st.ino !== written.ino || st.dev !== written.dev;
    };
    if (await movedAway(tmp)) {
      throw new ToolError(`The folder of ${target} changed while it was being written (it now leads elsewhere). Nothing was replaced; check the path and try again.`, 'conflict');
    }
    await rename(tmp, target);
    renamed = true;
    if (await movedAway(target)) {
      throw new ToolError(`The folder of ${target} changed during the write, so the new content may have landed elsewhere. Check ${target} and its folder before continuing.`, 'conflict');
    }
    await syncDir(dirname(target));
    return await lstat(target);
  } finally {
    await fh?.close().catch(() => undefined);
    if (!renamed) await unlink(tmp).catch(() => undefined);
  }
}

export async function atomicWriteFile(target: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<Stats> {
  return atomicReplace(target, async (fh) => void (await fh.writeFile(data)), opts);
}

/** Appends atomically: the temp file starts as a copy of the current file (reflinked where possible). */
export async function atomicAppendFile(target: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<Stats> {
  return atomicReplace(target, async (fh) => void (await fh.appendFile(data)), { ...opts, seed: target });
}

/**
 * Files up to this size also get a content hash in their snapshot: a same-size rewrite within one mtime tick (coarse
 * file-system clocks, or a tool that restores the mtime) changes nothing else a stat shows. Bigger files are compared
 * by inode, size and mtime only, so a read never costs more than this to hash.
 */
export const SNAPSHOT_HASH_LIMIT = 4 * 1024 * 1024;

export function contentHash(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The hash of a file's content as it is now, or undefined when it is too big to hash (or cannot be read). */
export async function hashFileIfSmall(abs: string, size: number): Promise<string | undefined> {
  if (size > SNAPSHOT_HASH_LIMIT) return undefined;
  try {
    const data = await readFile(abs);
    return data.length <= SNAPSHOT_HASH_LIMIT ? contentHash(data) : undefined;
  } catch {
    return undefined;
  }
}

/** A snapshot of a file; `content` (what is on disk, when the caller knows it) adds the hash for small files. */
export function snapshotOf(path: string, st: Stats, content?: string | Uint8Array): FileSnapshot {
  const snap: FileSnapshot = { path, mtimeMs: st.mtimeMs, size: st.size, ino: st.ino };
  if (content !== undefined && st.size <= SNAPSHOT_HASH_LIMIT) snap.sha256 = contentHash(content);
  return snap;
}

/** A snapshot of the editor's buffer of a file (EditorFiles): its content is all that identifies it. */
export function editorSnapshot(path: string, content: string | Uint8Array): FileSnapshot {
  return { path, mtimeMs: 0, size: typeof content === 'string' ? Buffer.byteLength(content) : content.length, ino: 0, sha256: contentHash(content), source: 'editor' };
}

/**
 * The file's text as the conversation's editor holds it (unsaved changes included), or null: no editor serves this
 * conversation's files, it does not have this one, or it failed to answer (the disk is used then).
 */
export async function editorText(ctx: ToolContext, abs: string): Promise<string | null> {
  if (!ctx.editor?.readText) return null;
  try {
    return await ctx.editor.readText(abs, ctx.signal);
  } catch {
    return null;
  }
}

/**
 * The snapshot token read_file shows the model (Spec I's edit snapshot): the whole file's identity, size, mtime and,
 * for small files, content, in 16 characters. edit_file compares the token it is given with the file as it is now.
 */
export function snapshotToken(snap: FileSnapshot): string {
  return createHash('sha256').update(`${snap.ino}\0${snap.size}\0${snap.mtimeMs}\0${snap.sha256 ?? ''}`).digest('base64url').slice(0, 16);
}

/** What a writing tool found at its target: nothing yet, or a regular file it may replace. */
export type WriteTarget = { exists: false } | { exists: true; stat: Stats };

/**
 * Refuses targets a write must not replace: symlinks (the link would be replaced, not the file it points to),
 * files with other hard links (they would silently keep the old content), folders and special files.
 */
export async function inspectWriteTarget(abs: string, shown: string): Promise<WriteTarget> {
  let st: Stats;
  try {
    st = await lstat(abs);
  } catch (err) {
    if (errno(err) === 'ENOENT') return { exists: false };
    throw fsError(err, shown, 'file');
  }
  if (st.isSymbolicLink()) {
    let target = '';
    try {
      target = await realpath(abs).catch(async () => readlink(abs));
    } catch {
      // a link we cannot read: still refuse
    }
    throw new ToolError(
      `${shown} is a symbolic link${target ? ` to ${target}` : ''}. Deskhand does not write through links; ` +
        `read and write the link's target path${target ? ` (${target})` : ''} instead.`,
    );
  }
  if (st.isDirectory()) throw new ToolError(`${shown} is a folder, not a file. Pass a file path (use ls to see what is inside).`);
  if (!st.isFile()) throw new ToolError(`${shown} is not a regular file (a device, socket or pipe); the file tools only write regular files.`);
  if (st.nlink > 1) {
    throw new ToolError(
      `${shown} has ${st.nlink} hard links. Replacing it would leave the other links with the old content, so Deskhand ` +
        'refuses to write it. Ask the person how to proceed (for example, edit it with a command they approve).',
    );
  }
  return { exists: true, stat: st };
}

/**
 * The read-before-write rule: an existing file may only be replaced after read_file read it in this conversation,
 * and only if it has not changed on disk since (inode, size, mtime and, for small files, the content hash must match).
 */
export async function assertFresh(state: ConversationState, abs: string, shown: string, st: Stats, inEditor: string | null = null): Promise<void> {
  const snap = state.getFileSnapshot(abs);
  if (!snap) {
    throw new ToolError(
      `${shown} already exists and has not been read in this conversation. Read it with read_file first, then retry ` +
        '(this protects changes you have not seen).',
      'stale_file',
      { path: abs, reason: 'not_read' },
    );
  }
  // The editor's buffer is the file (EditorFiles): its content against what was read, whatever the disk says now.
  if (snap.sha256 !== undefined && (inEditor !== null || snap.source === 'editor')) {
    const current = inEditor ?? (await readFile(abs).catch(() => null));
    if (current !== null && contentHash(current) === snap.sha256) return;
    throw new ToolError(
      `${shown} changed since you last read it (in the editor or on disk). Nothing was written. Read it again with read_file, then redo the change against the current content.`,
      'stale_file',
      { path: abs, reason: 'changed' },
    );
  }
  const contentChanged = async (): Promise<boolean> => snap.sha256 !== undefined && (await hashFileIfSmall(abs, st.size)) !== snap.sha256;
  if (snap.ino !== st.ino || snap.size !== st.size || snap.mtimeMs !== st.mtimeMs || (await contentChanged())) {
    const what =
      snap.ino !== st.ino
        ? 'it was replaced by another file'
        : snap.size !== st.size
          ? `its size went from ${snap.size} to ${st.size} bytes`
          : snap.mtimeMs !== st.mtimeMs
            ? `it was modified at ${new Date(st.mtimeMs).toISOString()}`
            : 'its content changed, though its size and modification time did not';
    throw new ToolError(
      `${shown} changed on disk since you last read it (${what}). Nothing was written. Read it again with read_file, ` +
        'then redo the change against the current content.',
      'stale_file',
      { path: abs, reason: 'changed' },
    );
  }
}
