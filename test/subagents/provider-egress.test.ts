/**
 * Issue 43, L1: a child on a provider other than the conversation's sends its brief (and all it reads) to another
 * company's servers. Through the real loop and the scripted model server: in a tainted conversation, even under
 * high-risk, spawn_subagent and map_subagents on another provider ask before anything starts (the other provider's
 * endpoint receives nothing; the approval's reasons name the provider and its host); a child on the conversation's own
 * provider (another model) runs unasked in the same tainted conversation (control); untainted, the child on the other
 * provider runs, and the decision still names where it went.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { reply, type RecordedRequest } from '../support/model-server';
import { firstUser, openSubHarness, type SubHarness } from './harness';

let h: SubHarness;
afterEach(async () => {
  delete process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_BASE_URL;
  await h?.close();
});

/** A child's request: any on the other provider's wire, or an OpenAI one whose first user message is the brief. */
const isChild = (req: RecordedRequest) => req.protocol === 'anthropic' || (firstUser(req) ?? '').includes('CHILD TASK');

async function world(tainted: boolean) {
  h = await openSubHarness();
  process.env.ANTHROPIC_API_KEY = 'sk-ant-test';
  process.env.ANTHROPIC_BASE_URL = h.server.baseURL;
  const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
  h.runtime.setFamilies(conv.id, ['subagents'], true);
  if (tainted) h.store.updateConversation(conv.id, { tainted: 1 });
  return conv;
}
const host = () => new URL(h.server.baseURL).host;

describe('a subagent on another provider is egress', () => {
  it.each([
    ['spawn_subagent', { prompt: 'CHILD TASK: summarize', description: 'summarize', provider: 'anthropic', model: 'claude-test' }],
    ['map_subagents', { prompt_template: 'CHILD TASK: {{input}}', items: ['a', 'b'], description: 'summarize each', provider: 'anthropic', model: 'claude-test' }],
  ] as const)('%s in a tainted conversation asks under high-risk; the other provider receives nothing', async (tool, args) => {
    const conv = await world(true);
    h.server.enqueue(reply().tool(tool, args));
    const out = await h.runtime.sendMessage(conv.id, 'delegate', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('parked');
    const asked = h.store.getApproval(out.approvalIds[0]!)!;
    expect(asked.tool).toBe(tool);
    expect(asked.reasons).toContain(`the child runs on anthropic (${host()}), not on this conversation's provider`);
    expect(asked.reasons).toMatch(/untrusted content/);
    expect(h.server.requests.filter((r) => r.protocol === 'anthropic')).toEqual([]);
    expect(h.server.requests.filter(isChild)).toEqual([]);
  });

  it("a child on the conversation's own provider (another model) runs unasked in the same tainted conversation (control)", async () => {
    const conv = await world(true);
    h.server.enqueue(reply().tool('spawn_subagent', { prompt: 'CHILD TASK: summarize', description: 'summarize', provider: 'openai', model: 'gpt-mini-test' }), reply().text('child done'), reply().text('done'));
    const out = await h.runtime.sendMessage(conv.id, 'delegate', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('finished');
    expect(h.server.requests.filter(isChild).map((r) => r.protocol)).toEqual(['openai']);
  });

  it('untainted, the child on the other provider runs, and the decision names where it went', async () => {
    const conv = await world(false);
    h.server.enqueue(reply().tool('spawn_subagent', { prompt: 'CHILD TASK: summarize', description: 'summarize', provider: 'anthropic', model: 'claude-test' }), reply().text('claude done'), reply().text('done'));
    const out = await h.runtime.sendMessage(conv.id, 'delegate', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('finished');
    expect(h.server.requests.filter(isChild).map((r) => r.protocol)).toEqual(['anthropic']);
    const call = h.store.toolCallsForRun(out.runId).find((c) => c.tool === 'spawn_subagent')!;
    expect(call.reasons).toContain(`the child runs on anthropic (${host()})`);
  });
});
