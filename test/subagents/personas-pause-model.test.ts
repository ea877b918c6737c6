/**
 * Issue 33 item 5 through the real loop and the scripted model server: a child's own `model` (another model of the
 * parent's provider, or another configured provider: the request reaches that provider's endpoint with that model;
 * an unknown or unconfigured provider is refused before anything starts), steer_subagent pause and resume (a paused
 * child sends no model request until resumed: the server's request log), Spec II's 2-hour default limit, Spec I's
 * researcher persona, map_subagents up to 128 children and resuming earlier children by id, and propose_goal never
 * offered to a child (the tool list of the child's request).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MAP_CHILDREN } from '../../src/main/services/subagents/index';
import { reply, type RecordedRequest, type ReplyInput } from '../support/model-server';
import { firstUser, lastMessage, openSubHarness, textOf, toolNames, type SubHarness } from './harness';

let h: SubHarness;
afterEach(async () => {
  delete process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_BASE_URL;
  await h?.close();
});

const isChild = (req: RecordedRequest) => firstUser(req).includes('CHILD TASK');
const modelOf = (req: RecordedRequest) => (req.body as { model?: string }).model;

async function parentConversation(policy: 'read-only' | 'low-risk' | 'high-risk' = 'low-risk') {
  const conv = h.runtime.createConversation({ folder: h.work, policy });
  h.runtime.setFamilies(conv.id, ['subagents', 'goals'], true); // loaded from the first request, as a person enabling them would
  return conv;
}

describe('a child of its own model', () => {
  it('runs on another model of the parent\'s provider, and on another configured provider at that provider\'s endpoint', async () => {
    h = await openSubHarness();
    process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
    process.env.ANTHROPIC_BASE_URL = h.server.baseURL;
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: small model', description: 'small model', model: 'gpt-mini-test' }),
      reply().text('small done'),
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: other provider', description: 'other provider', provider: 'anthropic', model: 'claude-test' }),
      reply().text('claude done'),
      reply().text('both done'),
    );
    const conv = await parentConversation();
    expect((await h.runtime.sendMessage(conv.id, 'delegate', { provider: h.provider(), interactive: true })).status).toBe('finished');
    const [p1, small, p2, other, p3] = h.server.requests;
    expect(modelOf(p1!)).toBe('gpt-test');
    expect(small!.protocol).toBe('openai');
    expect(modelOf(small!)).toBe('gpt-mini-test');
    expect(modelOf(p2!)).toBe('gpt-test');
    // The other provider's own wire protocol and key, with the named model.
    expect(other!.protocol).toBe('anthropic');
    expect(modelOf(other!)).toBe('claude-test');
    expect(other!.headers['x-api-key']).toBe('sk-ant-test');
    expect(textOf(lastMessage(p3!).content)).toMatch(/claude done/);
  });

  it('refuses an unconfigured or unknown provider with what to do, before any child exists', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: x', description: 'x', provider: 'anthropic', model: 'claude-test' }, { id: 'a' }),
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: x', description: 'x', provider: 'mistral', model: 'm' }, { id: 'b' }),
      reply().tool('map_subagents', { prompt_template: 'CHILD TASK: {{input}}', items: ['1', '2'], description: 'x', provider: 'anthropic', model: 'claude-test' }, { id: 'c' }),
      reply().text('ok'),
    );
    const conv = await parentConversation();
    await h.runtime.sendMessage(conv.id, 'delegate', { provider: h.provider(), interactive: true });
    const calls = new Map(h.store.toolCallsForConversation(conv.id).map((c) => [c.call_id, c]));
    expect(calls.get('a')!.output).toMatch(/The child cannot use anthropic: anthropic is not configured here \(set ANTHROPIC_API_KEY, or leave out provider to use your own\)/);
    expect(calls.get('b')!.output).toMatch(/provider.*anthropic.*openai.*openai-compatible/s);
    expect(calls.get('c')!.output).toMatch(/anthropic is not configured here/);
    expect(h.runtime.subagents.list(conv.id)).toEqual([]);
    expect(h.server.requests.filter(isChild)).toEqual([]);
  });
});

describe('steer_subagent pause and resume', () => {
  it('a paused child makes no model request until it is resumed', async () => {
    h = await openSubHarness();
    const childRequestsAt: number[] = [];
    let id = '';
    const parent: ((req: RecordedRequest) => ReplyInput)[] = [
      () => reply().tool('spawn_subagent', { prompt: 'CHILD TASK: pausable', description: 'pausable', background: true }),
      (req) => {
        id = /Started subagent (sub_[0-9a-f]{8})/.exec(textOf(lastMessage(req).content))![1]!;
        return reply().tool('steer_subagent', { id, action: 'pause' });
      },
      // While paused: the parent waits a while for it (it does not end), then lists it.
      () => reply().tool('wait_subagents', { ids: [id], timeout_seconds: 2 }),
      () => reply().tool('list_subagents', {}),
      () => reply().tool('steer_subagent', { id, action: 'resume', message: 'Carry on.' }),
      () => reply().tool('wait_subagents', { ids: [id], until: 'all', timeout_seconds: 60 }),
      () => reply().text('all done'),
    ];
    const child: ReplyInput[] = [
      // Slow first answer: the pause lands while this model call is in flight.
      reply().tool('get_time', {}).delay(300),
      reply().text('child finished'),
    ];
    h.server.setFallback((req) => {
      if (isChild(req)) return child.shift() ?? { status: 500, message: 'no child reply left' };
      childRequestsAt.push(h.server.requests.filter(isChild).length);
      return parent.shift()?.(req) ?? { status: 500, message: 'no parent reply left' };
    });
    const conv = await parentConversation();
    expect((await h.runtime.sendMessage(conv.id, 'delegate', { provider: h.provider(), interactive: true })).status).toBe('finished');
    const parentReqs = h.server.requests.filter((r) => !isChild(r));
    // Parent request 4 comes after the 2 s wait and request 5 after list_subagents: the child had sent only its first request.
    expect(childRequestsAt[3]).toBe(1);
    expect(childRequestsAt[4]).toBe(1);
    expect(textOf(lastMessage(parentReqs[3]!).content)).toMatch(/still running|timed out|no child finished/i);
    expect(textOf(lastMessage(parentReqs[4]!).content)).toMatch(new RegExp(`${id} \\[running\\].*— paused`));
    // Resumed: the child's next request carries the message sent with resume, and it finished.
    const childReqs = h.server.requests.filter(isChild);
    expect(childReqs).toHaveLength(2);
    expect(JSON.stringify(childReqs[1]!.body)).toContain('Carry on.');
    expect(h.runtime.subagents.list(conv.id)[0]).toMatchObject({ status: 'finished', result: 'child finished' });
    expect(h.runtime.subagents.isPaused(id)).toBe(false);
  });

  it('pause and resume name what is wrong: not a child of this conversation, not paused, already ended', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: quick', description: 'quick' }),
      reply().text('quick done'),
      reply().tool('steer_subagent', { id: 'sub_00000000', action: 'pause' }, { id: 's1' }),
      reply().text('ok'),
    );
    const conv = await parentConversation();
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: true });
    const [row] = h.runtime.subagents.list(conv.id);
    expect(h.store.toolCallsForConversation(conv.id).find((c) => c.call_id === 's1')!.output).toMatch(/No subagent sub_00000000 of this conversation/);
    expect(() => h.runtime.subagents.pause(conv.id, row!.id)).toThrow(/already finished; start it again with spawn_subagent \{resume/);
    expect(() => h.runtime.subagents.resume(conv.id, row!.id)).toThrow(/already finished/);
  });
});

describe('limits, personas and the tool set of a child', () => {
  it('a child gets Spec II\'s 2-hour default limit; the researcher persona is read-only with its brief; propose_goal is never offered to a child', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: find the answer', description: 'research', type: 'researcher' }),
      reply().tool('get_time', {}, { id: 't1' }),
      reply().text('Found it. Sources: README.md:1'),
      reply().text('done'),
    );
    const conv = await parentConversation('high-risk');
    await h.runtime.sendMessage(conv.id, 'research', { provider: h.provider(), interactive: true });
    // The parent (a person's interactive turn) was offered propose_goal; the child never is.
    expect(toolNames(h.server.requests[0]!)).toContain('propose_goal');
    const childReqs = h.server.requests.filter(isChild);
    expect(childReqs.length).toBe(2);
    for (const req of childReqs) expect(toolNames(req)).not.toContain('propose_goal');
    // Researcher: read-only tools only (no writes, no shell), at most the read-only policy, its brief first.
    expect(toolNames(childReqs[0]!)).toContain('read_file');
    expect(toolNames(childReqs[0]!)).not.toContain('write_file');
    expect(toolNames(childReqs[0]!)).not.toContain('execute_command');
    expect(firstUser(childReqs[0]!)).toMatch(/^You are a researcher\. [\s\S]*sources you used[\s\S]*CHILD TASK: find the answer/);
    const [row] = h.runtime.subagents.list(conv.id);
    expect(row).toMatchObject({ type: 'researcher', policy: 'read-only', status: 'finished' });
    expect(JSON.parse(row!.limits)).toMatchObject({ maxMinutes: 120 });
    // get_time in the child counts down from its 2 hours.
    const time = JSON.parse(textOf(lastMessage(childReqs[1]!).content)) as { workMinutesLeft: number };
    expect(time.workMinutesLeft).toBeGreaterThan(119);
    expect(time.workMinutesLeft).toBeLessThanOrEqual(120);
  });
});

describe('map_subagents', () => {
  it(`takes up to ${MAX_MAP_CHILDREN} children and refuses more with what to do`, async () => {
    h = await openSubHarness();
    const items = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);
    h.server.enqueue(
      reply().tool('map_subagents', { prompt_template: 'CHILD TASK: {{input}}', items: items(MAX_MAP_CHILDREN + 1), description: 'too many' }, { id: 'big' }),
      reply().text('split it'),
    );
    const conv = await parentConversation();
    await h.runtime.sendMessage(conv.id, 'map', { provider: h.provider(), interactive: true });
    expect(h.store.toolCallsForConversation(conv.id)[0]!.output).toMatch(/at most 128 items; split the list/);
    expect(h.runtime.subagents.list(conv.id)).toEqual([]);

    // 128 children, all run (each answers its item back).
    const parent: ReplyInput[] = [reply().tool('map_subagents', { prompt_template: 'CHILD TASK: {{input}}', items: items(MAX_MAP_CHILDREN), description: 'many', max_concurrency: 16 }, { id: 'many' }), reply().text('mapped')];
    h.server.setFallback((req) => {
      const m = /CHILD TASK: (n\d+)/.exec(firstUser(req));
      return m ? reply().text(`did ${m[1]}`) : (parent.shift() ?? { status: 500, message: 'no parent reply left' });
    });
    const conv2 = await parentConversation();
    const outcome = await h.runtime.sendMessage(conv2.id, 'map', { provider: h.provider(), interactive: true });
    expect(outcome.error ?? '').toBe('');
    expect(outcome.status).toBe('finished');
    const out = h.store.toolCallsForConversation(conv2.id)[0]!.output!;
    expect(out).toMatch(/^128\/128 children finished\./);
    expect(out).toContain('#128 sub_');
    expect(out).toContain('did n127');
    expect(h.runtime.subagents.list(conv2.id)).toHaveLength(MAX_MAP_CHILDREN);
  }, 120_000);

  it('resumes earlier children by id in the same batch as new ones; each resumed child continues its own conversation', async () => {
    h = await openSubHarness();
    const conv = await parentConversation();
    let ids: string[] = [];
    const parent: ((req: RecordedRequest) => ReplyInput)[] = [
      () => reply().tool('map_subagents', { prompt_template: 'CHILD TASK: first {{input}}', items: ['a', 'b'], description: 'first round' }),
      (req) => {
        ids = [...textOf(lastMessage(req).content).matchAll(/(sub_[0-9a-f]{8}) finished/g)].map((m) => m[1]!);
        return reply().tool('map_subagents', { prompt_template: 'CHILD TASK: new {{input}}', items: ['c'], resume_ids: [ids[1]!], resume_prompt: 'Now double your answer.', description: 'second round' }, { id: 'round2' });
      },
      () => reply().text('done'),
    ];
    h.server.setFallback((req) => {
      if (!isChild(req)) return parent.shift()?.(req) ?? { status: 500, message: 'no parent reply left' };
      const last = textOf(lastMessage(req).content);
      if (last.includes('Now double your answer.')) return reply().text(`doubled (I had: ${JSON.stringify(req.body).includes('answer for b') ? 'b' : '?'})`);
      return reply().text(`answer for ${/CHILD TASK: \w+ (\w)/.exec(firstUser(req))![1]}`);
    });
    expect((await h.runtime.sendMessage(conv.id, 'map twice', { provider: h.provider(), interactive: true })).status).toBe('finished');
    expect(ids).toHaveLength(2);
    const round2 = h.store.toolCallsForConversation(conv.id).find((c) => c.call_id === 'round2')!.output!;
    // Resumed first, then the new item; the resumed child saw its own earlier turn.
    expect(round2).toMatch(new RegExp(`^2/2 children finished\\.\\n#1 ${ids[1]} finished: doubled \\(I had: b\\)\\n#2 sub_[0-9a-f]{8} finished: answer for c$`));
    const rows = h.runtime.subagents.list(conv.id);
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.id === ids[1])).toMatchObject({ status: 'finished', prompt: 'Now double your answer.', result: 'doubled (I had: b)' });
    expect(rows.find((r) => r.id === ids[0])).toMatchObject({ result: 'answer for a' });
  });

  it('refuses resume ids that are not ended children of this conversation, and changes nothing', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('map_subagents', { prompt_template: 'CHILD TASK: {{input}}', resume_ids: ['sub_0badc0de'], description: 'resume' }, { id: 'r' }),
      reply().tool('map_subagents', { prompt_template: 'CHILD TASK: {{input}}', description: 'nothing' }, { id: 'n' }),
      reply().text('ok'),
    );
    const conv = await parentConversation();
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: true });
    const calls = new Map(h.store.toolCallsForConversation(conv.id).map((c) => [c.call_id, c.output]));
    expect(calls.get('r')).toMatch(/No subagent sub_0badc0de of this conversation/);
    expect(calls.get('n')).toMatch(/Give items \(one new child each\) or resume_ids/);
    expect(h.server.requests.filter(isChild)).toEqual([]);
  });
});
