/**
 * The workflow tool through the real loop: the scripted model server plays the parent and the workflow's children
 * (told apart by their prompts), the real runtime and subagent service run them, and effects are checked in the
 * store, the recorded model requests and the task table.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TaskWakes } from '../../src/main/host/background/task-wakes';
import { workflowGroup } from '../../src/main/host/app/groups/workflows';
import type { HandlerContext } from '../../src/main/host/app/handler-groups';
import { contract } from '../../src/shared/contract';
import { workflowsModule, type WorkflowRow } from '../../src/main/services/store/modules/workflows';
import { reply, type RecordedRequest, type ReplyInput } from '../support/model-server';
import { allText, firstUser, lastMessage, openSubHarness, textOf, toolNames, type SubHarness } from '../subagents/harness';

let h: SubHarness;
let wakes: TaskWakes | null = null;
afterEach(async () => {
  await wakes?.stop();
  wakes = null;
  await h?.close();
});

/** Parent and children from separate queues, keyed by text in the request's first user message. */
function route(queues: Record<string, ReplyInput[]>, parent: ReplyInput[]): void {
  h.server.setFallback((req) => {
    const first = firstUser(req);
    for (const [key, q] of Object.entries(queues)) if (first.includes(key)) return q.shift() ?? { status: 500, message: `no reply left for ${key}` };
    return parent.shift() ?? { status: 500, message: 'no parent reply left' };
  });
}

const parentRequests = () => h.server.requests.filter((r) => !/CHILD/.test(firstUser(r)));

/** The workflow row once it is no longer running. */
function ended(rows: { get(id: string): WorkflowRow | undefined }, id: string): Promise<WorkflowRow> {
  return until(() => {
    const r = rows.get(id)!;
    return r.status !== 'running' ? r : null;
  });
}

async function until<T>(what: () => T | undefined | null | false, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const SCRIPT = `
const plan = await phase('Plan', async () => agent('CHILD plan: list two topics', { description: 'plan', type: 'explore', result_schema: { type: 'array', items: { type: 'string' } } }));
const found = await phase('Research', async () => {
  progress('researching ' + plan.length);
  return map(plan, 'CHILD research {{input}}', { description: 'research', type: 'explore' });
});
await blackboard.post('facts', found.map((f) => f.result).join(' + '));
return phase('Write', async () => agent('CHILD write from ' + (await blackboard.read({ topic: 'facts' }))[0].body, { description: 'write' }));
`;

describe('workflow', () => {
  it('returns at once, runs its phases in the background, and its result reaches the next turn as a notification', async () => {
    h = await openSubHarness();
    const parent: ReplyInput[] = [reply().tool('workflow', { script: SCRIPT, args: 'topic X' }), reply().text('Started; I will report when it ends.'), reply().text('The workflow wrote: FINAL REPORT.')];
    route(
      {
        'CHILD plan': [reply().text('["alpha","beta"]')],
        'CHILD research alpha': [reply().text('alpha is 1')],
        'CHILD research beta': [reply().text('beta is 2')],
        'CHILD write': [reply().text('FINAL REPORT')],
      },
      parent,
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['workflows', 'subagents'], true); // loaded from the first request, as a person enabling them would
    const out = await h.runtime.sendMessage(conv.id, 'research it', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('finished');
    // The call returned at once with the run and task ids.
    const toolResult = textOf(lastMessage(parentRequests()[1]!).content);
    const [, wfId, taskId] = /Started workflow (wf_[0-9a-f]{8}) \(inline script\) in the background as task (wf_[0-9a-f]{8})/.exec(toolResult)!;
    wakes = new TaskWakes({ runtime: h.runtime, provider: () => h.provider(), pollMs: 100 }).start();
    const rows = h.store.module(workflowsModule);
    const done = await until(() => {
      const r = rows.get(wfId!);
      return r && r.status !== 'running' ? r : null;
    });
    expect(done).toMatchObject({ status: 'finished', result: 'FINAL REPORT', agents: 4, task_id: taskId });
    const phases = JSON.parse(done.phases) as { name: string; status: string; output: string }[];
    expect(phases.map((p) => [p.name, p.status])).toEqual([['Plan', 'done'], ['Research', 'done'], ['Write', 'done']]);
    expect(JSON.parse(phases[0]!.output)).toEqual(['alpha', 'beta']);
    expect(phases[1]!.output).toContain('alpha is 1');
    expect(done.input_tokens + done.output_tokens).toBeGreaterThan(0);
    // The blackboard carried the research to the writer, whose prompt the server recorded.
    const writer = h.server.requests.find((r) => firstUser(r).includes('CHILD write'))!;
    expect(firstUser(writer)).toContain('CHILD write from alpha is 1 + beta is 2');
    // The writer is a coder child (its parent's tools, writes included) and still never gets the workflow tool.
    expect(toolNames(writer)).toContain('write_file');
    expect(toolNames(writer)).not.toContain('workflow');
    // Children never see the workflow tool (no nesting).
    for (const r of h.server.requests.filter((q) => firstUser(q).includes('CHILD'))) expect(toolNames(r)).not.toContain('workflow');
    expect(toolNames(h.server.requests[0]!)).toContain('workflow');
    // The completion woke the conversation: the next parent request carries the result.
    const wake = await until(() => parentRequests().find((r) => allText(r).includes(`[background task ${taskId} finished]`)));
    expect(allText(wake)).toContain('result:\nFINAL REPORT');
    expect(allText(wake)).toContain('phase Research [done]');
    expect(h.store.tasks.getTask(taskId!)!.status).toBe('finished');
    // What the workflows panel gets through the contract: phases with outputs, spend, result.
    const host = workflowGroup({ runtime: h.runtime } as unknown as HandlerContext);
    const { workflows } = contract.methods.listWorkflows.result.parse(await host.listWorkflows({ conversationId: conv.id }));
    expect(workflows).toHaveLength(1);
    expect(workflows[0]).toMatchObject({ id: wfId, status: 'finished', agents: 4, result: 'FINAL REPORT', phase: 'Write' });
    expect(workflows[0]!.phases.map((p) => p.name)).toEqual(['Plan', 'Research', 'Write']);
    const shown = contract.methods.getWorkflow.result.parse(await host.getWorkflow({ id: wfId! }));
    expect(shown.script).toBe(SCRIPT);
    expect(shown.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['phase', 'phase_output', 'progress', 'agent', 'end']));
  });

  it('asks the person below high-risk, showing phases, the whole script, resolved limits and a token warning', async () => {
    h = await openSubHarness();
    h.server.enqueue(reply().tool('workflow', { name: 'deep-research', args: 'Why is the sky blue?', max_agents: 7, max_cost_usd: 2 }));
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'low-risk' });
    h.runtime.setFamilies(conv.id, ['workflows', 'subagents'], true); // loaded from the first request, as a person enabling them would
    const out = await h.runtime.sendMessage(conv.id, 'research', { provider: h.provider(), interactive: false });
    expect(out.status).toBe('parked');
    const [approval] = h.store.pendingApprovals(out.runId);
    expect(approval!.description).toBe('Run the workflow deep-research in the background (4 phases), up to 7 agents');
    expect(approval!.preview).toContain('Phases: Plan → Research → Cross-check → Report');
    expect(approval!.preview).toContain('Limits: 60 minutes, 5,000,000 tokens, $2 estimated cost, 7 agents in all, 4 at once');
    expect(approval!.preview).toMatch(/Warning: a workflow runs many agents .* up to 5,000,000 tokens \(about \$2\)/);
    expect(approval!.preview).toContain("const question = String(args || '').trim();");
    expect(approval!.preview).toContain('Args: Why is the sky blue?');
    // Nothing started before the approval.
    expect(h.store.module(workflowsModule).list()).toEqual([]);
  });

  it('gives the model an actionable error for bad input', async () => {
    h = await openSubHarness();
    h.server.enqueue(
      reply().tool('workflow', { name: 'deep-research', script: 'return 1' }),
      reply().tool('workflow', { name: 'no-such-flow' }),
      reply().tool('workflow', {}),
      reply().text('ok'),
    );
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['workflows', 'subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    expect(textOf(lastMessage(h.server.requests[1]!).content)).toMatch(/Give exactly one of name .* or script/);
    expect(textOf(lastMessage(h.server.requests[2]!).content)).toMatch(/No catalog workflow "no-such-flow"; the catalog has deep-research, code-review/);
    expect(textOf(lastMessage(h.server.requests[3]!).content)).toMatch(/Give exactly one of name/);
  });

  it('a spent token budget stops the script and every child, and the conversation is told why', async () => {
    h = await openSubHarness({ workflows: { maxTokens: 1_000 } });
    const script = `
      const slow = await spawn('CHILD slow: never answers', { description: 'slow' });
      await agent('CHILD costly', { description: 'costly' });
      await wait(slow);
      return 'not reached';`;
    route({ 'CHILD slow': [reply().hang()], 'CHILD costly': [reply().text('spent a lot').usage({ input: 4_000, output: 500 })] }, [reply().tool('workflow', { script }), reply().text('started')]);
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['workflows', 'subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const rows = h.store.module(workflowsModule);
    const [wf] = rows.forConversation(conv.id);
    const done = await ended(rows, wf!.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/stopped at its budget of 1000 tokens \(spent 4500\)/);
    const children = h.runtime.subagents.list(conv.id);
    const slow = children.find((c) => c.description === 'slow')!;
    expect(slow.status).toBe('cancelled');
    expect(slow.error).toMatch(/its workflow stopped: stopped at its budget/);
    // The hanging child's run was stopped, not left waiting on the model.
    const childRuns = () => h.store.listRuns(500).filter((r) => r.conversation_id === slow.conversation_id);
    expect(childRuns().length).toBe(1);
    await until(() => childRuns().every((r) => r.status !== 'running'));
    const task = h.store.tasks.getTask(done.task_id!)!;
    expect(task.status).toBe('failed');
    expect(task.summary).toMatch(/budget/);
  });

  it('a throw in the script stops every child it started', async () => {
    h = await openSubHarness();
    const script = `
      const a = await spawn('CHILD hang one', { description: 'one' });
      const b = await spawn('CHILD hang two', { description: 'two' });
      await sleep(300);
      throw new Error('changed my mind');`;
    route({ 'CHILD hang': [reply().hang(), reply().hang()] }, [reply().tool('workflow', { script }), reply().text('started')]);
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['workflows', 'subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const rows = h.store.module(workflowsModule);
    const [wf] = rows.forConversation(conv.id);
    const done = await ended(rows, wf!.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/Error: changed my mind/);
    const children = await until(() => {
      const list = h.runtime.subagents.list(conv.id);
      return list.length === 2 && list.every((c) => c.status === 'cancelled') ? list : null;
    });
    expect(children.map((c) => c.error)).toEqual([expect.stringMatching(/its workflow stopped/), expect.stringMatching(/its workflow stopped/)]);
  });

  it('cancelling its task (cancel_background_jobs) stops the run and its children', async () => {
    h = await openSubHarness();
    const script = `await agent('CHILD hang forever', { description: 'forever' }); return 'no';`;
    const parent: ReplyInput[] = [reply().tool('workflow', { script }), reply().text('started')];
    route({ 'CHILD hang': [reply().hang()] }, parent);
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['workflows', 'subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const rows = h.store.module(workflowsModule);
    const [wf] = rows.forConversation(conv.id);
    await until(() => h.runtime.subagents.list(conv.id)[0]?.status === 'running');
    parent.push(reply().tool('cancel_background_jobs', { ids: [wf!.task_id] }), reply().text('cancelled'));
    await h.runtime.sendMessage(conv.id, 'stop it', { provider: h.provider(), interactive: false });
    const done = await ended(rows, wf!.id);
    expect(done.status).toBe('cancelled');
    expect(h.runtime.subagents.list(conv.id)[0]!.status).toBe('cancelled');
  });
});

export type { RecordedRequest };
