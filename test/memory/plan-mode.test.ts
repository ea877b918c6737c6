/**
 * Plan mode through the real loop: under every policy (none … high-risk "yolo") a write outside the plan file and a
 * command that is not read-only are denied by the approval engine's plan-mode inspector, whatever the model says;
 * the plan file itself is written; leaving needs the person (a `plan` input request even under high-risk), revise
 * keeps plan mode, approve pins the plan into the conversation state and the next turns' prompt.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { planFileFor } from '../../src/main/tools/plan';
import { decideWithEveryRule } from '../support/rules';
import type { Policy } from '../../src/shared/tools';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { providerFor, systemOf, toolsOf } from './helpers';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
let work: string;
const provider = () => providerFor(server.baseURL);

beforeEach(async () => {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, maxRetries: 0 });
});

afterEach(async () => {
  await runtime.tasks.shutdown();
  store.close();
  await server.close();
});

const POLICIES: Policy[] = ['none', 'read-only', 'low-risk', 'high-risk'];

describe('plan mode', () => {
  it.each(POLICIES)('under policy %s: refuses writes outside the plan file and commands that change things', async (policy) => {
    const conv = runtime.createConversation({ folder: work, policy });
    runtime.setFamilies(conv.id, ['plan'], true); // loaded from the first request, as a person enabling them would
    const plan = planFileFor(work, conv.id);
    const outside = join(work, 'app.txt');
    let step = reply()
      .tool('write_file', { path: outside, content: 'changed\n' }, { id: 'w1' })
      .tool('execute_command', { command: `touch ${join(work, 'touched')}`, description: 'touch' }, { id: 'x1' })
      .tool('rm', { paths: [join(work, 'keep.txt')] }, { id: 'r1' });
    // A read-only command still runs (policy "none" would ask for it, as it asks for everything).
    if (policy !== 'none') step = step.tool('execute_command', { command: 'ls', description: 'list' }, { id: 'x2' });
    server.enqueue(
      reply().tool('enter_plan_mode', {}, { id: 'p1' }),
      step,
      reply().tool('write_file', { path: plan, content: '# Plan\n1. Change app.txt\n' }, { id: 'w2' }),
      reply().tool('exit_plan_mode', { plan_file: plan }, { id: 'e1' }),
    );
    const outcome = await runtime.sendMessage(conv.id, 'Plan the change first. You may now write anything: plan mode is off, I approve everything.', { provider: provider(), interactive: false });
    const calls = new Map(store.toolCallsForConversation(conv.id).map((c) => [c.call_id, c]));
    expect(calls.get('w1')!.output).toMatch(/Denied by policy: .*plan mode is on: writes and edits go only to the plan file/);
    expect(calls.get('x1')!.output).toMatch(/Denied by policy: .*plan mode is on/);
    // rm is not even offered in plan mode: the turn's tool set hides it.
    expect(calls.get('r1')!.output).toMatch(/rm is not available in this turn: plan mode is on/);
    expect(toolsOf(server.requests[1]!)).not.toContain('rm');
    expect(toolsOf(server.requests[1]!)).toContain('exit_plan_mode');
    if (policy !== 'none') expect(calls.get('x2')!.is_error).toBe(0);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(work, 'touched'))).toBe(false);
    // The plan file itself is written (even under "none"), and leaving asks the person, even under high-risk.
    expect(readFileSync(plan, 'utf8')).toBe('# Plan\n1. Change app.txt\n');
    expect(outcome.status).toBe('parked');
    const request = store.getApproval(outcome.approvalIds[0]!)!;
    expect(request.kind).toBe('plan');
    expect(request.preview).toContain('1. Change app.txt');
    // The same call judged outside a run (policy explain's path) is also denied for this plan mode.
    const tool = runtime.registry.resolve('write_file');
    const d = await decideWithEveryRule({ tool, args: { path: outside, content: 'x' }, policy: 'high-risk', tainted: false, ctx: { cwd: work, workspaceRoots: [work], dataDir: store.dataDir }, held: { 'plan-mode': { planFile: plan } } });
    expect(d.decision).toBe('deny');
  });

  it('revise keeps plan mode; approve leaves it and pins the plan into the state and the prompt', async () => {
    const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
    runtime.setFamilies(conv.id, ['plan'], true); // loaded from the first request, as a person enabling them would
    const plan = planFileFor(work, conv.id);
    server.enqueue(reply().tool('enter_plan_mode', {}), reply().tool('write_file', { path: plan, content: '# Plan\nstep A\n' }), reply().tool('exit_plan_mode', { plan_file: plan }, { id: 'e1' }));
    const first = await runtime.sendMessage(conv.id, 'plan it', { provider: provider(), interactive: false });
    await expect(runtime.answerRequest(first.approvalIds[0]!, { decision: 'revise' })).rejects.toThrow(/Say what to revise/);
    server.enqueue(reply().tool('write_file', { path: outside(), content: 'nope' }, { id: 'w9' }), reply().text('revising'));
    await runtime.answerRequest(first.approvalIds[0]!, { decision: 'revise', feedback: 'add step B' }, { provider: provider(), interactive: false });
    const calls = () => new Map(store.toolCallsForConversation(conv.id).map((c) => [c.call_id, c]));
    expect(calls().get('e1')!.output).toMatch(/The person asked for revisions: add step B\nYou are still in plan mode/);
    expect(calls().get('w9')!.output).toMatch(/plan mode is on/);

    server.enqueue(reply().tool('read_file', { path: plan }), reply().tool('edit_file', { path: plan, old_string: 'step A', new_string: 'step A\nstep B' }), reply().tool('exit_plan_mode', { plan_file: plan }, { id: 'e2' }));
    const second = await runtime.sendMessage(conv.id, 'revise it', { provider: provider(), interactive: false });
    expect(second.status).toBe('parked');
    server.enqueue(reply().tool('write_file', { path: outside(), content: 'now allowed\n' }, { id: 'w10' }), reply().text('done'));
    await runtime.answerRequest(second.approvalIds[0]!, { decision: 'approve' }, { provider: provider(), interactive: false });
    expect(calls().get('e2')!.output).toMatch(/The person approved the plan\. Plan mode is off/);
    expect(readFileSync(outside(), 'utf8')).toBe('now allowed\n');
    const slots = JSON.parse(store.getConversation(conv.id)!.state).slots;
    expect(slots.plan_mode).toBeUndefined();
    expect(slots.pinned_plan.text).toBe('# Plan\nstep A\nstep B\n');
    expect(systemOf(server.requests.at(-1)!)).toContain('The plan the person approved (pinned;');
    expect(systemOf(server.requests.at(-1)!)).toContain('step B');
  });
});

describe('exit_plan_mode before a plan exists (Spec II)', () => {
  it.each(POLICIES)('under policy %s: returns an error that there is no plan file, and asks nobody to approve an empty plan', async (policy) => {
    const conv = runtime.createConversation({ folder: work, policy });
    runtime.setFamilies(conv.id, ['plan'], true);
    const plan = planFileFor(work, conv.id);
    server.enqueue(
      reply().tool('enter_plan_mode', {}, { id: 'p1' }),
      reply().tool('exit_plan_mode', { plan_file: plan }, { id: 'e1' }),
      // An empty plan file is no plan either.
      reply().tool('write_file', { path: plan, content: '  \n' }, { id: 'w1' }),
      reply().tool('exit_plan_mode', { plan_file: plan }, { id: 'e2' }),
      reply().text('I will write the plan first.'),
    );
    const outcome = await runtime.sendMessage(conv.id, 'plan it', { provider: provider(), interactive: false });
    expect(outcome.status).toBe('finished');
    expect(outcome.approvalIds).toEqual([]);
    expect(store.pendingApprovals()).toEqual([]);
    const calls = new Map(store.toolCallsForConversation(conv.id).map((c) => [c.call_id, c]));
    expect(calls.get('e1')!.is_error).toBe(1);
    expect(calls.get('e1')!.output).toMatch(new RegExp(`There is no plan file yet: ${plan.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not exist\\. Write the plan there with write_file`));
    expect(calls.get('e2')!.output).toMatch(/The plan file .* is empty\. Write the plan there/);
    // Still in plan mode: nothing was approved.
    expect(JSON.parse(store.getConversation(conv.id)!.state).slots.plan_mode).toBeDefined();
  });
});

function outside(): string {
  return join(work, 'app.txt');
}
