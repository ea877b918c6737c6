/**
 * The OS sandbox for commands. A command classifier is not a boundary; this is. On Linux, bubblewrap: the file system
 * read-only except the workspace roots (and a private /tmp), secrets' files hidden, the network off unless the call
 * was approved for it, every capability dropped, and a pid namespace, so when the command's shell ends (or is
 * stopped) the kernel ends everything it started, daemons that called `setsid` included. On macOS, a sandbox-exec
 * profile with the same file and network rules. Elsewhere there is no sandbox, and the classification says so.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { gitConfigSettings } from '../../../shared/git-config';
import type { SandboxMode } from '../../../shared/sandbox';
import { runHostProgramSync } from '../processes/launcher';
import { CREDENTIAL_DIR_NAMES, HOME_CREDENTIALS, HOST_SOCKET_DIRS, SOCKET_ENV, codeRunnerMatch, isSecretFileName } from '../../../shared/sensitive-paths';

import type { SandboxKind, SandboxPlan } from './plan';

export type { SandboxKind, SandboxPlan } from './plan';

export interface SandboxSupport {
  kind: SandboxKind | null;
  available: boolean;
  /** One line for `policy explain` and the UI: what is used, or why there is none. */
  detail: string;
  binary: string | null;
}

/** What one command asks of the sandbox. */
export interface SandboxRequest {
  mode: SandboxMode;
  /** The call was approved for network access (`network: true`). */
  network: boolean;
  /** The call was approved to run outside the sandbox (`outside_sandbox: true`). */
  outside: boolean;
  roots: readonly string[];
  cwd: string;
  dataDir: string;
  home?: string;
  /**
   * Files a person approved this call to change (resolved): the sandbox leaves them writable and keeps what the
   * command creates there. Every other run-later file stays read-only, and a new one is removed after the command.
   */
  approvedWrites?: readonly string[];
}


/** Files and folders under the home folder that hold credentials: hidden (empty) inside the sandbox. The same list the path guard asks for. */
export const HOME_SECRETS = HOME_CREDENTIALS;

/** Walk limits for finding secret-bearing files (`.env` at any depth) in the workspace before each command. */
export const SECRET_WALK_LIMITS = { entries: 20_000, depth: 16 } as const;
/** Folders the walk does not enter: installed dependencies and VCS metadata (documented in SECURITY.md). */
const WALK_SKIP = new Set(['node_modules', '.git', '.hg', '.svn']);

let support: SandboxSupport | undefined;

/**
 * Which sandbox this machine has, probed once per process (bubblewrap can be installed but unusable, e.g. without
 * user namespaces). `DESKHAND_SANDBOX=none` treats the sandbox as unavailable (said so everywhere it matters).
 */
export function sandboxSupport(): SandboxSupport {
  if (support) return support;
  support = probe();
  return support;
}

/** For tests: forget the probe result (e.g. after changing DESKHAND_SANDBOX). */
export function resetSandboxSupport(): void {
  support = undefined;
}

function probe(): SandboxSupport {
  if (process.env.DESKHAND_SANDBOX === 'none') {
    return { kind: null, available: false, detail: 'the OS sandbox is turned off on this machine (DESKHAND_SANDBOX=none)', binary: null };
  }
  if (process.platform === 'linux') {
    const bwrap = bwrapBinary();
    if (!bwrap) return { kind: null, available: false, detail: 'no OS sandbox: bubblewrap (bwrap) is not installed (Debian/Ubuntu package "bubblewrap")', binary: null };
    // Deskhand's own probe of the binary it found: a fixed program with fixed arguments, run on the host.
    const run = runHostProgramSync({ program: bwrap, args: ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-net', '--cap-drop', 'ALL', '--die-with-parent', '--', '/bin/true'], timeoutMs: 10_000 });
    if (run.status === 0) return { kind: 'bubblewrap', available: true, detail: `bubblewrap (${bwrap})`, binary: bwrap };
    const stderr = run.stderr.trim().split('\n')[0] ?? '';
    return { kind: null, available: false, detail: `no OS sandbox: bubblewrap is installed but cannot run here (${stderr || run.error || 'it failed'})`, binary: null };
  }
  if (process.platform === 'darwin') {
    return existsSync('/usr/bin/sandbox-exec')
      ? { kind: 'sandbox-exec', available: true, detail: 'sandbox-exec (macOS Seatbelt)', binary: '/usr/bin/sandbox-exec' }
      : { kind: null, available: false, detail: 'no OS sandbox: /usr/bin/sandbox-exec is missing', binary: null };
  }
  return { kind: null, available: false, detail: `no OS sandbox on ${process.platform} yet`, binary: null };
}

/** The bubblewrap binary the probe (and every sandboxed command) uses, or null when none is installed. */
export function bwrapBinary(): string | null {
  return findBinary('bwrap', ['/usr/bin/bwrap']);
}

function findBinary(name: string, preferred: string[]): string | null {
  for (const p of preferred) if (existsSync(p)) return p;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

const within = (child: string, parent: string): boolean => {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * The real path of an existing path, else null. Most paths asked about (the credential list) do not exist: an lstat
 * that does not throw for them comes first, since a thrown error per missing path cost milliseconds per command.
 */
function real(path: string): string | null {
  try {
    if (!lstatSync(path, { throwIfNoEntry: false })) return null;
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

function kindOf(path: string): 'dir' | 'file' | null {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    return st ? (st.isDirectory() ? 'dir' : 'file') : null;
  } catch {
    return null;
  }
}

export interface HiddenPath {
  path: string;
  kind: 'dir' | 'file';
  /** Why: credentials, Deskhand's data, a secret-bearing file of the workspace, a host socket. */
  why: 'credentials' | 'deskhand-data' | 'workspace-secret' | 'host-socket';
}

/**
 * What the sandbox hides: credential locations under home (the shared list the path guard uses), Deskhand's data
 * folder, secret-bearing files (`.env*`, keys…) at any depth of the workspace roots and cwd, host Unix sockets and
 * per-user runtime folders (D-Bus, keyring, ssh-agent, docker…).
 */
export function hiddenPaths(req: Pick<SandboxRequest, 'roots' | 'cwd' | 'dataDir' | 'home'>, env: NodeJS.ProcessEnv = process.env, walked?: WorkspaceWalk): HiddenPath[] {
  const home = req.home ?? homedir();
  const out = new Map<string, HiddenPath>();
  const add = (p: string | null, why: HiddenPath['why']) => {
    if (!p || out.has(p)) return;
    const k = kindOf(p);
    if (k) out.set(p, { path: p, kind: k, why });
  };
  for (const rel of HOME_CREDENTIALS) add(real(join(home, rel)), 'credentials');
  add(real(req.dataDir), 'deskhand-data');
  for (const p of HOST_SOCKET_DIRS) add(real(p), 'host-socket');
  for (const p of socketsFromEnv(env)) add(real(p), 'host-socket');
  for (const p of socketsUnder('/run', 4)) add(p, 'host-socket');
  for (const p of (walked ?? walkWorkspace([...new Set([...req.roots, req.cwd])])).secrets) add(p, 'workspace-secret');
  // A hidden folder covers what lies inside it.
  const dirs = [...out.values()].filter((h) => h.kind === 'dir').map((h) => h.path);
  return [...out.values()].filter((h) => !dirs.some((d) => d !== h.path && within(h.path, d)));
}

/** Socket paths named by the environment (`unix:path=…` addresses, `SSH_AUTH_SOCK`, X authority…), outside /tmp. */
function socketsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const name of SOCKET_ENV) {
    const value = env[name];
    if (!value) continue;
    for (const m of value.matchAll(/(?:^|[,;])(?:unix:)?(?:path=)?(\/[^,;]+)/g)) out.push(m[1]!);
  }
  return out.filter((p) => !within(p, '/tmp'));
}

/** Unix sockets under `dir` (bounded depth): the system bus, docker, systemd and the like. */
function socketsUnder(dir: string, depth: number): string[] {
  const out: string[] = [];
  const walk = (d: string, left: number) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(d, name);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isSocket()) out.push(p);
      else if (st.isDirectory() && left > 0) walk(p, left - 1);
    }
  };
  walk(dir, depth);
  return out;
}

/** What one walk of the workspace finds: secrets to hide, and the `.git` entries and run-later files to guard. */
export interface WorkspaceWalk {
  /** Secret-bearing files (resolved) and credential folders. */
  secrets: string[];
  /** `.git` entries: git dirs and `.git` pointer files (not entered). */
  gits: string[];
  /** Files (and links) whose change makes something run later or steers the agent (CODE_RUNNER_RULES). */
  runLater: string[];
}

/** Names that make git run programs or fetch code when they change (the path guard asks for them too). */
const GIT_RUNNER_NAMES = new Set(['.gitattributes', '.gitmodules']);

/** True when a path (absolute) names a run-later file: CODE_RUNNER_RULES, `.gitattributes`, `.gitmodules`. */
export function isRunLaterPath(p: string): boolean {
  const parts = p.split(sep);
  return GIT_RUNNER_NAMES.has(parts[parts.length - 1]!) || codeRunnerMatch(parts) !== null;
}

/** Secret-bearing files, credential folders, `.git` entries and run-later files at any depth of `dirs`, within the walk limits. */
export function walkWorkspace(dirs: readonly string[]): WorkspaceWalk {
  const out: WorkspaceWalk = { secrets: [], gits: [], runLater: [] };
  let budget = SECRET_WALK_LIMITS.entries;
  const seen = new Set<string>();
  const walk = (d: string, depth: number) => {
    if (budget <= 0 || depth > SECRET_WALK_LIMITS.depth || seen.has(d)) return;
    seen.add(d);
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (--budget <= 0) return;
      const p = join(d, e.name);
      if (e.name === '.git') {
        if (e.isDirectory() || e.isFile() || e.isSymbolicLink()) out.gits.push(p);
      } else if (e.isDirectory()) {
        if (CREDENTIAL_DIR_NAMES.includes(e.name)) out.secrets.push(p);
        else if (!WALK_SKIP.has(e.name)) walk(p, depth + 1);
      } else {
        if (isSecretFileName(e.name)) {
          const r = real(p);
          if (r) out.secrets.push(r);
        }
        if ((e.isFile() || e.isSymbolicLink()) && isRunLaterPath(p)) out.runLater.push(p);
      }
    }
  };
  for (const d of dirs) {
    const r = real(d);
    if (r) walk(r, 0);
  }
  return out;
}

/**
 * bubblewrap arguments for a request (without the command). Mount order matters: the secrets and sockets outside
 * the workspace are hidden first, then the cwd (read-only) and the roots are mounted, so neither a hidden folder nor
 * a read-only cwd above a root can make the workspace hidden or read-only; then the secrets inside the roots are
 * hidden again on top.
 */
export function bwrapArgs(req: SandboxRequest, env: NodeJS.ProcessEnv = process.env): string[] {
  return bwrapSetup(req, env).args;
}

/** The bubblewrap arguments and what the walk found (the guarded paths a command's end is compared against). */
function bwrapSetup(req: SandboxRequest, env: NodeJS.ProcessEnv = process.env): { args: string[]; walked: WorkspaceWalk } {
  const args = ['--die-with-parent', '--unshare-pid', '--cap-drop', 'ALL'];
  if (!req.network) args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  // Outer roots first, so a root inside another is mounted on top of it, never under it.
  const roots = [...new Set(req.roots.map((r) => real(r)).filter((r): r is string => r !== null))].sort((a, b) => a.length - b.length);
  const walked = walkWorkspace([...new Set([...req.roots, req.cwd])]);
  const hidden = hiddenPaths(req, env, walked);
  const hide = (h: HiddenPath) => {
    if (h.kind === 'dir') args.push('--tmpfs', h.path);
    else args.push('--ro-bind', '/dev/null', h.path);
  };
  const insideRoot = (p: string) => roots.some((r) => p !== r && within(p, r));
  for (const h of hidden) if (!insideRoot(h.path)) hide(h);
  const cwd = real(req.cwd) ?? req.cwd;
  // A cwd outside the roots stays visible (read-only) even when it lies under the private /tmp, unless it is hidden.
  const cwdHidden = hidden.some((h) => within(cwd, h.path) && !roots.some((r) => within(cwd, r)));
  if (!roots.some((r) => within(cwd, r)) && !cwdHidden) {
    args.push('--ro-bind', cwd, cwd);
    // The cwd mount brought back what it holds: hide it again (a cwd of ~ must not show ~/.ssh).
    for (const h of hidden) if (h.path !== cwd && within(h.path, cwd) && !insideRoot(h.path)) hide(h);
  }
  for (const root of roots) args.push(req.mode === 'workspace-write' ? '--bind' : '--ro-bind', root, root);
  for (const h of hidden) if (insideRoot(h.path)) hide(h);
  // Files that steer the agent or run programs later stay as they are: every git dir in the roots (and the git dir a
  // `.git` pointer names, with its commondir), the pointer files themselves, and the run-later files that exist
  // (AGENTS.md, Makefile, CI configs…). A command changing them would make host git (Deskhand's Tower bookkeeping,
  // the person's own `git status`) or a later conversation run what it planted.
  if (req.mode === 'workspace-write') for (const p of guardedPaths(roots, walked, req.approvedWrites)) args.push('--ro-bind', p, p);
  for (const name of SOCKET_ENV) args.push('--unsetenv', name);
  args.push('--setenv', 'TMPDIR', '/tmp', '--chdir', cwd);
  return { args, walked };
}

/** At most this many guarded paths are mounted read-only per command (each is one mount). */
export const MAX_GUARDED_MOUNTS = 512;

/**
 * What the sandbox mounts read-only inside writable roots: `.git` entries (and the git dir and commondir a pointer
 * names, when they lie in a root) and existing run-later files that are regular files, minus the ones a person
 * approved this call to change. Links are not mounted (a write through one lands where it points, which is judged
 * there).
 */
export function guardedPaths(roots: readonly string[], walked: WorkspaceWalk, approvedWrites: readonly string[] = []): string[] {
  const inRoots = (p: string) => roots.some((r) => within(p, r));
  const approved = new Set(approvedWrites);
  const out = new Set<string>();
  const add = (p: string | null) => {
    if (p && inRoots(p) && !approved.has(p) && !out.has(p)) out.add(p);
  };
  for (const g of walked.gits) {
    const st = lstatSync(g, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink()) continue;
    add(g);
    if (st.isFile()) {
      const gitDir = pointerTarget(g);
      add(gitDir);
      if (gitDir) add(commonDir(gitDir));
    }
  }
  for (const p of walked.runLater) {
    if (lstatSync(p, { throwIfNoEntry: false })?.isFile()) add(p);
  }
  return [...out].slice(0, MAX_GUARDED_MOUNTS);
}

/** The git dir a `.git` pointer file names (`gitdir: …`, relative to the file's folder), when it exists. */
function pointerTarget(pointer: string): string | null {
  try {
    const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(pointer, 'utf8').slice(0, 4096));
    return m ? real(resolve(dirname(pointer), m[1]!.trim())) : null;
  } catch {
    return null;
  }
}

/** The common git dir a linked worktree's git dir names in `commondir` (relative to it), when it exists. */
function commonDir(gitDir: string): string | null {
  try {
    const text = readFileSync(join(gitDir, 'commondir'), 'utf8').slice(0, 4096).trim();
    return text ? real(resolve(gitDir, text)) : null;
  } catch {
    return null;
  }
}

/** Keys a fresh `git init` or `git clone` writes: a new git dir holding any other setting is not kept. */
const PLAIN_GIT_KEYS = /^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks)|remote\.[^\n]*\.(url|fetch)|branch\.[^\n]*\.(remote|merge)|init\.defaultbranch|user\.(name|email)|extensions\.objectformat)$/i;

/** Why a git dir a command created must not be kept (settings or hooks that run programs), or null for a plain one. */
export function plantedGitDir(dir: string): string | null {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return null;
  if (!st.isDirectory()) return 'a .git pointer file (it points git at another git dir)';
  try {
    const hooks = readdirSync(join(dir, 'hooks')).filter((n) => !n.endsWith('.sample'));
    if (hooks.length) return `git hooks (${hooks.slice(0, 3).join(', ')})`;
  } catch {
    // no hooks folder
  }
  for (const name of ['commondir', 'config.worktree', join('info', 'attributes')]) {
    if (lstatSync(join(dir, name), { throwIfNoEntry: false })) return `${name} in the git dir`;
  }
  let text = '';
  try {
    text = readFileSync(join(dir, 'config'), 'utf8');
  } catch {
    return null;
  }
  for (const { name, line } of gitConfigSettings(text)) {
    if (!name || !PLAIN_GIT_KEYS.test(name)) return `git config setting ${name ?? line}`;
  }
  return null;
}

/**
 * After a command in the sandbox: what it created that steers the agent or runs later — a run-later file that was not
 * there before (not one a person approved), a `.git` pointer, a git dir with hooks or settings a fresh one does not
 * have — is moved out of the workspace into `quarantine` (Deskhand's data folder; nothing is lost), since nobody was
 * asked. Returns one line for the model, or null when nothing was.
 */
export function settleGuarded(roots: readonly string[], before: WorkspaceWalk, approvedWrites: readonly string[] = [], quarantine: string | null = null): string | null {
  const realRoots = roots.map((r) => real(r)).filter((r): r is string => r !== null);
  const after = walkWorkspace(realRoots);
  const had = new Set([...before.gits, ...before.runLater]);
  const approved = new Set(approvedWrites);
  const moved: string[] = [];
  const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
  const take = (p: string, why: string) => {
    try {
      const root = realRoots.find((r) => within(p, r));
      if (quarantine && root) {
        const dest = join(quarantine, stamp, relative(dirname(root), p));
        mkdirSync(dirname(dest), { recursive: true });
        try {
          renameSync(p, dest);
        } catch {
          // Another file system: copy (links as links), then remove.
          cpSync(p, dest, { recursive: true, verbatimSymlinks: true });
          rmSync(p, { recursive: true, force: true });
        }
        moved.push(`${p} (${why}; kept in ${dest})`);
      } else {
        rmSync(p, { recursive: true, force: true });
        moved.push(`${p} (${why}; removed)`);
      }
    } catch (err) {
      moved.push(`${p} (${why}; could not be moved away: ${err instanceof Error ? err.message : String(err)})`);
    }
  };
  for (const p of after.runLater) {
    if (had.has(p) || approved.has(p)) continue;
    take(p, codeRunnerMatch(p.split(sep)) ?? 'a file that can make git run programs');
  }
  for (const g of after.gits) {
    if (had.has(g)) continue;
    const why = plantedGitDir(g);
    if (why) take(g, why);
  }
  if (!moved.length) return null;
  return (
    `Deskhand removed what this command created without the person being asked (files that steer the agent or make ` +
    `programs run later): ${moved.join('; ')}. To create one, use write_file (it asks the person) or run the command ` +
    `with outside_sandbox: true (it asks too).`
  );
}

const sbString = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** The macOS sandbox-exec (Seatbelt) profile with the same rules as the bubblewrap arguments. */
export function seatbeltProfile(req: SandboxRequest): string {
  const roots = [...new Set(req.roots.map((r) => real(r) ?? r))];
  const writable = [
    ...(req.mode === 'workspace-write' ? roots.map((r) => `(subpath ${sbString(r)})`) : []),
    '(subpath "/private/tmp")',
    '(subpath "/private/var/folders")',
    '(literal "/dev/null")',
    '(literal "/dev/zero")',
    '(literal "/dev/dtracehelper")',
    '(regex #"^/dev/tty")',
    '(regex #"^/dev/fd/")',
  ];
  const walked = walkWorkspace([...new Set([...req.roots, req.cwd])]);
  const hidden = hiddenPaths(req, process.env, walked).map((h) => (h.kind === 'dir' ? `(subpath ${sbString(h.path)})` : `(literal ${sbString(h.path)})`));
  const lines = [
    '(version 1)',
    '(allow default)',
    '; The file system is read-only except the workspace roots and temporary folders.',
    '(deny file-write*)',
    `(allow file-write*\n  ${writable.join('\n  ')})`,
  ];
  if (hidden.length) lines.push("; Secrets' files and Deskhand's own data are hidden.", `(deny file-read* file-write*\n  ${hidden.join('\n  ')})`);
  const guarded = req.mode === 'workspace-write' ? guardedPaths(roots, walked, req.approvedWrites) : [];
  if (guarded.length) {
    lines.push('; Git dirs and files that steer the agent or run programs later are read-only.', `(deny file-write*\n  ${guarded.map((p) => `(subpath ${sbString(p)})`).join('\n  ')})`);
  }
  if (!req.network) {
    lines.push('; No network: IP sockets are refused.', '(deny network-outbound (remote ip))', '(deny network-inbound (local ip))', '(deny network-bind (local ip))');
  }
  // Host Unix sockets (launchd, the keychain agent, ssh-agent, docker…) are unreachable; with network on, only the
  // resolver's socket is allowed so names still resolve.
  lines.push('; Host Unix sockets are unreachable.', '(deny network-outbound (remote unix-socket))');
  if (req.network) lines.push('(allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))');
  return `${lines.join('\n')}\n`;
}

/** Decides how one command runs: in the sandbox, or (mode off, approved outside, none available) without it. */
export function planSandbox(req: SandboxRequest): SandboxPlan {
  const direct = (summary: string): SandboxPlan => unsandboxedPlan(req.mode, summary);
  if (req.mode === 'off') return direct('runs without the OS sandbox (sandbox mode "off" for this conversation)');
  if (req.outside) return direct('runs outside the OS sandbox (approved for this call)');
  const s = sandboxSupport();
  if (!s.available || !s.kind || !s.binary) return direct(`runs without a sandbox: ${s.detail}`);
  const what = `${req.mode === 'workspace-write' ? 'workspace writable' : 'workspace read-only'}, rest of the file system read-only, secrets hidden, network ${req.network ? 'on (approved)' : 'off'}`;
  const binary = s.binary;
  // What the command's start found guarded; its end is compared against it (settle).
  let before: WorkspaceWalk | null = null;
  const settle = (): string | null => (req.mode === 'workspace-write' && before ? settleGuarded(req.roots, before, req.approvedWrites, join(req.dataDir, 'quarantine')) : null);
  if (s.kind === 'bubblewrap') {
    const setup = (): string[] => {
      const made = bwrapSetup(req);
      before = made.walked;
      return made.args;
    };
    return {
      kind: 'bubblewrap',
      mode: req.mode,
      network: req.network,
      summary: `runs in the bubblewrap sandbox (${what})`,
      argv: (shell, command) => ({ file: binary, args: [...setup(), '--', shell, '-c', command] }),
      wrap: (file, args) => ({ file: binary, args: [...setup(), '--', file, ...args] }),
      settle,
    };
  }
  return {
    kind: 'sandbox-exec',
    mode: req.mode,
    network: req.network,
    summary: `runs in the macOS sandbox (${what})`,
    argv: (shell, command) => {
      before = walkWorkspace(req.roots);
      return { file: binary, args: ['-p', seatbeltProfile(req), shell, '-c', command] };
    },
    wrap: (file, args) => {
      before = walkWorkspace(req.roots);
      return { file: binary, args: ['-p', seatbeltProfile(req), file, ...args] };
    },
    settle,
  };
}

/** A plan that runs the program as it is, without the OS sandbox; `summary` says why (shown wherever it matters). */
export function unsandboxedPlan(mode: SandboxMode, summary: string): SandboxPlan {
  return {
    kind: null,
    mode,
    network: true,
    summary,
    argv: (shell, command) => ({ file: shell, args: ['-c', command] }),
    wrap: (file, args) => ({ file, args: [...args] }),
  };
}

const WRITE_BLOCKED = /Read-only file system|EROFS/;
const NETWORK_BLOCKED =
  /Network is unreachable|ENETUNREACH|Could not resolve host|Temporary failure in name resolution|EAI_AGAIN|Name or service not known|No address associated with hostname|nodename nor servname|getaddrinfo|Connection refused|ECONNREFUSED|Failed to connect to/i;
const MAYBE_BLOCKED = /Permission denied|EACCES|Operation not permitted|EPERM/;

/**
 * When a sandboxed command failed in a way the sandbox causes, a line that says so and how to get past it (which
 * asks a person). Null when the failure does not look like the sandbox's doing.
 */
export function sandboxBlockHint(output: string, exitCode: number | null, plan: Pick<SandboxPlan, 'kind' | 'mode' | 'network'>): string | null {
  if (!plan.kind || exitCode === 0) return null;
  const causes: string[] = [];
  if (WRITE_BLOCKED.test(output)) {
    causes.push(
      plan.mode === 'read-only'
        ? "writes are blocked (this conversation's sandbox mode is read-only)"
        : 'writes outside the workspace are blocked (the rest of the file system is read-only), and so are writes to git metadata (.git) and to files that steer the agent or run programs later (AGENTS.md, CLAUDE.md, Makefile, CI configs…)',
    );
  }
  // Inside the sandbox without network only an empty loopback exists, so even a refused local connection is the sandbox.
  if (!plan.network && NETWORK_BLOCKED.test(output)) causes.push('the network is off (no connections, not even to servers on this machine)');
  if (causes.length === 0 && MAYBE_BLOCKED.test(output)) causes.push('possibly: permission denied inside the sandbox (capabilities are dropped, secrets are hidden)');
  if (causes.length === 0) return null;
  const how = [
    !plan.network && causes.some((c) => c.includes('network')) ? 'network: true to allow the network' : null,
    'outside_sandbox: true to run it without the sandbox',
  ]
    .filter(Boolean)
    .join(', or ');
  return `blocked by the sandbox: ${causes.join('; ')}. If the task needs it, call again with ${how}; that asks the person first.`;
}
