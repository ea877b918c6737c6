/**
 * Coordinator mode end to end on a real git repository (tmp dir, `git init`), with the scripted model server playing
 * the tower and its workers and reviewers (told apart by their prompts) and the real runtime running them. Effects
 * are checked in git (branches, worktrees, files on the integration branch, the person's checkout), the store and
 * the process table.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, type ReplyInput } from '../support/model-server';
import { firstUser, lastMessage, openSubHarness, textOf, type SubHarness } from '../subagents/harness';
import { workflowGroup } from '../../src/main/host/app/groups/workflows';
import type { HandlerContext } from '../../src/main/host/app/handler-groups';
import { contract } from '../../src/shared/contract';
import { towerCommand } from '../../src/main/host/cli/tower';
import { vi } from 'vitest';
import { git, makeRepo, PLAN, startAB, towerKit, until } from './kit';

let h: SubHarness;
let kit: ReturnType<typeof towerKit>;
afterEach(async () => {
  await h?.close();
});

async function open(): Promise<SubHarness> {
  h = await openSubHarness();
  kit = towerKit(h);
  return h;
}
const route = (queues: Record<string, ReplyInput[]>, tower: ReplyInput[]) => kit.route(queues, tower);
const towerRequests = () => kit.towerRequests();
const lastToolResult = () => kit.lastToolResult();
const say = (conv: string, text: string) => kit.say(conv, text);
const childrenDone = (conv: string, n: number) => kit.childrenDone(conv, n);

describe('Tower', () => {
  it('runs a three-worker mission: each worker in its own worktree, reviewed, merged; the person\'s checkout untouched; teardown removes every worktree', async () => {
    await open();
    const repo = makeRepo();
    const before = git(repo, 'rev-parse', 'HEAD');
    const tower: ReplyInput[] = [
      reply().tool('tower_init', { objective: 'build A, B and C', tests_command: '! grep -rq BROKEN src' }),
      reply().tool('tower_plan', PLAN),
      reply().tool('tower_spawn', { role: 'worker', mission: 'a' }),
      reply().tool('tower_spawn', { role: 'worker', mission: 'b' }),
      reply().tool('tower_spawn', { role: 'worker', mission: 'c' }),
      reply().text('workers started'),
    ];
    const queues: Record<string, ReplyInput[]> = {};
    for (const d of ['a', 'b', 'c']) {
      queues[`worker-${d}`] = [reply().tool('write_file', { path: `src/${d}/impl.txt`, content: `implementation ${d}\n` }), reply().tool('tower_mission', { done: [1] }), reply().text(`done ${d}`)];
      queues[`reviewer-${d}`] = [reply().tool('tower_review', { mission: d, verdict: 'approve', body: 'looks right' }), reply().text('approved')];
    }
    route(queues, tower);
    const conv = h.runtime.createConversation({ folder: repo, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['coordinator'], true); // loaded from the first request, as a person enabling them would
    const first = await say(conv.id, 'build it');
    expect(first.status).toBe('finished');
    const workers = await childrenDone(conv.id, 3);
    expect(workers.map((w) => w.status)).toEqual(['finished', 'finished', 'finished']);
    const session = h.runtime.tower.rows.activeFor(conv.id)!;
    const missions = h.runtime.tower.rows.missions(session.id);
    // Each worker wrote in its own worktree, on its own branch; nothing in the person's checkout.
    for (const m of missions) {
      expect(readFileSync(join(m.worktree!, 'src', m.id, 'impl.txt'), 'utf8')).toBe(`implementation ${m.id}\n`);
      expect(git(m.worktree!, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(`tower/${session.id}/${m.id}`);
      expect(existsSync(join(repo, 'src', m.id, 'impl.txt'))).toBe(false);
    }
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(5);

    // Merging before any review is refused by the gate.
    tower.push(reply().tool('tower_merge', { mission: 'a' }), reply().text('not yet'));
    await say(conv.id, 'merge a');
    expect(textOf(lastMessage(towerRequests().at(-1)!).content)).toMatch(/Not merged: no review yet/);

    tower.push(...['a', 'b', 'c'].map((d) => reply().tool('tower_spawn', { role: 'reviewer', mission: d })), reply().text('reviewers started'));
    await say(conv.id, 'review');
    await childrenDone(conv.id, 6);
    expect(h.runtime.tower.rows.reviews(session.id).map((r) => [r.mission_id, r.verdict, r.reviewer])).toEqual([
      ['a', 'approve', 'reviewer-a'],
      ['b', 'approve', 'reviewer-b'],
      ['c', 'approve', 'reviewer-c'],
    ]);
    tower.push(...['a', 'b', 'c'].map((d) => reply().tool('tower_merge', { mission: d })), reply().text('merged'));
    await say(conv.id, 'merge');
    const merged = h.runtime.tower.rows.missions(session.id);
    expect(merged.map((m) => m.status)).toEqual(['merged', 'merged', 'merged']);
    const files = git(repo, 'ls-tree', '-r', '--name-only', session.integration_branch).split('\n');
    expect(files).toEqual(expect.arrayContaining(['src/a/impl.txt', 'src/b/impl.txt', 'src/c/impl.txt']));
    expect(git(repo, 'show', `${session.integration_branch}:src/b/impl.txt`)).toBe('implementation b');
    // The person's checkout: same commit, same branch, clean.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(before);
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(git(repo, 'status', '--porcelain')).toBe('');

    // The mission board (the UI's contract method) shows the same: missions, review gate, roster, activity.
    const host = workflowGroup({ runtime: h.runtime } as unknown as HandlerContext);
    const { board } = contract.methods.getTowerBoard.result.parse(await host.getTowerBoard({ conversationId: conv.id }));
    expect(board!.missions.map((m) => [m.id, m.status, m.review?.verdict, m.tasks[0]!.done])).toEqual([['a', 'merged', 'approve', true], ['b', 'merged', 'approve', true], ['c', 'merged', 'approve', true]]);
    expect(board!.roster.map((a) => a.id)).toEqual(['worker-a', 'worker-b', 'worker-c', 'reviewer-a', 'reviewer-b', 'reviewer-c']);
    expect(board!.activity.some((a) => /a merged into tower\/tw_[0-9a-f]{8}\/integration/.test(a.text))).toBe(true);

    // `deskhand tower show` (its own store connection) prints the same board.
    let printed = '';
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((printed += String(c)), true));
    try {
      expect(await towerCommand(['show', session.id, '--data-dir', h.dataDir])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(printed).toMatch(/b \[merged\] Part B \(1\/1 tasks; scope src\/b\/\*\*/);
    expect(printed).toMatch(/review: approve by reviewer-c at [0-9a-f]{10}/);
    expect(printed).toMatch(/worker-a \(worker, a\) finished/);

    tower.push(reply().tool('tower_status', {}), reply().tool('tower_teardown', {}), reply().text('done'));
    await say(conv.id, 'finish');
    const status = textOf(lastMessage(towerRequests().at(-2)!).content);
    expect(status).toMatch(/a \[merged\] Part A \(1\/1 tasks/);
    expect(status).toMatch(/worker-b \(worker, b\): finished/);
    expect(lastToolResult()).toMatch(new RegExp(`Merged missions \\(a, b, c\\) are on branch ${session.integration_branch}`));
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
    expect(git(repo, 'branch', '--list', 'tower/*').split('\n').map((b) => b.trim())).toEqual([session.integration_branch]);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(before);
  });

  it('sends back a worker whose tests fail; it never merges until they pass and a new review approves the new tip', async () => {
    await open();
    const repo = makeRepo();
    const plan = { missions: [PLAN.missions[1]!] };
    const tower: ReplyInput[] = [
      reply().tool('tower_init', { objective: 'B', tests_command: '! grep -rq BROKEN src' }),
      reply().tool('tower_plan', plan),
      reply().tool('tower_spawn', { role: 'worker', mission: 'b' }),
      reply().text('started'),
    ];
    route(
      {
        'worker-b': [
          reply().tool('write_file', { path: 'src/b/impl.txt', content: 'BROKEN b\n' }),
          reply().text('done'),
          // Sent back: the same worker, spawned again.
          reply().tool('tower_inbox', {}),
          reply().tool('read_file', { path: 'src/b/impl.txt' }),
          reply().tool('write_file', { path: 'src/b/impl.txt', content: 'fixed b\n' }),
          reply().text('fixed'),
        ],
        'reviewer-b': [reply().tool('tower_review', { mission: 'b', verdict: 'approve', body: 'ok' }), reply().text('ok')],
        'reviewer-b-2': [reply().tool('tower_review', { mission: 'b', verdict: 'approve', body: 'ok now' }), reply().text('ok')],
      },
      tower,
    );
    const conv = h.runtime.createConversation({ folder: repo, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['coordinator'], true); // loaded from the first request, as a person enabling them would
    await say(conv.id, 'go');
    await childrenDone(conv.id, 1);
    tower.push(reply().tool('tower_spawn', { role: 'reviewer', mission: 'b' }), reply().text('reviewing'));
    await say(conv.id, 'review');
    await childrenDone(conv.id, 2);
    tower.push(reply().tool('tower_merge', { mission: 'b' }), reply().text('hm'));
    await say(conv.id, 'merge');
    expect(lastToolResult()).toMatch(/Not merged: the mission's tests failed \(exit 1\); the worker was sent back/);
    const session = h.runtime.tower.rows.activeFor(conv.id)!;
    expect(h.runtime.tower.rows.mission(session.id, 'b')!.status).toBe('changes');
    expect(git(repo, 'ls-tree', '-r', '--name-only', session.integration_branch)).not.toContain('src/b/impl.txt');

    // Sent back: the worker continues in the same worktree, reads why from its inbox, fixes it.
    tower.push(reply().tool('tower_spawn', { role: 'worker', mission: 'b', instructions: 'tests failed, see your inbox' }), reply().text('again'));
    await say(conv.id, 'fix');
    await childrenDone(conv.id, 3);
    const second = h.runtime.tower.rows.agents(h.runtime.tower.rows.activeFor(conv.id)!.id).find((a) => a.id === 'worker-b')!;
    expect(h.runtime.subagents.list(conv.id).filter((c) => c.description.startsWith('worker-b:'))).toHaveLength(2);
    const inboxRead = h.server.requests.filter((r) => firstUser(r).includes('You are worker-b,') && firstUser(r).includes('From the tower: tests failed'))[1]!;
    void second;
    expect(textOf(lastMessage(inboxRead).content)).toMatch(/from tower: Your mission's tests failed \(exit 1\)/);
    // The old approval was for the old tip: the gate refuses it now.
    tower.push(reply().tool('tower_merge', { mission: 'b' }), reply().text('stale'));
    await say(conv.id, 'merge');
    expect(lastToolResult()).toMatch(/the latest review \(reviewer-b\) was written against [0-9a-f]{10}, not the branch tip/);
    tower.push(reply().tool('tower_spawn', { role: 'reviewer', mission: 'b' }), reply().text('again'));
    await say(conv.id, 'review again');
    await childrenDone(conv.id, 4);
    tower.push(reply().tool('tower_merge', { mission: 'b' }), reply().tool('tower_teardown', {}), reply().text('ok'));
    await say(conv.id, 'merge');
    expect(git(repo, 'show', `${session.integration_branch}:src/b/impl.txt`)).toBe('fixed b');
    // The integration branch never held the broken file: no state of it (its first-parent history) contains it.
    const states = git(repo, 'rev-list', '--first-parent', session.integration_branch).split('\n');
    expect(states).toHaveLength(2);
    for (const sha of states) expect(() => git(repo, 'grep', '-q', 'BROKEN', sha)).toThrow();
  });

  it('refuses a worker\'s edit in another mission\'s scope (the approval engine denies it; nothing is written) and the conflict is escalated to the tower', async () => {
    await open();
    const repo = makeRepo();
    const tower: ReplyInput[] = [
      reply().tool('tower_init', { objective: 'A and B' }),
      reply().tool('tower_plan', { missions: PLAN.missions.slice(0, 2) }),
      reply().tool('tower_spawn', { role: 'worker', mission: 'a' }),
      reply().text('started'),
    ];
    route(
      {
        'worker-a': [
          reply().tool('write_file', { path: 'src/b/impl.txt', content: 'A meddling in B\n' }),
          reply().tool('execute_command', { command: 'echo sneaky > src/b/sneaky.txt' }),
          reply().tool('execute_command', { command: `node -e "require('fs').writeFileSync('src/b/hidden.txt', 'hidden')"` }),
          reply().tool('tower_send', { to: 'tower', message: 'I need a change in src/b (mission b): an exported helper' }),
          reply().tool('write_file', { path: 'src/a/impl.txt', content: 'A\n' }),
          reply().text('done with what is mine'),
        ],
        'reviewer-a': [reply().tool('tower_review', { mission: 'a', verdict: 'approve', body: 'ok' }), reply().text('ok')],
      },
      tower,
    );
    const conv = h.runtime.createConversation({ folder: repo, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['coordinator'], true); // loaded from the first request, as a person enabling them would
    await say(conv.id, 'go');
    await childrenDone(conv.id, 1);
    const session = h.runtime.tower.rows.activeFor(conv.id)!;
    const a = h.runtime.tower.rows.mission(session.id, 'a')!;
    const workerReqs = h.server.requests.filter((r) => firstUser(r).includes('You are worker-a,'));
    // The first worker is told the branch made for it (it read "on branch null" before).
    expect(firstUser(workerReqs[0]!)).toContain(`on branch ${a.branch}.`);
    expect(a.branch).toBe(`tower/${session.id}/a`);
    expect(textOf(lastMessage(workerReqs[1]!).content)).toMatch(/Denied by policy: .*mission a may change only src\/a\/\*\* in its worktree; outside its scope: .*src\/b\/impl\.txt/);
    expect(existsSync(join(a.worktree!, 'src', 'b', 'impl.txt'))).toBe(false);
    // Escalated: the tower's inbox holds the request.
    tower.push(reply().tool('tower_inbox', {}), reply().tool('tower_spawn', { role: 'reviewer', mission: 'a' }), reply().text('ok'));
    await say(conv.id, 'inbox');
    expect(textOf(lastMessage(towerRequests().at(-2)!).content)).toMatch(/from worker-a: I need a change in src\/b \(mission b\)/);
    // The scope check runs before any commit: a reviewer is not spawned on a worktree holding out-of-scope changes.
    expect(lastToolResult()).toMatch(/worktree holds changes outside its scope \(src\/b\/hidden\.txt\); nothing was committed/);
    expect(h.runtime.subagents.list(conv.id)).toHaveLength(1);
    // The shell is not path-checked per call; the merge gate checks every changed file against the scope.
    tower.push(reply().tool('tower_merge', { mission: 'a' }), reply().text('no'));
    await say(conv.id, 'merge');
    // A redirect the command classifier sees is judged like a file tool's write: denied, not written.
    expect(textOf(lastMessage(workerReqs[2]!).content)).toMatch(/Denied by policy: .*mission a may change only src\/a\/\*\* .*src\/b\/sneaky\.txt/);
    expect(existsSync(join(a.worktree!, 'src', 'b', 'sneaky.txt'))).toBe(false);
    // A write the classifier cannot see (inside a program) lands in the worktree; the merge gate refuses the branch.
    expect(readFileSync(join(a.worktree!, 'src', 'b', 'hidden.txt'), 'utf8')).toBe('hidden');
    expect(lastToolResult()).toMatch(/Not merged: files outside the mission's scope changed: src\/b\/hidden\.txt/);
    expect(git(a.worktree!, 'log', '--name-only', '--format=', 'HEAD')).not.toContain('hidden.txt');
    expect(h.runtime.tower.rows.mission(session.id, 'a')!.status).toBe('changes');
    expect(git(repo, 'ls-tree', '-r', '--name-only', session.integration_branch)).not.toContain('src/b/hidden.txt');
  });

  it('a mission cancelled mid-way leaves no worktrees, no mission branches and no processes', async () => {
    await open();
    const repo = makeRepo();
    const marker = 4000 + Math.floor(Math.random() * 900);
    const tower: ReplyInput[] = startAB();
    route(
      {
        'worker-a': [reply().tool('execute_command', { command: `sleep ${marker}.5`, timeout: 600_000 })],
        'worker-b': [reply().hang()],
      },
      tower,
    );
    const conv = h.runtime.createConversation({ folder: repo, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['coordinator'], true); // loaded from the first request, as a person enabling them would
    await say(conv.id, 'go');
    const ps = () => execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).split('\n').filter((l) => l.includes(`sleep ${marker}.5`) && !l.includes('ps -eo'));
    await until(() => ps().length > 0);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(4);
    tower.push(reply().tool('tower_teardown', { reason: 'the person changed their mind' }), reply().text('stopped'));
    await say(conv.id, 'cancel everything');
    expect(lastToolResult()).toMatch(/nothing was merged, and every worktree and branch it made is removed/);
    expect(git(repo, 'worktree', 'list').split('\n')).toHaveLength(1);
    expect(git(repo, 'branch', '--list', 'tower/*')).toBe('');
    const children = await childrenDone(conv.id, 2);
    expect(children.map((c) => c.status)).toEqual(['cancelled', 'cancelled']);
    await until(() => ps().length === 0, 30_000);
    const session = h.runtime.tower.rows.sessions(1)[0]!;
    expect(h.runtime.tower.rows.missions(session.id).map((m) => m.status)).toEqual(['cancelled', 'cancelled']);
    expect(h.runtime.tower.worktreesOf(session.id)).toEqual([]);
  });
});
