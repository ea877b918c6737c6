/** Git for Tower: worktrees and branches Deskhand creates and removes, merges in the integration worktree. */
import { execFile } from 'node:child_process';

/** Commits Deskhand makes (a worker's work, merges) are Deskhand's. */
const IDENTITY = { GIT_AUTHOR_NAME: 'Deskhand Tower', GIT_AUTHOR_EMAIL: 'tower@deskhand.invalid', GIT_COMMITTER_NAME: 'Deskhand Tower', GIT_COMMITTER_EMAIL: 'tower@deskhand.invalid' };

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function git(cwd: string, args: readonly string[], opts: { timeoutMs?: number } = {}): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile('git', [...args], { cwd, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_EDITOR: 'true', ...IDENTITY } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

export async function gitOk(cwd: string, args: readonly string[]): Promise<string> {
  const r = await git(cwd, args);
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed: ${(r.stderr || r.stdout).trim().slice(0, 800)}`);
  return r.stdout.trim();
}

/** Runs a shell command (the mission's tests) in a folder: exit code and the output's tail. */
export function runTests(cwd: string, command: string, timeoutMs = 10 * 60_000): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', command], { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, output: `${String(stdout)}${String(stderr)}`.slice(-4000) });
    });
  });
}

/** Commits whatever the worktree holds uncommitted (a worker's edits); returns the tip. */
export async function commitAll(worktree: string, message: string): Promise<string> {
  if ((await gitOk(worktree, ['status', '--porcelain'])) !== '') {
    await gitOk(worktree, ['add', '-A']);
    await gitOk(worktree, ['commit', '-q', '-m', message]);
  }
  return gitOk(worktree, ['rev-parse', 'HEAD']);
}
