/**
 * Tower workers and reviewers as agent definitions (issue 47 item 3, docs/tower.md "Agent definitions"): tower_spawn
 * with `type` runs the agent as a definition from `<data dir>/agents/`, held within its role — a worker keeps at
 * most the tower's tools, a reviewer stays read-only — and keeping the Tower tools it reports with. Proved by what
 * the scripted model server recorded: each agent's system prompt carries the definition and its tool list is the
 * definition's, narrowed by the role; and by the file the worker wrote in its worktree.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { reply, type ReplyInput } from '../support/model-server';
import { firstUser, messagesOf, openSubHarness, textOf, toolNames, type SubHarness } from '../subagents/harness';
import { makeRepo, PLAN, towerKit } from './kit';

let h: SubHarness;
afterEach(async () => {
  await h?.close();
});

const systemOf = (first: string) => textOf(messagesOf(h.server.requests.find((r) => firstUser(r).includes(first))!).filter((m) => m.role === 'system' || m.role === 'developer').map((m) => m.content));
const toolsOf = (first: string) => toolNames(h.server.requests.find((r) => firstUser(r).includes(first))!).sort();

it('tower_spawn type: a worker runs as the definition within the tower\'s tools, a reviewer within read-only', async () => {
  h = await openSubHarness();
  const kit = towerKit(h);
  mkdirSync(join(h.dataDir, 'agents'), { recursive: true });
  // Names tools the tower does not have (browser_navigate) and, for a reviewer, ones it may not keep (write_file).
  writeFileSync(join(h.dataDir, 'agents', 'careful.md'), '---\nname: careful\ndescription: Careful builder\ntools: Read, Write, Grep, browser_navigate\n---\nYou build carefully. Careful-Marker-71\n');
  const repo = makeRepo();
  const tower: ReplyInput[] = [
    reply().tool('tower_init', { objective: 'A' }),
    reply().tool('tower_plan', { missions: PLAN.missions.slice(0, 1) }),
    reply().tool('tower_spawn', { role: 'worker', mission: 'a', type: 'careful' }),
    reply().text('started'),
  ];
  kit.route(
    {
      'worker-a': [reply().tool('write_file', { path: 'src/a/impl.txt', content: 'careful a\n' }), reply().tool('tower_mission', { done: [1] }), reply().text('done a')],
      'reviewer-a': [reply().tool('tower_review', { mission: 'a', verdict: 'approve', body: 'fine' }), reply().text('approved')],
      'reviewer-a-2': [reply().text('nothing to add')],
    },
    tower,
  );
  const conv = h.runtime.createConversation({ folder: repo, policy: 'high-risk' });
  h.runtime.setFamilies(conv.id, ['coordinator'], true);
  expect((await kit.say(conv.id, 'build it')).status).toBe('finished');
  const [worker] = await kit.childrenDone(conv.id, 1);
  expect(worker!.status).toBe('finished');

  // The worker: the definition's instructions, its tools (Claude Code's names mapped) of the tower's, and the Tower
  // tools it reports with; no shell, no browser (the tower has none), no coordinator tools.
  expect(systemOf('You are worker-a,')).toContain('You run as the agent \\"careful\\"');
  expect(systemOf('You are worker-a,')).toContain('You build carefully. Careful-Marker-71');
  const workerTools = toolsOf('You are worker-a,');
  expect(workerTools.filter((t) => !t.startsWith('tower_'))).toEqual(['grep', 'read_file', 'write_file']);
  expect(workerTools).toEqual(expect.arrayContaining(['tower_mission', 'tower_send']));
  expect(workerTools).not.toContain('tower_spawn');
  const session = h.runtime.tower.rows.activeFor(conv.id)!;
  const mission = h.runtime.tower.rows.missions(session.id)[0]!;
  expect(readFileSync(join(mission.worktree!, 'src', 'a', 'impl.txt'), 'utf8')).toBe('careful a\n');

  // The reviewer as the same definition: held within explore, so write_file is gone and its policy is read-only.
  tower.push(reply().tool('tower_spawn', { role: 'reviewer', mission: 'a', type: 'careful' }), reply().text('reviewing'));
  await kit.say(conv.id, 'review it');
  const children = await kit.childrenDone(conv.id, 2);
  expect(children.map((c) => c.status)).toEqual(['finished', 'finished']);
  expect(systemOf('You are reviewer-a,')).toContain('Careful-Marker-71');
  const reviewerTools = toolsOf('You are reviewer-a,');
  expect(reviewerTools.filter((t) => !t.startsWith('tower_'))).toEqual(['grep', 'read_file']);
  expect(reviewerTools).toContain('tower_review');
  expect(children.find((c) => c.description.startsWith('reviewer-a'))!.policy).toBe('read-only');
  expect(h.runtime.tower.rows.reviews(session.id).map((r) => r.verdict)).toEqual(['approve']);

  // A built-in type is held within the role too: a reviewer spawned as coder still gets no write tool.
  tower.push(reply().tool('tower_spawn', { role: 'reviewer', mission: 'a', type: 'coder' }), reply().text('reviewing'));
  await kit.say(conv.id, 'review it as a coder');
  await kit.childrenDone(conv.id, 3);
  const coderReviewer = h.server.requests.filter((r) => firstUser(r).includes('You are reviewer-a-2,'))[0]!;
  expect(toolNames(coderReviewer).filter((t) => !t.startsWith('tower_')).sort()).not.toContain('write_file');
  expect(toolNames(coderReviewer)).toContain('read_file');

  // An unknown type is refused with the types there are.
  tower.push(reply().tool('tower_spawn', { role: 'reviewer', mission: 'a', type: 'nobody' }), reply().text('ok'));
  await kit.say(conv.id, 'again');
  expect(kit.lastToolResult()).toMatch(/No subagent type "nobody": use coder, explore, general, researcher, careful/);
}, 180_000);
