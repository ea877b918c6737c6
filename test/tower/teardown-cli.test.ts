/**
 * `deskhand tower teardown ID` through the real binary (built by `npm run build`), from another process than the one
 * running the Tower session: on a terminal it shows what goes and asks; without one it needs --yes; with it, every
 * agent stops (the running process notices its rows), every worktree and `tower/*` branch goes, and the commands the
 * workers ran are gone from the process table. The person's checkout is never touched.
 */
import { execFileSync, spawn } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, type ReplyInput } from '../support/model-server';
import { BIN, cliEnv, requireBuild, runCli } from '../support/cli';
import { openSubHarness, type SubHarness } from '../subagents/harness';
import { git, makeRepo, startAB, towerKit, until } from './kit';

let h: SubHarness;
beforeAll(() => requireBuild());
afterEach(async () => {
  await h?.close();
});

/** The CLI on a pseudo-terminal (util-linux `script`), answering its question with `answer`. */
function onTerminal(args: string[], answer: string): Promise<{ code: number | null; text: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((done) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env: cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let text = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      if (!sent && text.includes('[y/N]')) {
        child.stdin.write(`${answer}\n`);
        sent = true;
      }
    });
    child.on('close', (code) => done({ code, text }));
  });
}

describe('deskhand tower teardown', () => {
  it('asks on a terminal, needs --yes without one, and then removes every worktree, tower/* branch and worker process', async () => {
    h = await openSubHarness();
    const kit = towerKit(h);
    const repo = makeRepo();
    const personHead = git(repo, 'rev-parse', 'HEAD');
    const marker = 5000 + Math.floor(Math.random() * 900);
    const tower: ReplyInput[] = startAB();
    // Both workers are inside a long command (a model request left hanging would meet the idle timeout on a slow machine).
    kit.route({ 'worker-a': [reply().tool('execute_command', { command: `sleep ${marker}.5`, timeout: 600_000 })], 'worker-b': [reply().tool('execute_command', { command: `sleep ${marker}.25`, timeout: 600_000 })] }, tower);
    const conv = h.runtime.createConversation({ folder: repo, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['coordinator'], true); // loaded from the first request, as a person enabling them would
    await kit.say(conv.id, 'go');
    const ps = () => execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).split('\n').filter((l) => /sleep \d+\.(5|25)$/.test(l.trim()) && l.includes(`sleep ${marker}.`));
    await until(() => ps().length >= 2);
    const session = h.runtime.tower.rows.activeFor(conv.id)!;
    const branches = () => git(repo, 'branch', '--list', 'tower/*').split('\n').map((b) => b.replace(/^[*+ ]+/, '').trim()).filter(Boolean);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(4);
    expect(branches().sort()).toEqual([`tower/${session.id}/a`, `tower/${session.id}/b`, session.integration_branch].sort());

    // On a terminal: what goes is shown, and "n" keeps everything.
    const asked = await onTerminal(['tower', 'teardown', session.id, '--data-dir', h.dataDir], 'n');
    expect(asked.code, asked.text).toBe(1);
    expect(asked.text).toContain(`Tear down Tower ${session.id} on ${repo}?`);
    expect(asked.text).toMatch(/stops 2 running agents \(worker-a, worker-b\)/);
    expect(asked.text).toMatch(/unmerged work of a, b is lost/);
    expect(asked.text).toContain('Not torn down.');
    // No terminal and no --yes: a usage error (exit 2) that says how; nothing removed either.
    const refused = await runCli(['tower', 'teardown', session.id, '--data-dir', h.dataDir]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/No terminal to ask on: run it again with --yes/);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(4);
    expect(branches()).toHaveLength(3);
    expect(ps().length).toBeGreaterThanOrEqual(2);
    expect(h.runtime.subagents.list(conv.id).map((c) => c.status)).toEqual(['running', 'running']);

    const done = await runCli(['tower', 'teardown', session.id, '--yes', '--reason', 'changed my mind', '--data-dir', h.dataDir]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toBe(`Tower ${session.id} torn down; nothing was merged, and every worktree and branch it made is removed.\n`);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
    expect(branches()).toEqual([]);
    // The process running the workers saw their rows cancelled and stopped them and their commands.
    const children = await kit.childrenDone(conv.id, 2);
    expect(children.map((c) => [c.status, c.error])).toEqual([
      ['cancelled', 'the Tower session was torn down: changed my mind'],
      ['cancelled', 'the Tower session was torn down: changed my mind'],
    ]);
    await until(() => ps().length === 0, 30_000);
    expect(h.runtime.tower.rows.session(session.id)!.status).toBe('torn_down');
    expect(h.runtime.tower.rows.missions(session.id).map((m) => [m.status, m.worktree])).toEqual([
      ['cancelled', null],
      ['cancelled', null],
    ]);
    expect(h.runtime.tower.worktreesOf(session.id)).toEqual([]);
    // The person's checkout: same commit, same branch, clean.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(personHead);
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    // Again: nothing to do, said so.
    const again = await runCli(['tower', 'teardown', session.id, '--data-dir', h.dataDir, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: session.id, status: 'torn_down', message: `${session.id} is already torn down.` });
  }, 120_000);
});
