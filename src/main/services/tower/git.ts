/**
 * Git for Tower: worktrees and branches Deskhand creates and removes, merges in the integration worktree. This is
 * Deskhand's own bookkeeping git and runs on the host, so it is pinned against everything an agent could plant:
 *
 * - the git dir and work tree are given explicitly (`--git-dir`, `--work-tree`) from Deskhand's records — the
 *   repository's common git dir and git's own admin entry for each worktree — never read from a worktree's `.git`
 *   file (a sandboxed worker can rewrite that pointer to a git dir of its own, hooks and config included);
 * - hooks are off (`core.hooksPath=/dev/null`), so are fsmonitor, pagers, editors, signing, ssh and credential
 *   helpers, and external diff;
 * - no system or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), no system or global
 *   attributes, no `GIT_*` variable of Deskhand's own environment, no credential-named variable;
 * - every filter (`filter.<name>.clean|smudge|process`), merge driver and diff driver the remaining config defines
 *   (the repository's own, includes followed) is overridden before the command runs: a `.gitattributes` in a
 *   worktree can name a driver, and no driver from config runs (filters do nothing, a custom merge driver fails
 *   the merge, which Tower then reports as a conflict).
 */
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { childEnv } from '../processes/child-env';
import { runHostProgram } from '../processes/launcher';

/** Commits Deskhand makes (a worker's work, merges) are Deskhand's. */
const IDENTITY = { GIT_AUTHOR_NAME: 'Deskhand Tower', GIT_AUTHOR_EMAIL: 'tower@deskhand.invalid', GIT_COMMITTER_NAME: 'Deskhand Tower', GIT_COMMITTER_EMAIL: 'tower@deskhand.invalid' };

/** Settings pinned on the command line for every host git call (command-line config wins over every file). */
export const PINNED_CONFIG: readonly (readonly [string, string])[] = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.attributesFile', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', 'true'],
  ['sequence.editor', 'true'],
  ['core.sshCommand', 'false'],
  ['core.gitProxy', ''],
  ['core.askPass', ''],
  ['credential.helper', ''],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['gpg.program', 'false'],
  ['diff.external', ''],
  ['protocol.allow', 'never'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
];

/** Where host git runs: both from Deskhand's records. */
export interface GitPlace {
  gitDir: string;
  workTree: string;
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Deskhand's environment for git: credential-named and every `GIT_*` variable dropped, no system/global config. */
export function gitEnv(overrides: readonly (readonly [string, string])[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(childEnv())) if (!/^GIT_/i.test(k)) env[k] = v;
  Object.assign(env, { GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_ATTR_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', GIT_OPTIONAL_LOCKS: '0', GIT_PAGER: 'cat', ...IDENTITY });
  // Exact keys through the environment: a driver name may hold characters `-c name=value` would split on.
  env.GIT_CONFIG_COUNT = String(overrides.length);
  overrides.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

const pinnedArgs = (): string[] => PINNED_CONFIG.flatMap(([k, v]) => ['-c', `${k}=${v}`]);
const placeArgs = (place: GitPlace | null): string[] => (place ? [`--git-dir=${place.gitDir}`, `--work-tree=${place.workTree}`] : []);

async function run(cwd: string, argv: readonly string[], env: Record<string, string>, timeoutMs: number): Promise<GitResult> {
  // Host git through the launcher's entry for Deskhand's own programs: exactly the pinned environment (`inherit: []`),
  // its own process group, stopped at the timeout.
  const r = await runHostProgram({ program: 'git', args: argv, cwd, env, inherit: [], timeoutMs, maxBuffer: 16 * 1024 * 1024 });
  const code = r.code ?? 1;
  return { code: r.error ? 1 : code, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Overrides for every filter, merge driver and diff driver the config git would read here defines: filters do
 * nothing, merge drivers fail (`false`), diff drivers are emptied.
 */
export async function driverOverrides(cwd: string, place: GitPlace | null): Promise<[string, string][]> {
  const listed = await run(cwd, [...pinnedArgs(), ...placeArgs(place), 'config', '--includes', '--list', '--name-only', '-z'], gitEnv(), 30_000);
  const out: [string, string][] = [];
  const seen = new Set<string>();
  for (const name of listed.stdout.split('\0')) {
    const m = /^(filter|merge|diff)\.(.+)\.([^.]+)$/s.exec(name.trim());
    if (!m) continue;
    const [, section, sub, key] = m as unknown as [string, string, string, string];
    const k = key.toLowerCase();
    const id = `${section.toLowerCase()}\0${sub}`;
    if (seen.has(id)) continue;
    if (section.toLowerCase() === 'filter' && ['clean', 'smudge', 'process', 'required'].includes(k)) {
      seen.add(id);
      out.push([`filter.${sub}.clean`, ''], [`filter.${sub}.smudge`, ''], [`filter.${sub}.process`, ''], [`filter.${sub}.required`, 'false']);
    } else if (section.toLowerCase() === 'merge' && (k === 'driver' || k === 'recursive')) {
      seen.add(id);
      out.push([`merge.${sub}.driver`, 'false'], [`merge.${sub}.recursive`, 'binary']);
    } else if (section.toLowerCase() === 'diff' && (k === 'command' || k === 'textconv')) {
      seen.add(id);
      out.push([`diff.${sub}.command`, ''], [`diff.${sub}.textconv`, ''], [`diff.${sub}.cachetextconv`, 'false']);
    }
  }
  return out;
}

/**
 * One host git command. With a place, git is told its git dir and work tree (nothing is discovered); without one
 * (only to find the person's repository at the start) git discovers from `cwd`, with the same pinning.
 */
export async function git(cwd: string, args: readonly string[], opts: { timeoutMs?: number; place?: GitPlace | null } = {}): Promise<GitResult> {
  const place = opts.place ?? null;
  const overrides = await driverOverrides(cwd, place);
  return run(place?.workTree ?? cwd, [...pinnedArgs(), ...placeArgs(place), ...args], gitEnv(overrides), opts.timeoutMs ?? 60_000);
}

export async function gitOk(cwd: string, args: readonly string[], opts: { place?: GitPlace | null } = {}): Promise<string> {
  const r = await git(cwd, args, opts);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed: ${(r.stderr || r.stdout).trim().slice(0, 800)}`);
  return r.stdout.trim();
}

/** Runs git in a place (the repository, a worktree). */
export const gitAt = (place: GitPlace, args: readonly string[]): Promise<GitResult> => git(place.workTree, args, { place });
export const gitAtOk = (place: GitPlace, args: readonly string[]): Promise<string> => gitOk(place.workTree, args, { place });

const realOr = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
};

/**
 * The common git dir of the person's repository at `repo` (its top level), as git reports it at the session's
 * start. Deskhand keeps it (with the top level) as the repository's place.
 */
export async function commonGitDir(repo: string): Promise<string> {
  const out = await gitOk(repo, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
  return realOr(isAbsolute(out) ? out : join(repo, out));
}

/**
 * The admin git dir of a worktree Deskhand added: the entry of `<common>/worktrees/` whose `gitdir` record (written
 * by git at `worktree add`, outside every worker's writable folders) names this worktree. The worktree's own `.git`
 * file is never read.
 */
export function worktreeGitDir(common: string, worktree: string): string {
  const want = join(realOr(worktree), '.git');
  const dir = join(common, 'worktrees');
  const names = existsSync(dir) ? readdirSync(dir) : [];
  for (const name of names) {
    try {
      const recorded = readFileSync(join(dir, name, 'gitdir'), 'utf8').trim();
      if (recorded === want || realOr(join(recorded, '..')) === realOr(worktree)) return join(dir, name);
    } catch {
      // Not a worktree entry.
    }
  }
  throw new Error(`git has no worktree record for ${worktree} in ${common}; it may have been removed (tower_teardown, then start again).`);
}

/** Files changed in a worktree and not committed yet (tracked changes and untracked files), repository-relative. */
export async function uncommitted(place: GitPlace): Promise<string[]> {
  const r = await gitAt(place, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames']);
  if (r.code !== 0) throw new Error(`git status failed: ${(r.stderr || r.stdout).trim().slice(0, 800)}`);
  // Each entry is "XY path" (not trimmed: X may be a space).
  return r.stdout.split('\0').filter(Boolean).map((l) => l.slice(3));
}

/**
 * Commits whatever the worktree holds uncommitted (a worker's edits); returns the tip. When `allowed` is given, the
 * scope check runs first: files it refuses are returned and nothing is added or committed.
 */
export async function commitAll(place: GitPlace, message: string, allowed?: (file: string) => boolean): Promise<{ tip: string; outside: string[] }> {
  const files = await uncommitted(place);
  if (files.length) {
    // A merge in progress (the integration branch brought in for a conflict) stages the other side's files too.
    const incoming = existsSync(join(place.gitDir, 'MERGE_HEAD'))
      ? new Set((await gitAtOk(place, ['diff', '--no-ext-diff', '--no-textconv', '--name-only', 'HEAD...MERGE_HEAD'])).split('\n').filter(Boolean))
      : new Set<string>();
    const outside = allowed ? files.filter((f) => !allowed(f) && !incoming.has(f)) : [];
    if (outside.length) return { tip: await gitAtOk(place, ['rev-parse', 'HEAD']), outside };
    await gitAtOk(place, ['add', '-A']);
    await gitAtOk(place, ['commit', '-q', '--no-verify', '-m', message]);
  }
  return { tip: await gitAtOk(place, ['rev-parse', 'HEAD']), outside: [] };
}
