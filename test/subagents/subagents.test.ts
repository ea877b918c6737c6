/**
 * Subagents through the real loop: the scripted model server plays parent and children (told apart by their
 * requests), the real runtime runs both, and the effects are checked in the next model requests and the store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/main/runtime/tool';
import { subagentsModule } from '../../src/main/services/store/modules/subagents';
import { projectMessages, toolPresenter } from '../../src/main/host/app/projections';
import { reply, type RecordedRequest } from '../support/model-server';
import { allText, firstUser, lastMessage, openSubHarness, route, textOf, toolNames, type SubHarness } from './harness';

let h: SubHarness;
afterEach(async () => {
  await h?.close();
});

const isChild = (req: RecordedRequest) => firstUser(req).includes('CHILD TASK');

describe('spawn_subagent', () => {
  it('waits for a foreground child and returns its answer; the child is its own linked conversation', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: count the files', description: 'count files', type: 'explore' }),
      reply().text('There are 3 files.'),
      reply().text('The child says 3.'),
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'low-risk' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    const out = await h.runtime.sendMessage(conv.id, 'delegate it', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('finished');
    const [childReq, parentReq] = [h.server.requests[1]!, h.server.requests[2]!];
    expect(firstUser(childReq)).toContain('CHILD TASK: count the files');
    // The child's tool set is explore's: read-only tools, no subagent management, no writes.
    expect(toolNames(childReq)).toContain('read_file');
    expect(toolNames(childReq)).not.toContain('write_file');
    expect(toolNames(childReq)).not.toContain('spawn_subagent');
    expect(textOf(lastMessage(parentReq).content)).toMatch(/Subagent sub_[0-9a-f]{8} \(explore: count files\) finished.*\nThere are 3 files\./s);
    const [row] = h.runtime.subagents.list(conv.id);
    expect(row).toMatchObject({ status: 'finished', type: 'explore', policy: 'read-only', reported: 1, result: 'There are 3 files.' });
    expect(h.store.getConversation(row!.conversation_id)!.policy).toBe('read-only');
  });

  it('denies a child a tool its parent lacks (a deferred tool the parent never revealed), even after the child searches for it', async () => {
    h = await openSubHarness();
    let ran = 0;
    h.runtime.registry.add([
      defineTool({
        name: 'rare_tool',
        description: 'A rarely used tool for launching the rockets.',
        params: z.object({}).strict(),
        risk: 'read-only',
        disclosure: 'internal',
        deferred: true,
        async execute() {
          ran++;
          return { output: 'launched' };
        },
      }),
    ]);
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: launch', description: 'launch' }),
      reply().tool('search_tools', { query: 'rockets' }),
      reply().tool('rare_tool', {}),
      reply().text('I could not.'),
      reply().text('ok'),
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    expect(ran).toBe(0);
    const afterCall = h.server.requests[3]!;
    expect(toolNames(afterCall)).not.toContain('rare_tool');
    expect(textOf(lastMessage(afterCall).content)).toMatch(/rare_tool is not available in this turn: a subagent gets at most its parent's tools/);
  });

  it('starts tainted when its parent is, and its taint flows up to the parent run with its answer', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: look', description: 'look' }),
      reply().tool('execute_command', { command: 'echo outside-text $HOME' }), // `$`: output not judged the workspace's own (SECURITY.md §9b)
      reply().text('It printed outside-text.'),
      reply().text('done'),
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    const out = await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const [row] = h.runtime.subagents.list(conv.id);
    // Command output is untrusted: the child read it, and its answer reaches the parent inside an envelope.
    expect(row!.tainted).toBe(1);
    expect(h.store.getRun(out.runId)!.tainted).toBe(1);
    expect(h.store.getConversation(conv.id)!.tainted).toBe(1);
    expect(textOf(lastMessage(h.server.requests[3]!).content)).toMatch(/<untrusted source="subagent result/);

    // A second child of the now-tainted parent starts tainted.
    h.server.enqueue(reply().tool('spawn_subagent', { prompt: 'CHILD TASK: again', description: 'again' }), reply().text('fine'), reply().text('done'));
    await h.runtime.sendMessage(conv.id, 'again', { provider: h.provider(), interactive: false });
    const second = h.runtime.subagents.list(conv.id)[1]!;
    expect(h.store.getConversation(second.conversation_id)!.tainted).toBe(1);
    expect(second.tainted).toBe(1);
  });

  it('checks result_schema and retries once with the validation error', async () => {
    h = await openSubHarness();
    const schema = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: count', description: 'count', result_schema: schema }),
      reply().text('{"count": "three"}'),
      reply().text('```json\n{"count": 3}\n```'),
      reply().text('ok'),
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const retry = h.server.requests[2]!;
    expect(textOf(lastMessage(retry).content)).toMatch(/did not match the result schema: count: .*expected number/i);
    expect(allText(h.server.requests[1]!)).toContain('"required":["count"]');
    const [row] = h.runtime.subagents.list(conv.id);
    expect(row).toMatchObject({ status: 'finished', attempts: 2 });
    expect(JSON.parse(row!.result!)).toEqual({ count: 3 });
    expect(textOf(lastMessage(h.server.requests[3]!).content)).toContain('"count": 3');
  });

  it('fails a child whose answer still does not match after the retry', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK', description: 'x', result_schema: { type: 'array' } }),
      reply().text('nope'),
      reply().text('still nope'),
      reply().text('ok'),
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const [row] = h.runtime.subagents.list(conv.id);
    expect(row).toMatchObject({ status: 'failed', attempts: 2 });
    expect(row!.error).toMatch(/did not match result_schema after a retry: the answer is not JSON/);
  });

  it('rejects a bad result_schema with a message the model can act on', async () => {
    h = await openSubHarness();
    h.server.enqueue(reply().tool('spawn_subagent', { prompt: 'CHILD TASK', description: 'x', resume: 'nope' }), reply().text('ok'));
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    expect(textOf(lastMessage(h.server.requests[1]!).content)).toMatch(/resume takes a subagent id/);
  });
});

describe('background children, the task table, steering and limits', () => {
  it('returns the id at once; wait_subagents collects the answer; the child is a task (task_output, wait_tasks)', async () => {
    h = await openSubHarness();
    const parent = [reply().tool('spawn_subagent', { prompt: 'CHILD TASK: slow', description: 'slow', background: true }), reply().text('started')];
    const child = [reply().text('child result').delay(300)];
    route(h, { 'CHILD TASK: slow': child }, parent);
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const parentReqs = () => h.server.requests.filter((r) => !isChild(r));
    expect(textOf(lastMessage(parentReqs()[1]!).content)).toMatch(/Started subagent (sub_[0-9a-f]{8}) in the background \(task sub_[0-9a-f]{8}\)/);
    const [row] = h.runtime.subagents.list(conv.id);
    const task = h.runtime.tasks.list(conv.id)[0]!;
    expect(task).toMatchObject({ kind: 'subagent', id: row!.task_id });
    parent.push(reply().tool('wait_subagents', { ids: [row!.id], timeout_seconds: 20 }), reply().tool('task_output', { id: task.id }), reply().text('done'));
    await h.runtime.sendMessage(conv.id, 'collect', { provider: h.provider(), interactive: false });
    const reqs = parentReqs();
    expect(textOf(lastMessage(reqs.at(-2)!).content)).toMatch(/finished.*\nchild result/s);
    expect(textOf(lastMessage(reqs.at(-1)!).content)).toContain('child result');
    expect(h.runtime.tasks.list(conv.id)[0]!.status).toBe('finished');
    expect(h.runtime.subagents.get(row!.id)!.reported).toBe(1);
  });

  it('steers a running child before its next model call, and cancels one through cancel_background_jobs', async () => {
    h = await openSubHarness();
    // low-risk: cancel_background_jobs runs unasked.
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'low-risk' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    const parent = [reply().tool('spawn_subagent', { prompt: 'CHILD TASK: work', description: 'work', background: true }), reply().text('started')];
    // The child's first step is slow: the parent steers it meanwhile.
    const work = [reply().tool('get_time', {}).delay(400), reply().text('all UTC')];
    const hang = [reply().hang()];
    route(h, { 'CHILD TASK: work': work, 'CHILD TASK: hang': hang }, parent);
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const id = h.runtime.subagents.list(conv.id)[0]!.id;
    parent.push(reply().tool('steer_subagent', { id, message: 'Use UTC only.' }), reply().text('steered'));
    await h.runtime.sendMessage(conv.id, 'steer', { provider: h.provider(), interactive: false });
    const row = await until(() => {
      const r = h.runtime.subagents.get(id)!;
      return r.status === 'finished' ? r : undefined;
    });
    const childSecond = h.server.requests.find((r) => isChild(r) && allText(r).includes('Message from your parent agent'))!;
    expect(textOf(lastMessage(childSecond).content)).toBe('[Message from your parent agent, sent while you work]\nUse UTC only.');
    // The child's transcript labels both its prompt and the parent's steer as its parent conversation's.
    const parentTitle = h.store.getConversation(conv.id)!.title;
    const users = projectMessages(h.runtime.records, h.runtime.subagents.get(id)!.conversation_id, toolPresenter(h.runtime.registry)).filter((i) => i.kind === 'user');
    expect(users.map((i) => [i.text, i.from])).toEqual([
      ['CHILD TASK: work', parentTitle],
      ['Use UTC only.', parentTitle],
    ]);
    // workMinutesLeft: the child's get_time saw its budget.
    expect(allText(childSecond)).toMatch(/workMinutesLeft/);
    expect(row.result).toBe('all UTC');

    // Cancel: a hanging child, cancelled as a background task.
    parent.push(reply().tool('spawn_subagent', { prompt: 'CHILD TASK: hang', description: 'hang', background: true }), reply().text('started'));
    await h.runtime.sendMessage(conv.id, 'hang', { provider: h.provider(), interactive: false });
    const hung = h.runtime.subagents.list(conv.id)[1]!;
    await until(() => h.runtime.subagents.get(hung.id)!.status === 'running' || undefined);
    parent.push(reply().tool('cancel_background_jobs', { ids: [hung.task_id] }), reply().text('cancelled'));
    await h.runtime.sendMessage(conv.id, 'cancel', { provider: h.provider(), interactive: false });
    expect(h.runtime.subagents.get(hung.id)!.status).toBe('cancelled');
    expect(h.runtime.tasks.list(conv.id).find((t) => t.id === hung.task_id)!.status).toBe('cancelled');
    // The child's own run ends too (aborted), nothing keeps running.
    await until(() => h.store.activeRunForConversation(hung.conversation_id) === undefined || undefined);
    expect(h.store.runsForConversation(hung.conversation_id).at(-1)!.status).toBe('aborted');
  });

  it('stops a child at its token limit', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK', description: 'greedy', max_tokens: 1000 }),
      reply().tool('get_time', {}).usage({ input: 5000, output: 10 }),
      reply().text('ok'),
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const [row] = h.runtime.subagents.list(conv.id);
    expect(row).toMatchObject({ status: 'failed', input_tokens: 5000 });
    expect(row!.error).toContain('limit of 1000 tokens');
    expect(h.server.requests).toHaveLength(3);
  });

  it('shares a blackboard between parent and children; posts of a tainted run are marked untrusted', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('post_to_blackboard', { topic: 'plan', body: 'split by folder' }),
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: read board', description: 'reader' }),
      reply().tool('read_blackboard', { topic: 'plan' }),
      reply().tool('post_to_blackboard', { topic: 'found', body: 'src has 3 files' }),
      reply().text('posted'),
      reply().tool('read_blackboard', { after_id: 1 }),
      reply().text('done'),
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'read-only' });
    h.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    expect(textOf(lastMessage(h.server.requests[3]!).content)).toContain('split by folder');
    expect(textOf(lastMessage(h.server.requests[6]!).content)).toMatch(/#2 \[found\] by sub_[0-9a-f]{8}:\nsrc has 3 files/);
    const posts = h.store.module(subagentsModule).read(conv.id, { limit: 10 });
    expect(posts.map((p) => p.untrusted)).toEqual([0, 0]);
  });
});

async function until<T>(fn: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
