/**
 * The one guarded reader (shared/content-reader.ts): every file Deskhand reads because of workspace content — skills,
 * a project's `.deskhand/mcp.json` and the scripts its servers run, plan files, instruction files — goes through the
 * path guard here, never through a bare `readFileSync`:
 *
 * - the path is resolved the way the kernel resolves it (every link, chained, relative or absolute, `/proc/self/root`
 *   included) and, with `within`, must land inside that folder; with `anchor`, no link may stand between the anchor
 *   and `within` (a linked skill folder is refused like a linked SKILL.md);
 * - sensitive paths (credentials, history and start-up files, VCS config, Deskhand's data outside the given roots) are
 *   refused, and so is a file with other hard links when it must stay `within` (it may be another file's content);
 * - the file is opened without following a final link and verified (device and inode) to be the one checked;
 * - a file outside every root is reported `outside`: its content is untrusted.
 *
 * Hosts build one (`new GuardedContentReader({dataDir})`) and inject it where services need it (the MCP manager);
 * tools get it from their family factory.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { DeskhandError } from '../../../shared/errors';
import type { ContentFile, ContentReadOptions, ContentReader } from '../../../shared/content-reader';
import { PathGuard, SENSITIVE_LABEL, isInside, resolveReal, type PathCheck } from '../decision/path-guard';

export type { ContentFile, ContentReadOptions, ContentReader };

const DEFAULT_MAX_BYTES = 1024 * 1024;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

const refuse = (message: string): never => {
  throw new DeskhandError('denied', message);
};

export class GuardedContentReader implements ContentReader {
  constructor(private readonly opts: { dataDir: string; home?: string }) {}

  /** The guard's verdict on one path, refused when it must not be read (shared by `read` and `list`). */
  private judge(path: string, o: ContentReadOptions): { check: PathCheck; abs: string } {
    const abs = resolve(o.within ?? o.roots[0] ?? '/', path);
    const guard = new PathGuard({ cwd: o.within ?? o.roots[0] ?? '/', workspaceRoots: o.roots, dataDir: this.opts.dataDir, ...(this.opts.home ? { home: this.opts.home } : {}) });
    const check = guard.check(abs, 'read');
    if (check.error) refuse(`${abs} was not read: ${check.error}`);
    if (check.sensitive && check.sensitive.kind !== 'code-runner') {
      refuse(`${abs} was not read: it leads to ${check.resolved}, ${check.sensitive.what} (${SENSITIVE_LABEL[check.sensitive.kind]}). Deskhand never reads those because of what a workspace file says.`);
    }
    if (o.within) {
      const within = resolve(o.within);
      let wReal: string;
      try {
        wReal = resolveReal(within).resolved;
      } catch (err) {
        return refuse(`${abs} was not read: ${(err as Error).message}`);
      }
      if (o.anchor) {
        const anchor = resolve(o.anchor);
        const expected = join(resolveReal(anchor).resolved, relative(anchor, within));
        if (!isInside(within, anchor) || wReal !== expected) {
          refuse(`${abs} was not read: the folder ${within} is (or lies behind) a symbolic link to ${wReal}, outside ${anchor}. Folders of workspace content must be real folders.`);
        }
      }
      if (!isInside(check.resolved, wReal)) {
        const via = check.links.length ? ` through the symbolic link${check.links.length > 1 ? 's' : ''} ${check.links.map((l) => `${l.link} → ${l.target}`).join(', ')}` : '';
        refuse(`${abs} was not read: it leads${via} to ${check.resolved}, outside ${within}. A link may not leave the folder it is in.`);
      }
      if (check.hardLinks > 1) refuse(`${abs} was not read: it has ${check.hardLinks} hard links, so it may be another file's content.`);
    }
    return { check, abs };
  }

  read(path: string, o: ContentReadOptions): ContentFile {
    const { check, abs } = this.judge(path, o);
    const max = o.maxBytes ?? DEFAULT_MAX_BYTES;
    let fd: number;
    try {
      fd = openSync(check.resolved, constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new DeskhandError(code === 'ENOENT' ? 'not_found' : 'denied', `${abs} could not be opened (${code === 'ENOENT' ? 'no such file' : code === 'ELOOP' ? 'it became a symbolic link' : (err as Error).message}).`);
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) refuse(`${abs} is not a regular file; it was not read.`);
      if (st.size > max) refuse(`${abs} is ${st.size} bytes; at most ${max} are read.`);
      // The file opened is the file checked: the path still resolves there, to the same device and inode.
      const again = this.judge(path, o).check.resolved;
      const now = statSync(again);
      if (again !== check.resolved || now.dev !== st.dev || now.ino !== st.ino) refuse(`${abs} changed while it was being opened (it now leads to ${again}); it was not read.`);
      const buf = Buffer.alloc(st.size);
      let off = 0;
      while (off < st.size) {
        const n = readSync(fd, buf, off, st.size - off, off);
        if (n === 0) break;
        off += n;
      }
      const bytes = buf.subarray(0, off);
      return {
        path: abs,
        resolved: check.resolved,
        text: bytes.toString('utf8'),
        sha256: createHash('sha256').update(bytes).digest('hex'),
        size: off,
        outside: check.root === null,
      };
    } finally {
      closeSync(fd);
    }
  }

  list(dir: string, o: ContentReadOptions): string[] {
    const { check, abs } = this.judge(dir, o);
    if (!check.exists) return [];
    try {
      return readdirSync(check.resolved).sort();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return [];
      throw new DeskhandError('denied', `${abs} could not be listed (${(err as Error).message}).`);
    }
  }
}
