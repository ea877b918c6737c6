/**
 * Path containment: the one place that says where a path really lands and what that means for approval. Used by the
 * approval engine for every file tool (through `ToolDefinition.paths`) and by the command classifier for redirection
 * targets and path arguments, so the file tools and the shell cannot disagree.
 *
 * A path is resolved component by component the way the kernel would, following every symbolic link (dangling ones
 * too: a write through a dangling link creates the file where it points), so a link inside the workspace that points
 * outside is judged where it points. Writes through a link, into a file with other hard links, or to sensitive paths
 * always ask. The tools then open and verify (`openVerified`), so a path swapped between the check and the use is
 * refused rather than followed.
 */
import { constants, lstatSync, readlinkSync, realpathSync, statSync, type Stats } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { maxRisk, type RiskTier } from '../../../shared/tools';
import { ToolError } from '../../../shared/errors';
import {
  CREDENTIAL_DIR_NAMES, HOME_CREDENTIALS, HOME_STARTUP, HOME_VCS, STARTUP_NAMES, SYSTEM_STARTUP, codeRunnerMatch, isSecretFileName,
  type SensitiveKind,
} from '../../../shared/sensitive-paths';

export type PathAccess = 'read' | 'write';

/**
 * A file that makes something run later, known only at run time (a script a trusted project MCP server runs): a
 * change to it always asks, like the code-runner files of shared/sensitive-paths.ts. `path` is resolved.
 */
export interface RunLaterPath {
  path: string;
  what: string;
}

/** Where a call runs: the conversation's cwd, its workspace roots, Deskhand's data dir (and, for tests, the home). */
export interface GuardContext {
  cwd: string;
  workspaceRoots: readonly string[];
  dataDir: string;
  home?: string;
  /** Run-later files known at run time (writes to them always ask). */
  runLater?: readonly RunLaterPath[];
}

export type { SensitiveKind };

export interface SensitiveMatch {
  kind: SensitiveKind;
  /** Plain words: "SSH keys and config (~/.ssh)". */
  what: string;
}

export const SENSITIVE_LABEL: Record<SensitiveKind, string> = {
  credentials: 'SSH and cloud credentials',
  vcs: 'version-control hooks and config (they can make git run programs)',
  startup: 'shell and session start-up files (they run programs later)',
  'code-runner': 'files that make tools run code later (changing one always asks)',
  'deskhand-data': "Deskhand's own config and data",
};

/** What the guard found for one path of one call. Serializable: the runtime stores it with the call. */
export interface PathCheck {
  /** The path as the tool or command gave it. */
  input: string;
  access: PathAccess;
  /** Absolute, lexically normalised (what a file tool opens). */
  path: string;
  /** Where it really lands: every symbolic link followed. */
  resolved: string;
  exists: boolean;
  /** Links followed on the way, in order. */
  links: { link: string; target: string }[];
  /** The last component itself is a symbolic link. */
  finalLink: boolean;
  /** For a write: the link it goes through (the last component, or a link inside a workspace root), if any. */
  throughLink?: { link: string; target: string };
  /** Link count of an existing regular file (1 for a normal file, 0 when there is none). */
  hardLinks: number;
  /** The workspace root the resolved path lies in, or null when it is outside the workspace. */
  root: string | null;
  sensitive: SensitiveMatch | null;
  /** For a folder: the sensitive locations it holds (a home folder holds ~/.ssh), when any. */
  holdsSensitive?: string;
  /** The lowest tier a call touching this path can have. */
  risk: RiskTier;
  /** Set when the call must ask under every policy. */
  alwaysAsk: string | null;
  /**
   * Set when the write asks only because it lies outside the workspace roots: the folder "always allow" may add as a
   * root (the nearest existing folder above the path), or null when no folder may be offered.
   */
  rootOffer?: string | null;
  /** A read from outside the workspace: the output is untrusted (envelope + taint). */
  untrusted: boolean;
  /** One line for `deskhand policy explain` and the approval. */
  summary: string;
  /** Set when the path itself is invalid (the tool will refuse it). */
  error?: string;
  /** Checked as a shell passes it (classifier), not as a file tool opens it. */
  raw?: boolean;
}

export interface PathSpec {
  read?: readonly (string | undefined | null)[];
  write?: readonly (string | undefined | null)[];
}

const MAX_LINK_HOPS = 40;

// ---------------------------------------------------------------------------------------------------------------
// Lexical resolution (what the file tools open)

/** Expands a leading `~` or `~/…`. `~user` forms are left alone (and then resolved literally). */
export function expandHome(input: string, home: string = homedir()): string {
  if (input === '~') return home;
  if (input.startsWith('~/') || (sep === '\\' && input.startsWith('~\\'))) return resolve(home, input.slice(2));
  return input;
}

/** Resolves a path a tool was given against cwd: `~` expanded, normalised, always absolute. Throws for unusable paths. */
export function lexicalPath(input: string, cwd: string, home?: string): string {
  const trimmed = input.trim();
  if (trimmed === '') throw new ToolError('The path is empty. Pass a file or folder path (relative to the working directory or absolute).');
  if (trimmed.includes('\0')) throw new ToolError('The path contains a NUL byte, which no file system accepts.');
  const expanded = expandHome(trimmed, home);
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/** True when `child` is `parent` or lies inside it (both absolute). */
function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** An absolute POSIX path with nothing to normalise (no `//`, `.` or `..` segment, no trailing slash). */
function isClean(p: string): boolean {
  return (
    p.charCodeAt(0) === 47 &&
    (p.length === 1 || p.charCodeAt(p.length - 1) !== 47) &&
    !p.includes('//') &&
    !p.includes('/./') &&
    !p.includes('/../') &&
    !p.endsWith('/.') &&
    !p.endsWith('/..')
  );
}

export function isInside(child: string, parent: string): boolean {
  // Clean absolute paths compare as strings (the same answer as path.relative, without resolving both: this runs
  // for every sensitive location on every path check).
  if (sep === '/' && isClean(child) && isClean(parent)) {
    return child === parent || parent === '/' || (child.startsWith(parent) && child.charCodeAt(parent.length) === 47);
  }
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

// ---------------------------------------------------------------------------------------------------------------
// Real resolution (where it lands)

export interface Resolution {
  resolved: string;
  exists: boolean;
  links: { link: string; target: string }[];
  finalLink: boolean;
  /** lstat of the resolved path when it exists. */
  stat: Stats | null;
}

/**
 * Resolves `raw` (absolute, not necessarily normalised) component by component: `..` after a link goes to the parent
 * of the link's target, as in the kernel. Components that do not exist are appended literally.
 */
export function resolveReal(raw: string): Resolution {
  const links: Resolution['links'] = [];
  let pending = splitPath(raw);
  let current = rootOf(raw);
  let exists = true;
  let finalLink = false;
  let hops = 0;
  // The lstat of the last component walked (what `current` is once the walk ends on an existing non-link).
  let last: Stats | null = null;
  let lastPath = '';
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = parentOf(current);
      continue;
    }
    const next = joinOne(current, part);
    if (!exists) {
      current = next;
      continue;
    }
    let st: Stats;
    try {
      st = lstatSync(next);
    } catch {
      exists = false;
      current = next;
      continue;
    }
    last = st;
    lastPath = next;
    if (st.isSymbolicLink()) {
      if (++hops > MAX_LINK_HOPS) throw new ToolError(`${raw} goes through more than ${MAX_LINK_HOPS} symbolic links (a link loop?).`);
      let target: string;
      try {
        target = readlinkSync(next);
      } catch {
        exists = false;
        current = next;
        continue;
      }
      links.push({ link: next, target });
      if (pending.every((p) => p === '' || p === '.')) finalLink = true;
      pending = [...splitPath(target), ...pending];
      if (isAbsolute(target)) current = rootOf(target);
      continue;
    }
    current = next;
  }
  let st: Stats | null = null;
  if (exists) {
    try {
      // The walk's last lstat is this path's unless the walk ended on `..` (or on the root): then ask again.
      st = last && current === lastPath ? last : lstatSync(current);
    } catch {
      exists = false;
    }
  }
  return { resolved: current, exists, links, finalLink, stat: st };
}

function splitPath(p: string): string[] {
  return p.split(sep === '\\' ? /[\\/]/ : '/');
}
function rootOf(p: string): string {
  return isAbsolute(p) ? resolve(p).slice(0, resolve(p).indexOf(sep) + 1) || sep : sep;
}
function parentOf(p: string): string {
  const i = p.lastIndexOf(sep);
  if (i <= 0) return rootOf(p);
  const parent = p.slice(0, i);
  return parent.endsWith(':') ? `${parent}${sep}` : parent;
}
function joinOne(dir: string, part: string): string {
  return dir.endsWith(sep) ? `${dir}${part}` : `${dir}${sep}${part}`;
}

/** realpath when it exists, else the path itself (roots, data dir and home are compared resolved). */
function canonical(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return resolveReal(resolve(p)).resolved;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Sensitive paths

/** Why `p` (absolute) is sensitive, or null. `roots` exempt workspace roots that live inside the data dir. */
export function sensitiveMatch(p: string, ctx: { dataDir: string; roots: readonly string[]; home: string }): SensitiveMatch | null {
  const { home } = ctx;
  const data = ctx.dataDir;
  if (data && isInside(p, data) && !ctx.roots.some((r) => r !== data && isInside(r, data) && isInside(p, r))) {
    return { kind: 'deskhand-data', what: `Deskhand's own config and data (${data})` };
  }
  const name = basename(p);
  const parts = p.split(sep);
  // VCS: hooks and config inside any .git folder (submodules keep theirs under .git/modules/<name>/).
  const git = parts.lastIndexOf('.git');
  if (git >= 0) {
    const below = parts.slice(git + 1);
    if (below.includes('hooks')) return { kind: 'vcs', what: 'git hooks (git runs them)' };
    if (below.at(-1) === 'config' || below.at(-1) === 'commondir' || below.at(-1) === 'config.worktree') return { kind: 'vcs', what: 'git config (it can name programs git runs)' };
    if (below.length === 2 && below[0] === 'info' && below[1] === 'attributes') return { kind: 'vcs', what: 'git attributes (they can select filter programs)' };
  }
  const hg = parts.lastIndexOf('.hg');
  if (hg >= 0 && parts[hg + 1] === 'hgrc') return { kind: 'vcs', what: 'Mercurial config (it can name hooks)' };
  if (parts.includes('.husky') && !name.startsWith('.')) return { kind: 'vcs', what: 'husky git hooks (git runs them)' };
  // Every location of the HOME_* lists lies inside home: a path outside it needs none of those ~100 comparisons.
  const inHome = isInside(p, home);
  if (inHome) for (const rel of HOME_VCS) if (isInside(p, joinOne(home, rel))) return { kind: 'vcs', what: `global VCS config (~/${rel})` };

  if (inHome) for (const rel of HOME_CREDENTIALS) if (isInside(p, joinOne(home, rel))) return { kind: 'credentials', what: `credentials (~/${rel})` };
  const dir = parts.find((x) => CREDENTIAL_DIR_NAMES.includes(x));
  if (dir) return { kind: 'credentials', what: `a credentials folder (${dir})` };
  if (STARTUP_NAMES.includes(name)) return { kind: 'startup', what: `a shell start-up file (${name})` };
  if (isSecretFileName(name)) return { kind: 'credentials', what: `a secret-bearing file (${name})` };

  if (inHome) for (const rel of HOME_STARTUP) if (isInside(p, joinOne(home, rel))) return { kind: 'startup', what: `start-up configuration (~/${rel})` };
  for (const abs of SYSTEM_STARTUP) if (isInside(p, abs)) return { kind: 'startup', what: `system start-up configuration (${abs})` };

  // A folder git would take as a git dir by itself (HEAD, objects/, refs/): its config and hooks are git's too.
  if (name === 'config' || name === 'config.worktree' || parts.includes('hooks')) {
    const hooks = parts.lastIndexOf('hooks');
    const dir = name === 'config' || name === 'config.worktree' ? parts.slice(0, -1).join(sep) : parts.slice(0, hooks).join(sep);
    if (dir && looksLikeGitDir(dir)) return { kind: 'vcs', what: name.startsWith('config') ? `the config of a git dir (${dir}; it can name programs git runs)` : `hooks of a git dir (${dir}; git runs them)` };
  }
  if (name === '.gitattributes' || name === '.gitmodules') return { kind: 'code-runner', what: `${name} (it can select filter programs git runs, or fetch code)` };
  const runner = codeRunnerMatch(parts);
  if (runner) return { kind: 'code-runner', what: runner };
  return null;
}

/**
 * When `dir` (absolute, resolved) is a folder that holds sensitive locations (a home folder holds ~/.ssh, a parent
 * of the data dir holds Deskhand's data): what it holds, or null. Reaching the folder (copying, moving, archiving,
 * searching or listing it) reaches them.
 */
export function sensitiveInside(dir: string, ctx: { dataDir: string; home: string }): string | null {
  const found: string[] = [];
  const locations = [
    ...HOME_CREDENTIALS.map((rel) => ({ abs: joinOne(ctx.home, rel), label: `~/${rel}` })),
    ...(ctx.dataDir ? [{ abs: ctx.dataDir, label: `Deskhand's data (${ctx.dataDir})` }] : []),
  ];
  for (const l of locations) {
    // Both sides are normalised absolute paths, so "inside" implies a textual prefix: most locations are ruled out
    // by that alone, without path.relative (this runs for every path check, ~90 locations each).
    if (l.abs === dir || !l.abs.startsWith(dir) || !isInside(l.abs, dir)) continue;
    try {
      if (!lstatSync(l.abs, { throwIfNoEntry: false })) continue;
    } catch {
      continue;
    }
    found.push(l.label);
    if (found.length >= 4) break;
  }
  return found.length ? found.join(', ') : null;
}

/** A folder git would take as a git dir by itself: HEAD, objects/ and refs/. */
export function looksLikeGitDir(dir: string): boolean {
  try {
    return statSync(joinOne(dir, 'HEAD')).isFile() && statSync(joinOne(dir, 'objects')).isDirectory() && statSync(joinOne(dir, 'refs')).isDirectory();
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The check

/** Resolved roots, data dir and home, computed once per decision. */
export class PathGuard {
  readonly cwd: string;
  readonly roots: string[];
  readonly dataDir: string;
  readonly home: string;
  /** The same, unresolved (a lexical path is compared against both). */
  private readonly lexicalRoots: string[];
  private readonly lexicalData: string;
  private readonly lexicalHome: string;
  private readonly runLater: ReadonlyMap<string, string>;

  constructor(ctx: GuardContext) {
    this.runLater = new Map((ctx.runLater ?? []).map((r) => [r.path, r.what]));
    this.cwd = ctx.cwd;
    this.lexicalRoots = ctx.workspaceRoots.map((r) => resolve(r));
    this.roots = this.lexicalRoots.map(canonical);
    this.lexicalData = ctx.dataDir ? resolve(ctx.dataDir) : '';
    this.dataDir = this.lexicalData ? canonical(this.lexicalData) : '';
    this.lexicalHome = resolve(ctx.home ?? homedir());
    this.home = canonical(this.lexicalHome);
  }

  /**
   * Checks a path a file tool was given (lexically normalised first, as the tool opens it). `raw: true` resolves it
   * the way a shell passes it to the kernel instead (`link/..` is the link target's parent).
   */
  check(input: string, access: PathAccess, opts: { raw?: boolean; cwd?: string } = {}): PathCheck {
    const cwd = opts.cwd ?? this.cwd;
    let path: string;
    try {
      path = opts.raw ? rawAbsolute(input, cwd, this.lexicalHome) : lexicalPath(input, cwd, this.lexicalHome);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return {
        input, access, path: input, resolved: input, exists: false, links: [], finalLink: false, hardLinks: 0, root: null,
        sensitive: null, risk: 'read-only', alwaysAsk: null, untrusted: false, summary: `${access} ${input}: ${message} (the call will fail)`, error: message,
      };
    }
    let r: Resolution;
    try {
      r = resolveReal(path);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return {
        input, access, path, resolved: path, exists: false, links: [], finalLink: false, hardLinks: 0, root: null, sensitive: null,
        risk: 'high-risk', alwaysAsk: message, untrusted: access === 'read', summary: `${access} ${path}: ${message}`, error: message,
      };
    }
    const resolved = r.resolved;
    const root = this.roots.find((x) => isInside(resolved, x)) ?? null;
    const runLater = this.runLater.size ? (this.runLater.get(resolved) ?? this.runLater.get(path)) : undefined;
    const sensitive =
      sensitiveMatch(resolved, { dataDir: this.dataDir, roots: this.roots, home: this.home }) ??
      sensitiveMatch(opts.raw ? resolve(path) : path, { dataDir: this.lexicalData, roots: this.lexicalRoots, home: this.lexicalHome }) ??
      (runLater ? { kind: 'code-runner' as const, what: runLater } : null);
    const hardLinks = r.stat?.isFile() ? r.stat.nlink : 0;
    const gitInternal = resolved.split(sep).includes('.git');

    let risk: RiskTier;
    let alwaysAsk: string | null = null;
    const notes: string[] = [];
    if (access === 'read') risk = root ? 'read-only' : 'low-risk';
    else risk = root && !gitInternal ? 'low-risk' : 'high-risk';
    // A link the write passes through: the last component, or any link inside a workspace root (system links above
    // the roots, like macOS /tmp → /private/tmp, are not the workspace's business).
    const throughLink =
      access === 'write'
        ? r.finalLink
          ? r.links[r.links.length - 1]
          : r.links.find((l) => this.lexicalRoots.some((x) => l.link !== x && isInside(l.link, x)) || this.roots.some((x) => l.link !== x && isInside(l.link, x)))
        : undefined;
    // A folder that holds credentials or Deskhand's data: reaching it (copy, move, archive, search, list) reaches them.
    const holds = !sensitive && r.stat?.isDirectory() ? sensitiveInside(resolved, { dataDir: this.dataDir, home: this.home }) : null;
    const asksForKind = sensitive && (sensitive.kind !== 'code-runner' || access === 'write');
    if (asksForKind) alwaysAsk = `${resolved} is ${sensitive.what}`;
    else if (holds) alwaysAsk = `${resolved} holds sensitive locations (${holds}); a call that reaches the folder reaches them`;
    else if (throughLink) alwaysAsk = `the write goes through the symbolic link ${throughLink.link} (→ ${throughLink.target}) and lands in ${resolved}`;
    else if (access === 'write' && hardLinks > 1) alwaysAsk = `${resolved} has ${hardLinks} hard links; a write changes every one of them`;
    // The boundary the sandbox gives commands: a file tool changing anything outside the workspace roots asks a person.
    else if (access === 'write' && !root) alwaysAsk = `${resolved} is outside the workspace roots; changes there are approved by a person`;
    const rootOffer = alwaysAsk && access === 'write' && !root && !asksForKind && !holds && !throughLink && hardLinks <= 1 ? this.rootOffer(resolved) : undefined;
    if (alwaysAsk) risk = maxRisk(risk, access === 'read' ? 'low-risk' : 'high-risk');
    if (gitInternal && access === 'write' && !sensitive) notes.push('inside git metadata');

    const via = r.links.length ? ` via ${r.links.map((l) => `${l.link} → ${l.target}`).join(', ')}` : '';
    const where = root ? `inside the workspace (${root})` : 'outside the workspace';
    const lands = resolved === path ? path : `${path} → ${resolved}`;
    const parts = [`${access} ${lands}${via}: ${where}`];
    if (!r.exists) parts.push('does not exist yet');
    if (sensitive) parts.push(`sensitive: ${SENSITIVE_LABEL[sensitive.kind]}`);
    if (holds) parts.push(`holds sensitive locations: ${holds}`);
    if (throughLink) parts.push(`writes through the symbolic link ${throughLink.link}`);
    if (access === 'write' && hardLinks > 1) parts.push(`${hardLinks} hard links`);
    parts.push(...notes);
    if (access === 'read' && !root) parts.push('its content is untrusted');
    return {
      ...(opts.raw ? { raw: true } : {}),
      input,
      access,
      path,
      resolved,
      exists: r.exists,
      links: r.links,
      finalLink: r.finalLink,
      ...(throughLink ? { throughLink } : {}),
      hardLinks,
      root,
      sensitive,
      ...(holds ? { holdsSensitive: holds } : {}),
      risk,
      alwaysAsk,
      ...(rootOffer !== undefined ? { rootOffer } : {}),
      untrusted: access === 'read' && !root,
      summary: parts.join('; '),
    };
  }

  /**
   * The folder "always allow" may add as a workspace root for a write to `resolved` outside the roots: the nearest
   * existing folder above it. Never `/`, the home folder or a folder holding it, a sensitive folder or one holding
   * sensitive locations, or Deskhand's data (or a folder inside or holding it).
   */
  rootOffer(resolved: string): string | null {
    let dir = dirname(resolved);
    while (dir !== dirname(dir) && !isFolder(dir)) dir = dirname(dir);
    if (dir === dirname(dir)) return null;
    const homes = [this.home, this.lexicalHome];
    if (homes.some((h) => isInside(h, dir))) return null;
    if (this.dataDir && [this.dataDir, this.lexicalData].some((d) => isInside(d, dir) || isInside(dir, d))) return null;
    if (sensitiveMatch(dir, { dataDir: this.dataDir, roots: this.roots, home: this.home })) return null;
    if (sensitiveInside(dir, { dataDir: this.dataDir, home: this.home })) return null;
    return dir;
  }

  /** Every path of a spec, reads first. Empty and missing entries are skipped. */
  checkAll(spec: PathSpec, opts: { raw?: boolean } = {}): PathCheck[] {
    const out: PathCheck[] = [];
    for (const p of spec.read ?? []) if (typeof p === 'string' && p !== '') out.push(this.check(p, 'read', opts));
    for (const p of spec.write ?? []) if (typeof p === 'string' && p !== '') out.push(this.check(p, 'write', opts));
    return out;
  }
}

/** A shell path: `~/` expanded, relative to cwd, not normalised (the kernel walks `..` after links itself). */
function rawAbsolute(input: string, cwd: string, home: string): string {
  if (input === '') throw new ToolError('empty path');
  if (input.includes('\0')) throw new ToolError('The path contains a NUL byte.');
  const expanded = input === '~' ? home : input.startsWith('~/') ? `${home}/${input.slice(2)}` : input;
  return isAbsolute(expanded) ? expanded : `${cwd}${sep}${expanded}`;
}

export function checkPaths(spec: PathSpec, ctx: GuardContext): PathCheck[] {
  return new PathGuard(ctx).checkAll(spec);
}

/**
 * Checks again, just before a call runs, the paths it was decided on. Returns why the call must not run (a path now
 * lands somewhere else, or became a link, sensitive, hard-linked or left the workspace), or null.
 */
export function recheckPaths(decided: readonly PathCheck[], ctx: GuardContext): string | null {
  const files = decided.filter((c) => !c.raw && !c.error);
  if (files.length === 0) return null;
  const guard = new PathGuard(ctx);
  for (const before of files) {
    const now = guard.check(before.path, before.access);
    const changed =
      now.resolved !== before.resolved
        ? `it now leads to ${now.resolved}, not ${before.resolved}`
        : // A path outside that is now inside a root (the person added one with "always allow") is no escape.
          now.root !== before.root && before.root !== null
          ? 'the workspace it lies in changed'
          : !!now.sensitive !== !!before.sensitive
            ? 'it became a sensitive path'
            : before.access === 'write' && now.finalLink && !before.finalLink
              ? 'it became a symbolic link'
              : before.access === 'write' && now.hardLinks > 1 && before.hardLinks <= 1
                ? 'it gained hard links'
                : null;
    if (changed) {
      return `${before.path} changed between the approval check and the call (${changed}). Nothing was done; check the path and call again if it is still what you want.`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Use: open, then verify the opened file is the one that was checked

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

export type FileHandle = Awaited<ReturnType<typeof open>>;

/**
 * A regular file the path guard checked, opened for a tool that reads it whole or hands it on (read_pdf, the media
 * tools): openVerified, with failures in words that name the path as the model gave it (`shown`).
 */
export async function openCheckedFile(abs: string, expected: string | null | undefined, shown: string): Promise<{ fh: FileHandle; stat: Stats }> {
  let opened: Awaited<ReturnType<typeof openVerified>>;
  try {
    opened = await openVerified(abs, expected);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    throw new ToolError(`${shown} could not be opened: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}.`);
  }
  if (!opened.stat.isFile()) {
    await opened.fh.close().catch(() => undefined);
    throw new ToolError(`${shown} is not a file.`);
  }
  return { fh: opened.fh, stat: opened.stat };
}

/**
 * Opens `abs` for reading so the check cannot be raced: resolve, refuse when it no longer lands where the approval
 * engine checked (`expected`), open the resolved path without following a final link, then confirm that the path
 * still resolves to the same place and that the opened file (dev, ino) is the file there now. A path swapped at any
 * point in between fails one of these.
 */
export async function openVerified(abs: string, expected?: string | null): Promise<{ fh: FileHandle; real: string; stat: Stats }> {
  const real = await realpath(abs);
  if (expected && real !== expected) {
    throw new ToolError(`${abs} now leads to ${real}, not to ${expected} as when the call was checked; something changed it. Nothing was read.`, 'conflict');
  }
  const fh = await open(real, constants.O_RDONLY | O_NOFOLLOW);
  try {
    const st = await fh.stat();
    const again = await realpath(abs);
    const now = await stat(again);
    if (again !== real || now.dev !== st.dev || now.ino !== st.ino) {
      throw new ToolError(`${abs} changed while it was being opened (it now leads to ${again}). Nothing was read; try again.`, 'conflict');
    }
    return { fh, real, stat: st };
  } catch (err) {
    await fh.close().catch(() => undefined);
    throw err;
  }
}

/** Resolved folder of a write target, for verifying a write before and after (see atomic-write.ts). */
export function resolvedDir(dir: string): string {
  return canonical(dir);
}
