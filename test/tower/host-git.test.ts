/**
 * Security round three (issue 29), mechanism 2: Deskhand's own host git for Tower never runs what an agent planted.
 * Real git, real worktrees: hooks in the git dir and in a planted one, the worktree's `.git` pointer rewritten to a
 * planted git dir, core.fsmonitor in the repository's and the worktree's config, filter, merge and diff drivers a
 * worktree's `.gitattributes` names, an include pulling config from the worktree. Every planted program would create
 * a marker file; none may exist. And inside the sandbox, the worktree's `.git` pointer cannot be rewritten.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll, gitAt, gitAtOk } from '../../src/main/services/tower/git';
import { repoPlace, worktreePlace } from '../../src/main/services/tower/tower-service';
import { planSandbox, sandboxSupport } from '../../src/main/services/sandbox/sandbox';
import { CommandProcess } from '../../src/main/services/processes/command-process';
import { tempDir } from '../support/tool-context';

const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function setup() {
  const base = tempDir('deskhand-hostgit-');
  const repo = join(base, 'repo');
  const marks = join(base, 'marks');
  mkdirSync(join(repo, 'src'), { recursive: true });
  mkdirSync(marks);
  sh(repo, 'init', '-q', '-b', 'main');
  sh(repo, 'config', 'user.email', 'p@example.com');
  sh(repo, 'config', 'user.name', 'P');
  writeFileSync(join(repo, 'src', 'a.txt'), 'a\n');
  sh(repo, 'add', '-A');
  sh(repo, 'commit', '-qm', 'start');
  const wt = join(base, 'data', 'tower', 'tw_x', 'a');
  sh(repo, 'worktree', 'add', '-q', '-b', 'tower/tw_x/a', wt, 'HEAD');
  const integration = join(base, 'data', 'tower', 'tw_x', 'integration');
  sh(repo, 'worktree', 'add', '-q', '-b', 'tower/tw_x/integration', integration, 'HEAD');
  return { base, repo, marks, wt, integration, session: { repo } };
}

const hook = (dir: string, name: string, marker: string) => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `#!/bin/sh\ntouch ${marker}\n`);
  chmodSync(join(dir, name), 0o755);
};

const HOOKS = ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-checkout', 'post-merge', 'pre-merge-commit', 'post-index-change', 'reference-transaction', 'pre-auto-gc'];

/** What Tower does with a worker's worktree: status, add, commit, rev-parse; then a merge in the integration worktree. */
async function towerWork(s: ReturnType<typeof setup>) {
  const place = await worktreePlace(s.session, s.wt);
  const done = await commitAll(place, 'work', () => true);
  expect(done.outside).toEqual([]);
  const integration = await worktreePlace(s.session, s.integration);
  const merge = await gitAt(integration, ['merge', '--no-ff', '-m', 'merge', done.tip]);
  await gitAt(await repoPlace(s.repo), ['diff', '--name-only', `HEAD...${done.tip}`]);
  return { done, merge };
}

const marksLeft = (marks: string) => execFileSync('ls', ['-A', marks], { encoding: 'utf8' }).trim();

describe('Tower host git runs nothing an agent planted', () => {
  it('hooks in the repository git dir, the worktree admin dir and core.hooksPath: none runs (table of hooks)', async () => {
    const s = setup();
    const common = join(s.repo, '.git');
    const admin = (await worktreePlace(s.session, s.wt)).gitDir;
    for (const h of HOOKS) {
      hook(join(common, 'hooks'), h, join(s.marks, `common-${h}`));
      hook(join(admin, 'hooks'), h, join(s.marks, `admin-${h}`));
      hook(join(s.wt, 'planted-hooks'), h, join(s.marks, `path-${h}`));
    }
    sh(s.repo, 'config', 'core.hooksPath', join(s.wt, 'planted-hooks'));
    writeFileSync(join(s.wt, 'src', 'b.txt'), 'b\n');
    const { merge } = await towerWork(s);
    expect(merge.code, merge.stderr).toBe(0);
    expect(marksLeft(s.marks)).toBe('');
  });

  it('a rewritten .git pointer to a planted git dir is never followed: its hooks and fsmonitor do not run, the real branch gets the commit', async () => {
    const s = setup();
    // The worker plants a git dir of its own (a copy of the real admin dir with hooks and config) and repoints .git.
    const planted = join(s.wt, 'src', 'evil-gitdir');
    const admin = (await worktreePlace(s.session, s.wt)).gitDir;
    // A whole git dir of its own (a copy of the repository's, on the worker's branch) with hooks and config.
    execFileSync('cp', ['-r', join(s.repo, '.git'), planted]);
    execFileSync('rm', ['-rf', join(planted, 'worktrees')]);
    writeFileSync(join(planted, 'HEAD'), 'ref: refs/heads/tower/tw_x/a\n');
    for (const h of HOOKS) hook(join(planted, 'hooks'), h, join(s.marks, `planted-${h}`));
    writeFileSync(join(planted, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch ${join(s.marks, 'planted-fsmonitor')}\n`);
    writeFileSync(join(s.wt, '.git'), `gitdir: ${planted}\n`);
    // Without pinning, git follows the pointer (the attack works against plain git).
    execFileSync('git', ['status'], { cwd: s.wt, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
    expect(marksLeft(s.marks)).toMatch(/planted-/);
    execFileSync('sh', ['-c', `rm -f ${s.marks}/*`]);
    writeFileSync(join(s.wt, 'src', 'b.txt'), 'b\n');
    const place = await worktreePlace(s.session, s.wt);
    expect(place.gitDir).toBe(admin);
    const done = await commitAll(place, 'work', () => true);
    expect(marksLeft(s.marks)).toBe('');
    // The commit landed on Deskhand's branch in the real repository.
    expect(sh(s.repo, 'rev-parse', 'tower/tw_x/a')).toBe(done.tip);
  });

  it.each([
    ['core.fsmonitor in the repository config', (s: ReturnType<typeof setup>) => sh(s.repo, 'config', 'core.fsmonitor', `touch ${join(s.marks, 'fsmonitor')}`)],
    ['core.fsmonitor in the worktree config', (s: ReturnType<typeof setup>) => {
      sh(s.repo, 'config', 'extensions.worktreeConfig', 'true');
      sh(s.wt, 'config', '--worktree', 'core.fsmonitor', `touch ${join(s.marks, 'fsmonitor-wt')}`);
    }],
    ['a clean/smudge filter a worktree .gitattributes names', (s: ReturnType<typeof setup>) => {
      writeFileSync(join(s.wt, '.gitattributes'), '* filter=evil\n');
      sh(s.repo, 'config', 'filter.evil.clean', `sh -c 'touch ${join(s.marks, 'clean')}; cat'`);
      sh(s.repo, 'config', 'filter.evil.smudge', `sh -c 'touch ${join(s.marks, 'smudge')}; cat'`);
      sh(s.repo, 'config', 'filter.evil.required', 'true');
    }],
    ['a long-running filter process', (s: ReturnType<typeof setup>) => {
      writeFileSync(join(s.wt, 'src', '.gitattributes'), '*.txt filter=Lfs-Like\n');
      sh(s.repo, 'config', 'filter.Lfs-Like.process', `touch ${join(s.marks, 'process')}`);
    }],
    ['a merge driver', (s: ReturnType<typeof setup>) => {
      writeFileSync(join(s.wt, '.gitattributes'), '* merge=evil\n');
      mkdirSync(join(s.repo, '.git', 'info'), { recursive: true });
      writeFileSync(join(s.repo, '.git', 'info', 'attributes'), '* merge=evil\n');
      sh(s.repo, 'config', 'merge.evil.driver', `touch ${join(s.marks, 'merge-driver')}`);
    }],
    ['a diff driver and external diff', (s: ReturnType<typeof setup>) => {
      writeFileSync(join(s.wt, '.gitattributes'), '* diff=evil\n');
      sh(s.repo, 'config', 'diff.evil.command', `touch ${join(s.marks, 'diff-command')}`);
      sh(s.repo, 'config', 'diff.evil.textconv', `touch ${join(s.marks, 'textconv')}`);
      sh(s.repo, 'config', 'diff.external', `touch ${join(s.marks, 'external')}`);
    }],
    ['config included from a file in the worktree', (s: ReturnType<typeof setup>) => {
      writeFileSync(join(s.wt, 'src', 'inc.cfg'), `[core]\n\tfsmonitor = touch ${join(s.marks, 'include')}\n[filter "x"]\n\tclean = touch ${join(s.marks, 'include-clean')}\n`);
      writeFileSync(join(s.wt, '.gitattributes'), '* filter=x\n');
      sh(s.repo, 'config', 'include.path', join(s.wt, 'src', 'inc.cfg'));
    }],
    ['pager, editor, signing and ssh settings', (s: ReturnType<typeof setup>) => {
      sh(s.repo, 'config', 'core.pager', `touch ${join(s.marks, 'pager')}`);
      sh(s.repo, 'config', 'core.editor', `touch ${join(s.marks, 'editor')}`);
      sh(s.repo, 'config', 'commit.gpgSign', 'true');
      sh(s.repo, 'config', 'gpg.program', `touch ${join(s.marks, 'gpg')}`);
      sh(s.repo, 'config', 'core.sshCommand', `touch ${join(s.marks, 'ssh')}`);
    }],
  ])('%s: nothing runs through status, add, commit and merge', async (_name, plant) => {
    const s = setup();
    // A change on the integration side too, so the merge is a real one.
    writeFileSync(join(s.integration, 'src', 'i.txt'), 'i\n');
    // The same file changed on both sides: a content merge (where a merge driver would run).
    writeFileSync(join(s.integration, 'src', 'a.txt'), 'a from integration\n');
    sh(s.integration, '-c', 'core.hooksPath=/dev/null', 'add', '-A');
    sh(s.integration, '-c', 'core.hooksPath=/dev/null', 'commit', '-qm', 'integration side');
    plant(s);
    writeFileSync(join(s.wt, 'src', 'b.txt'), 'b\n');
    writeFileSync(join(s.wt, 'src', 'a.txt'), 'a changed\n');
    await towerWork(s);
    expect(marksLeft(s.marks)).toBe('');
  });

  it('the scope check runs before any commit: out-of-scope files are refused and nothing is committed', async () => {
    const s = setup();
    const before = sh(s.repo, 'rev-parse', 'tower/tw_x/a');
    writeFileSync(join(s.wt, 'src', 'b.txt'), 'b\n');
    writeFileSync(join(s.wt, 'outside.txt'), 'x\n');
    const done = await commitAll(await worktreePlace(s.session, s.wt), 'work', (f) => f.startsWith('src/'));
    expect(done.outside).toEqual(['outside.txt']);
    expect(sh(s.repo, 'rev-parse', 'tower/tw_x/a')).toBe(before);
    expect(await gitAtOk(await worktreePlace(s.session, s.wt), ['status', '--porcelain'])).toContain('outside.txt');
  });

  it.skipIf(!sandboxSupport().available)('inside the sandbox a worker cannot rewrite, replace or remove its worktree\'s .git pointer', async () => {
    const s = setup();
    const pointer = readFileSync(join(s.wt, '.git'), 'utf8');
    const plan = planSandbox({ mode: 'workspace-write', network: false, outside: false, roots: [s.wt], cwd: s.wt, dataDir: join(s.base, 'data-other') });
    for (const command of ['echo "gitdir: /tmp/x" > .git', 'rm -f .git; echo "gitdir: /tmp/x" > .git', 'mv .git .git-old; echo x > .git', 'printf x >> .git', 'echo ok > src/ok.txt']) {
      const p = new CommandProcess({ command, cwd: s.wt, sandbox: plan });
      await p.exited;
      expect(readFileSync(join(s.wt, '.git'), 'utf8'), command).toBe(pointer);
    }
    // The root stays writable otherwise.
    expect(readFileSync(join(s.wt, 'src', 'ok.txt'), 'utf8')).toBe('ok\n');
    expect(existsSync(join(s.wt, '.git-old'))).toBe(false);
  });
});
