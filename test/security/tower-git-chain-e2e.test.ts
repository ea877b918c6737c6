/**
 * Security round three (issue 29), mechanism 2, end to end through the built `deskhand run` with the scripted model
 * server playing the tower, its worker and its reviewer. The worker's sandboxed command plants a git dir of its own
 * (hooks and a core.fsmonitor that would each create a marker file) in its worktree, then tries every way of pointing
 * the worktree's `.git` at it (rewrite, append, replace, remove, rename, a symlink), plants hooks in the worktree's
 * admin git dir and sets core.hooksPath; its file tools try to write `.git` too. Deskhand's own host git then runs
 * status, add and commit on the worktree (before the reviewer, and again at tower_merge) and the merge: no marker may
 * exist, the `.git` file keeps the bytes git wrote, the work lands on Deskhand's branch in the real repository, and
 * what the worker's model is sent next shows each attempt was refused. Hooks already in the repository's git dir stay
 * silent too (Deskhand's bookkeeping git runs none).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, type ReplyInput } from '../support/model-server';
import { approvalsOf, openChainWorld, toolMessagesOf, type ChainWorld } from '../support/chain-world-a';
import { tempDir } from '../support/tool-context';
import { firstUser } from '../subagents/harness';
import { sandboxSupport } from '../../src/main/services/sandbox/sandbox';

let world: ChainWorld | null = null;
let base: string | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
  if (base) rmSync(base, { recursive: true, force: true });
  base = null;
});

const HOOKS = ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-index-change', 'reference-transaction', 'post-checkout', 'post-merge', 'pre-merge-commit'];

/** The worker's script: a planted git dir, then each way of repointing `.git` (each line says whether it held). */
function plantScript(marks: string): string {
  const hooks = HOOKS.map((h) => `printf '#!/bin/sh\\ntouch ${marks}/%s-%s\\n' "$1" ${h} > "$2/${h}" 2>/dev/null && chmod +x "$2/${h}" 2>/dev/null`).join('\n  ');
  return `W=$(pwd)
G="$W/src/a/evil-gitdir"
hooks() {
  mkdir -p "$2" 2>/dev/null || return 1
  ${hooks}
}
mkdir -p "$G/objects" "$G/refs/heads" "$G/info"
echo 'ref: refs/heads/main' > "$G/HEAD"
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tfsmonitor = touch ${marks}/planted-fsmonitor\\n' > "$G/config"
hooks planted "$G/hooks"
try() { if sh -c "$2" 2>/dev/null; then echo "$1: DONE"; else echo "$1: refused"; fi; }
ADMIN=$(sed -n 's/^gitdir: //p' .git)
try rewrite "echo 'gitdir: $G' > .git"
try append "printf '\\ngitdir: $G\\n' >> .git"
try truncate ": > .git"
try replace "echo 'gitdir: $G' > .git.new && mv -f .git.new .git"
try remove "rm -f .git && echo 'gitdir: $G' > .git"
try rename "mv .git .git-old && echo 'gitdir: $G' > .git"
try symlink "rm -f .git; ln -s '$G' .git"
try admin-hooks "mkdir -p '$ADMIN/hooks' && printf '#!/bin/sh\\ntouch ${marks}/admin-pre-commit\\n' > '$ADMIN/hooks/pre-commit' && chmod +x '$ADMIN/hooks/pre-commit'"
try admin-config "printf '[core]\\n\\thooksPath = $G/hooks\\n' >> '$ADMIN/config.worktree'"
try hooks-path "git config core.hooksPath '$G/hooks'"
try fsmonitor "git config core.fsmonitor 'touch ${marks}/config-fsmonitor'"
rm -f .git.new
echo "pointer now: $(cat .git 2>/dev/null | head -c 200)"
`;
}

describe('chain: a worker repoints its worktree at a planted git dir', () => {
  it.skipIf(!sandboxSupport().available)("Tower's host git runs no planted hook and the .git pointer keeps its bytes", async () => {
    // Not under /tmp: the sandbox gives commands a private /tmp, so a repository there would hide what the worker's
    // writes into the repository's git dir would do; under /var/tmp the real folders are what the sandbox shows.
    base = tempDir('deskhand-towergit-', '/var/tmp');
    const repo = join(base, 'repo');
    const marks = join(base, 'marks');
    mkdirSync(join(repo, 'src', 'a'), { recursive: true });
    mkdirSync(marks);
    const g = (...a: string[]) => execFileSync('git', a, { cwd: repo, encoding: 'utf8' }).trim();
    g('init', '-q', '-b', 'main');
    g('config', 'user.email', 'p@example.com');
    g('config', 'user.name', 'P');
    writeFileSync(join(repo, 'src', 'a', 'README'), 'a\n');
    g('add', '-A');
    g('commit', '-qm', 'start');
    // Hooks already in the repository's own git dir (an earlier agent planted them, or they came with it): Deskhand's
    // bookkeeping git runs no hook at all, so these must stay silent too.
    for (const h of HOOKS) {
      writeFileSync(join(repo, '.git', 'hooks', h), `#!/bin/sh\ntouch ${marks}/repo-${h}\n`);
      chmodSync(join(repo, '.git', 'hooks', h), 0o755);
    }
    world = await openChainWorld({ prefix: 'deskhand-towergit-', work: repo });
    const w = world;

    const tower: ReplyInput[] = [
      reply().tool('tower_init', { objective: 'A' }),
      reply().tool('tower_plan', { missions: [{ id: 'a', title: 'Part A', scope: ['src/a/**'], tasks: ['write A'] }] }),
      reply().tool('tower_spawn', { role: 'worker', mission: 'a' }),
      reply().text('worker started'),
      // The worker's end: a reviewer (Tower commits the worker's edits with host git first).
      reply().tool('tower_spawn', { role: 'reviewer', mission: 'a' }),
      reply().text('reviewer started'),
      // The reviewer's end: merge (host git status/add/commit in the worktree, then the merge).
      reply().tool('tower_merge', { mission: 'a' }),
      reply().text('merge tried'),
    ];
    const queues: Record<string, ReplyInput[]> = {
      'worker-a': [
        reply().tool('write_file', { path: 'src/a/plant.sh', content: plantScript(marks) }),
        reply().tool('execute_command', { command: 'sh src/a/plant.sh' }),
        reply().tool('write_file', { path: '.git', content: 'gitdir: src/a/evil-gitdir\n' }),
        reply().tool('edit_file', { path: '.git', old_string: 'gitdir: ', new_string: 'gitdir: src/a/evil-gitdir # ' }),
        reply().tool('write_file', { path: 'src/a/impl.txt', content: 'A\n' }),
        reply().text('done'),
      ],
      'reviewer-a': [reply().tool('tower_review', { mission: 'a', verdict: 'approve', body: 'ok' }), reply().text('approved')],
    };
    w.server.setFallback((req) => {
      const first = firstUser(req);
      for (const [who, q] of Object.entries(queues)) if (first.includes(`You are ${who},`)) return q.shift() ?? reply().text('nothing left');
      return tower.shift() ?? reply().text('nothing left');
    });

    // Only the plan is approved by the person here; anything else that parks fails the test below.
    const runs = await w.runApproving('coordinate', (a) => a.tool === 'tower_plan');
    const last = runs.at(-1)!;
    expect(last.code, `${last.stderr}\n${JSON.stringify(approvalsOf(last))}`).toBe(0);
    expect(runs.flatMap(approvalsOf).map((a) => a.tool)).toEqual(['tower_plan']);

    // No planted program ran on the host: not the planted git dir's hooks or fsmonitor, not the admin dir's hook.
    expect(readdirSync(marks)).toEqual([]);
    // The worktree's .git pointer holds what git wrote at `worktree add`.
    const session = readdirSync(join(w.dataDir, 'tower'))[0]!;
    const wt = join(w.dataDir, 'tower', session, 'a');
    expect(lstatSync(join(wt, '.git')).isFile()).toBe(true);
    expect(readFileSync(join(wt, '.git'), 'utf8')).toBe(`gitdir: ${realpathSync(repo)}/.git/worktrees/a\n`);
    expect(existsSync(join(wt, '.git-old'))).toBe(false);
    // The planted git dir exists (the worker's command ran) and never received a commit.
    expect(readFileSync(join(wt, 'src', 'a', 'evil-gitdir', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(readdirSync(join(wt, 'src', 'a', 'evil-gitdir', 'objects'))).toEqual([]);
    // The admin git dir holds no planted hook or worktree config.
    expect(existsSync(join(repo, '.git', 'worktrees', 'a', 'hooks', 'pre-commit'))).toBe(false);
    expect(existsSync(join(repo, '.git', 'worktrees', 'a', 'config.worktree'))).toBe(false);
    // The work landed in the real repository: the integration branch holds the worker's file.
    expect(g('show', `tower/${session}/integration:src/a/impl.txt`)).toBe('A');
    expect(() => g('config', '--get', 'core.hooksPath')).toThrow();
    expect(() => g('config', '--get', 'core.fsmonitor')).toThrow();

    // What the worker's model was sent next: every repointing attempt was refused inside its sandbox.
    const workerSaw = w.server.requests.filter((r) => firstUser(r).includes('You are worker-a,')).flatMap(toolMessagesOf).join('\n');
    for (const attempt of ['rewrite', 'append', 'truncate', 'replace', 'remove', 'rename', 'symlink', 'admin-hooks', 'admin-config', 'hooks-path', 'fsmonitor']) {
      expect(workerSaw, attempt).toContain(`${attempt}: refused`);
      expect(workerSaw, attempt).not.toContain(`${attempt}: DONE`);
    }
    expect(workerSaw).toContain(`pointer now: gitdir: ${realpathSync(repo)}/.git/worktrees/a`);
    // Its file tools' writes to .git were refused with a reason (two tool errors naming .git).
    expect(workerSaw).toMatch(/\.git[^\n]*(refus|denied|not allowed|outside)/i);
  }, 300_000);
});
