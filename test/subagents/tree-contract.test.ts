/**
 * The subagent tree through the UI contract (AppService: listSubagents, steerSubagent, cancelSubagent, the
 * subagentsChanged event, `subagentOf` on conversation summaries) and steering/waiting from the `deskhand subagents`
 * binary in another process. Effects are checked where they land: the scripted model server's next request for the
 * child, the child's run row.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { requireBuild, runCli } from '../support/cli';
import { openHarness, type Harness } from '../host/helpers';
import { subagentsModule } from '../../src/main/services/store/modules/subagents';
import { tempDir } from '../support/tool-context';
import { allText, firstUser } from './harness';

let app: Harness | null = null;
let server: ModelServer | null = null;
afterEach(async () => {
  if (app) {
    await app.runtime.tasks.shutdown();
    app.close();
  }
  await server?.close();
  app = server = null;
});

async function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A parent that starts two background children: ALPHA (a first step, then an answer) and BETA (never done). */
async function twoChildren(alphaFirst: ReturnType<typeof reply>, alphaType: 'explore' | 'coder' = 'explore') {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  app = openHarness({ dataDir });
  const provider = { provider: 'openai' as const, model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' };
  const parent = [
    reply()
      .tool('spawn_subagent', { prompt: 'CHILD ALPHA: tell the time', description: 'alpha', type: alphaType, background: true })
      .tool('spawn_subagent', { prompt: 'CHILD BETA: wait', description: 'beta', type: 'explore', background: true }),
    reply().text('started'),
  ];
  const alpha = [alphaFirst, reply().text('alpha answer')];
  const alphaRequests: string[] = [];
  server.setFallback((req) => {
    const first = firstUser(req);
    if (first.includes('CHILD ALPHA')) {
      alphaRequests.push(allText(req));
      return alpha.shift() ?? { status: 500 };
    }
    // Beta streams a dot every 2 s for minutes (alive for the harness's idle timeout) until it is cancelled.
    if (first.includes('CHILD BETA')) return { text: Array.from({ length: 150 }, () => '.'), delayMs: 2000 };
    return parent.shift() ?? reply().text('ok');
  });
  const conv = app.runtime.createConversation({ folder: work, policy: 'read-only', title: 'Parent' });
  app.runtime.setFamilies(conv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
  // Attended, as the app's runs are: its background children wait for the person (an unattended parent's would park).
  const out = await app.runtime.sendMessage(conv.id, 'start helpers', { provider, interactive: true });
  expect(out.status).toBe('finished');
  const [a, b] = app.runtime.subagents.list(conv.id);
  await until('both children running with alpha asking its model', () => alphaRequests.length > 0 && app!.runtime.subagents.get(b!.id)!.status === 'running');
  return { dataDir, conv, a: a!, b: b!, alphaRequests };
}

describe('the subagent tree through the UI contract', () => {
  it('lists the tree, marks child conversations, steers one (its next request carries it) and cancels one', async () => {
    // Alpha's first step asks to write a file and waits for the person: the tree says so, and it is steered meanwhile.
    const { conv, a, b, alphaRequests } = await twoChildren(reply().tool('write_file', { path: 'x.txt', content: 'x' }), 'coder');
    const svc = app!.service;
    const pending = await until('alpha to ask', async () => (await svc.listPendingApprovals({})).approvals.find((p) => p.subagent?.id === a.id));

    const tree = await svc.listSubagents({ conversationId: conv.id });
    expect(tree.self).toBeNull();
    expect(tree.subagents.map((s) => [s.id, s.description, s.type, s.status, s.depth, s.parentSubagentId, s.background])).toEqual([
      [a.id, 'alpha', 'coder', 'waiting', 0, null, true],
      [b.id, 'beta', 'explore', 'running', 0, null, true],
    ]);
    // The UI heard about it without polling.
    await app!.waitFor((e) => e.event === 'subagentsChanged' && e.payload.conversationId === conv.id);

    // Child conversations carry their parent (the sidebar leaves them out); the parent does not.
    const { conversations } = await svc.listConversations();
    expect(conversations.find((c) => c.id === a.conversation_id)?.subagentOf).toEqual({ conversationId: conv.id, subagentId: a.id });
    expect(conversations.find((c) => c.id === conv.id)?.subagentOf).toBeUndefined();
    // A child's own view names its parent (the way back).
    const own = await svc.listSubagents({ conversationId: a.conversation_id });
    expect(own.self).toMatchObject({ id: a.id, parentConversationId: conv.id, parentTitle: 'Parent' });

    // Steer alpha while it waits: its next model request carries the message, the first did not.
    await svc.steerSubagent({ subagentId: a.id, message: 'Also say the weekday.' });
    await svc.decideApproval({ approvalId: pending.approvalId, decision: 'deny' });
    await until('alpha to finish', () => app!.runtime.subagents.get(a.id)!.status === 'finished');
    expect(alphaRequests).toHaveLength(2);
    expect(alphaRequests[0]).not.toContain('Also say the weekday.');
    expect(alphaRequests[1]).toContain('Also say the weekday.');
    // The child is told the message comes from the person, not its parent agent.
    expect(alphaRequests[1]).toContain('[Message from the person you work for (the user, through Deskhand), not from your parent agent; sent while you work]\nAlso say the weekday.');
    expect(alphaRequests[1]).not.toContain('Message from your parent agent');
    // Its transcript labels its prompt as the parent's and the steer as the person's.
    const { items } = await svc.getMessages({ conversationId: a.conversation_id });
    const users = items.filter((i) => i.kind === 'user').map((i) => ({ text: i.text, from: i.from }));
    expect(users).toEqual([
      { text: 'CHILD ALPHA: tell the time', from: 'Parent' },
      { text: 'Also say the weekday.', from: undefined },
    ]);
    // The parent's own conversation is the person's: no label.
    expect((await svc.getMessages({ conversationId: conv.id })).items.find((i) => i.kind === 'user')).not.toHaveProperty('from');

    // Cancel beta: its row and its run end.
    const cancelled = await svc.cancelSubagent({ subagentId: b.id });
    expect(cancelled.subagent).toMatchObject({ id: b.id, status: 'cancelled', error: 'cancelled by the person from the subagent tree' });
    await until('beta run stopped', () => app!.store.runsForConversation(b.conversation_id).at(-1)!.status === 'aborted');

    // A child's policy, sandbox and profile come from its parent: the UI cannot raise them.
    await expect(svc.setPolicy({ conversationId: a.conversation_id, policy: 'high-risk' })).rejects.toThrow(/comes from its parent/);
    await expect(svc.setSandbox({ conversationId: a.conversation_id, sandbox: 'off' })).rejects.toThrow(/comes from its parent/);
    await expect(svc.setConversationProfile({ conversationId: a.conversation_id, profile: 'default' })).rejects.toThrow(/come from its parent/);
    expect(app!.store.getConversation(a.conversation_id)).toMatchObject({ policy: 'read-only' });
    // Nor start a turn in it (a message, an edit, a regenerate): its parent agent runs it.
    const runsBefore = app!.store.runsForConversation(a.conversation_id).length;
    await expect(svc.sendMessage({ conversationId: a.conversation_id, text: 'do something else' })).rejects.toThrow(/its parent agent runs it/);
    await expect(svc.regenerate({ conversationId: a.conversation_id })).rejects.toThrow(/its parent agent runs it/);
    expect(app!.store.runsForConversation(a.conversation_id)).toHaveLength(runsBefore);

    // Bad input is refused in words.
    await expect(svc.steerSubagent({ subagentId: b.id, message: 'too late' })).rejects.toThrow(/already cancelled/);
    await expect(svc.cancelSubagent({ subagentId: 'sub_00000000' })).rejects.toThrow(/No subagent sub_00000000/);
  }, 90_000);

  it('shows children of children with their depth and parent child', async () => {
    const { conv, a } = await twoChildren(reply().tool('get_time', {}));
    // Children cannot start children through tools today (PARENT_ONLY_TOOLS); a grandchild row is planted the way a
    // coordinator (issue 22) would link one: under alpha's conversation.
    const grandConv = app!.runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only', title: 'Subagent: grand' });
    app!.runtime.setFamilies(grandConv.id, ['subagents'], true); // loaded from the first request, as a person enabling them would
    app!.store.module(subagentsModule).insert({
      id: 'sub_0000aaaa',
      parent_conversation_id: a.conversation_id,
      parent_run_id: null,
      parent_call_id: null,
      root_conversation_id: conv.id,
      conversation_id: grandConv.id,
      task_id: null,
      type: 'explore',
      description: 'grandchild',
      prompt: 'x',
      background: 1,
      policy: 'read-only',
      tools: '[]',
      result_schema: null,
      limits: '{}',
      owner_pid: process.pid,
      owner_start: null,
    });
    const tree = await app!.service.listSubagents({ conversationId: conv.id });
    expect(tree.subagents.find((s) => s.id === 'sub_0000aaaa')).toMatchObject({ depth: 1, parentSubagentId: a.id, parentConversationId: a.conversation_id });
    // From alpha's own view, the grandchild is its child.
    const fromAlpha = await app!.service.listSubagents({ conversationId: a.conversation_id });
    expect(fromAlpha.subagents.map((s) => [s.id, s.depth])).toEqual([['sub_0000aaaa', 0]]);
  }, 90_000);
});

describe('`deskhand subagents steer | wait` from another process', () => {
  it('steers a running child and waits for its answer', async () => {
    requireBuild();
    // Alpha's first step asks to write a file: it waits for that approval, which is the window to steer it in.
    const { dataDir, a, alphaRequests } = await twoChildren(reply().tool('write_file', { path: 'x.txt', content: 'x' }), 'coder');
    const pending = await until('alpha to ask', async () => (await app!.service.listPendingApprovals({})).approvals.find((p) => p.subagent?.id === a.id));
    expect((await app!.service.listSubagents({ conversationId: a.parent_conversation_id })).subagents.find((s) => s.id === a.id)?.status).toBe('waiting');
    const steer = await runCli(['subagents', 'steer', a.id, 'Answer', 'in', 'French.', '--data-dir', dataDir]);
    expect(steer.stderr).toBe('');
    expect(steer.code).toBe(0);
    expect(steer.stdout).toContain(`Sent to ${a.id}`);
    await app!.service.decideApproval({ approvalId: pending.approvalId, decision: 'deny' });
    const wait = await runCli(['subagents', 'wait', a.id, '--timeout', '60', '--data-dir', dataDir]);
    expect(wait.stderr).toBe('');
    expect(wait.code).toBe(0);
    expect(wait.stdout).toMatch(new RegExp(`${a.id}\\s+finished`));
    expect(wait.stdout).toContain('alpha answer');
    expect(alphaRequests[1]).toContain('[Message from the person you work for (the user, through Deskhand), not from your parent agent; sent while you work]\nAnswer in French.');
    const missing = await runCli(['subagents', 'steer', a.id, '--data-dir', dataDir]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('needs a subagent id and a message');
  }, 120_000);
});
