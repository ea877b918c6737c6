/**
 * Where compositions are published: a zip or a folder on this machine, or a git remote configured by the person
 * (`deskhand compositions remote add NAME REPOSITORY --branch BRANCH`, kept in `<dataDir>/publish-targets.json`). A git
 * publish clones the branch shallowly into a temp folder, writes the page under its folder, commits and pushes; git
 * runs with no prompts (a remote that needs credentials the person has not set up fails with git's message).
 */
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import type { zipSync as ZipSync } from 'fflate';
import { z } from 'zod';
import { DeskhandError } from '../../../shared/errors';
import type { GitTargetView, PublishFile, Publisher } from './index';
import { runHostProgram } from '../processes/launcher';

export const gitTargetSchema = z.strictObject({
  repository: z.string().min(1).max(2000),
  branch: z.string().regex(/^(?!-)[A-Za-z0-9._/-]{1,200}$/, 'not a branch name'),
  /** The folder inside the repository the page goes to; default `compositions/<id>`. */
  folder: z.string().regex(/^(?!\/)(?!.*\.\.)[A-Za-z0-9._/ -]{0,200}$/).optional(),
  /** Where the branch is served (a GitHub Pages style site), e.g. `https://owner.github.io/repo/`; derived for GitHub repositories. */
  url: z.url({ protocol: /^https?$/ }).max(2000).optional(),
});
export type GitTarget = z.infer<typeof gitTargetSchema>;
const fileSchema = z.strictObject({ git: z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), gitTargetSchema).default({}) });

/** The configured git targets plus the zip and git operations publish_composition uses. */
export class PublishTargets implements Publisher {
  private readonly path: string;
  constructor(dataDir: string) {
    this.path = join(dataDir, 'publish-targets.json');
  }
  read(): z.infer<typeof fileSchema> {
    if (!existsSync(this.path)) return { git: {} };
    const parsed = fileSchema.safeParse(JSON.parse(readFileSync(this.path, 'utf8')));
    if (!parsed.success) throw new DeskhandError('usage', `${this.path} does not parse: ${parsed.error.issues[0]?.message ?? 'invalid'}. Fix or remove it.`);
    return parsed.data;
  }
  git(name: string): GitTarget | null {
    return this.read().git[name] ?? null;
  }
  gitTarget(name: string): GitTargetView | null {
    return this.git(name);
  }
  gitTargetNames(): string[] {
    return Object.keys(this.read().git);
  }
  toGit(target: GitTargetView, folder: string, files: PublishFile[], message: string, signal?: AbortSignal): Promise<string> {
    return publishToGit(target, folder, files, message, signal);
  }
  pageUrl(target: GitTargetView, folder: string, file: string): string | null {
    return pagesUrl(target, folder, file);
  }
  zip(files: PublishFile[]): Uint8Array {
    return zipFiles(files);
  }
  setGit(name: string, target: GitTarget | null): void {
    const all = this.read();
    if (target) all.git[name] = gitTargetSchema.parse(target);
    else delete all.git[name];
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(all, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}

/**
 * The stable address of a published page on a pages branch (GitHub Pages style): the target's `url`, or for a GitHub
 * repository `https://OWNER.github.io/REPO/` (`https://OWNER.github.io/` for the OWNER.github.io repository), then the
 * folder and the file (an `index.html` is addressed by its folder). Null when the host serving the branch is unknown.
 */
export function pagesUrl(target: GitTargetView, folder: string, file: string): string | null {
  let base = target.url ?? null;
  if (!base) {
    const m = /^(?:https:\/\/(?:[^@/]+@)?github\.com\/|ssh:\/\/git@github\.com\/|git@github\.com:)([A-Za-z0-9-]+)\/([A-Za-z0-9._-]+?)(?:\.git)?\/?$/.exec(target.repository);
    if (!m) return null;
    const owner = m[1]!.toLowerCase();
    base = m[2]!.toLowerCase() === `${owner}.github.io` ? `https://${owner}.github.io/` : `https://${owner}.github.io/${m[2]}/`;
  }
  const path = [...folder.split('/').filter(Boolean), ...(file === 'index.html' ? [] : [file])].map(encodeURIComponent).join('/');
  return `${base.replace(/\/+$/, '')}/${path}${file === 'index.html' ? '/' : ''}`;
}

/**
 * fflate, loaded by the first zip (its start builds Huffman tables: a run's start, which assembles the compositions
 * family, does not load it).
 */
let zipSync: typeof ZipSync | null = null;

/** A zip of the page's files (stored with fixed times, so the same version always zips to the same bytes). */
export function zipFiles(files: PublishFile[]): Uint8Array {
  const entries: Record<string, [Uint8Array, { mtime: Date; level: 6 }]> = {};
  for (const f of files) entries[f.name] = [f.bytes, { mtime: new Date('2000-01-01T00:00:00Z'), level: 6 }];
  zipSync ??= (createRequire(import.meta.url)('fflate') as { zipSync: typeof ZipSync }).zipSync;
  return zipSync(entries);
}

/**
 * git on the host, for a remote the person configured: a fixed program in a temp folder Deskhand made, with no
 * prompts, no hooks or fsmonitor (whatever the templates say), the person's SSH agent (pushing needs it) and
 * otherwise Deskhand's environment without credential-named variables.
 */
async function git(args: string[], cwd: string, signal?: AbortSignal): Promise<string> {
  const env: Record<string, string> = {
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
    GIT_AUTHOR_NAME: 'Deskhand',
    GIT_AUTHOR_EMAIL: 'deskhand@localhost',
    GIT_COMMITTER_NAME: 'Deskhand',
    GIT_COMMITTER_EMAIL: 'deskhand@localhost',
    GIT_CONFIG_NOSYSTEM: '1',
  };
  if (process.env.SSH_AUTH_SOCK) env.SSH_AUTH_SOCK = process.env.SSH_AUTH_SOCK;
  const r = await runHostProgram({ program: 'git', args: ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', ...args], cwd, signal, timeoutMs: 120_000, maxBuffer: 4 * 1024 * 1024, env });
  if (r.code === 0) return r.stdout;
  const why = r.error?.message ?? (r.stoppedBy === 'abort' ? 'stopped' : r.stoppedBy === 'timeout' ? 'it did not finish within 120 s' : `exit code ${r.code ?? r.signal}`);
  throw new DeskhandError('usage', `git ${args[0]} failed: ${(r.stderr || why).trim().slice(0, 800)}`);
}

/** Commits the files under `folder` on the target's branch and pushes; returns the new commit's hash. */
export async function publishToGit(target: GitTargetView, folder: string, files: PublishFile[], message: string, signal?: AbortSignal): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'deskhand-publish-'));
  try {
    await git(['init', '-q', '-b', target.branch], work, signal);
    await git(['remote', 'add', 'origin', target.repository], work, signal);
    const remoteHas = (await git(['ls-remote', '--heads', 'origin', target.branch], work, signal)).trim() !== '';
    if (remoteHas) {
      await git(['fetch', '-q', '--depth=1', 'origin', target.branch], work, signal);
      await git(['checkout', '-q', '-B', target.branch, 'FETCH_HEAD'], work, signal);
    }
    const dir = join(work, folder);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const f of files) writeFileSync(join(dir, f.name), f.bytes);
    await git(['add', '-A', '--', folder], work, signal);
    await git(['-c', 'commit.gpgsign=false', 'commit', '-q', '--allow-empty', '-m', message], work, signal);
    await git(['push', '-q', 'origin', `HEAD:refs/heads/${target.branch}`], work, signal);
    return (await git(['rev-parse', 'HEAD'], work, signal)).trim();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
