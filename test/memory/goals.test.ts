/**
 * Goals through the real loop: the person accepts a proposed goal, then the goal loop (host/background/goal-loop.ts) runs cycles
 * unattended against the scripted model server. One completes with evidence that matches a real tool result; one
 * uses up its turn budget; one is blocked only after three consecutive blocked cycles; one cites a result that does
 * not exist, which is rejected back to the model and recorded nowhere.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GoalLoop } from '../../src/main/host/background/goal-loop';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import type { GoalView } from '../../src/main/services/goals';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { until } from '../support/tasks';
import { providerFor, systemOf, toolResultsOf, toolsOf } from './helpers';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
let loop: GoalLoop | null;
let work: string;
const stopped: GoalView[] = [];
const provider = () => providerFor(server.baseURL);

beforeEach(async () => {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, maxRetries: 0 });
  stopped.length = 0;
  loop = new GoalLoop({ runtime, provider: () => provider(), onGoalStopped: (g) => stopped.push(g) }).start();
});

afterEach(async () => {
  await loop?.stop();
  await runtime.tasks.shutdown();
  store.close();
  await server.close();
});

/** Proposes a goal in a first turn and accepts it; returns the conversation id once the first turn finished. */
async function acceptedGoal(budget: Record<string, number>, ...cycles: ReturnType<typeof reply>[]): Promise<string> {
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  runtime.setFamilies(conv.id, ['goals'], true); // loaded from the first request, as a person enabling them would
  server.enqueue(reply().tool('propose_goal', { objective: 'Make the greeting print hello-goal', criteria: ['echo prints hello-goal'], budget }, { id: 'g1' }));
  const first = await runtime.sendMessage(conv.id, 'Keep at it until the greeting prints hello-goal.', { provider: provider(), interactive: false });
  expect(first.status).toBe('parked');
  const request = store.getApproval(first.approvalIds[0]!)!;
  expect(request.kind).toBe('goal');
  // Nothing runs before the person accepts: no goal exists yet.
  expect(runtime.goals.current(conv.id)).toBeNull();
  server.enqueue(reply().text('Accepted; starting.'), ...cycles);
  await runtime.answerRequest(request.id, { accept: true }, { provider: provider(), interactive: false });
  return conv.id;
}

const settle = async (conversationId: string) => {
  if (process.env.GOAL_DEBUG) {
    await new Promise((r) => setTimeout(r, 3000));
    console.log(JSON.stringify({ goal: runtime.goals.current(conversationId), reqs: server.requests.length, runs: store.runsForConversation(conversationId).map((r) => [r.id, r.status, r.error]), calls: store.toolCallsForConversation(conversationId).map((c) => [c.call_id, c.tool, c.status, c.output?.slice(0, 200)]) }, null, 1));
  }
  // The loop reports a stopped goal once its last cycle is counted.
  await until(() => stopped.some((g) => g.conversationId === conversationId), 'the goal to stop', 20_000);
  await loop!.idle();
};

describe('goal loops', () => {
  it('runs to completion with evidence checked against the cited result', async () => {
    const conv = await acceptedGoal(
      { turns: 5 },
      reply().tool('execute_command', { command: 'echo hello-goal', description: 'greet' }, { id: 'e1' }),
      reply().tool('report_goal_cycle', { status: 'complete', summary: 'It prints hello-goal.', evidence: [{ call_id: 'e1', quote: 'hello-goal' }] }, { id: 'r1' }),
      reply().text('Done.'),
    );
    await settle(conv);
    const g = runtime.goals.current(conv)!;
    expect(g.status).toBe('complete');
    expect(g.endedReason).toBe('It prints hello-goal.');
    expect(g.cycles).toHaveLength(1);
    expect(g.cycles[0]).toMatchObject({ n: 1, reported: 'complete', evidence: [{ call_id: 'e1', quote: 'hello-goal' }] });
    expect(g.used.turns).toBe(1);
    expect(g.used.tokens).toBeGreaterThan(0);
    // The cycle turn was started by Deskhand with the goal, and offered the loop's tools.
    const cycleRequest = server.requests[2]!;
    expect(JSON.stringify(cycleRequest.body)).toContain('[goal cycle 1 of');
    expect(toolsOf(cycleRequest)).toEqual(expect.arrayContaining(['report_goal_cycle', 'end_loop', 'get_goal']));
    expect(toolsOf(cycleRequest)).not.toContain('propose_goal');
    expect(systemOf(cycleRequest)).toContain('This conversation pursues a goal the person accepted');
    expect(server.requests).toHaveLength(5); // propose, accepted, three steps of cycle 1; nothing after completion
    expect(stopped.map((s) => s.status)).toContain('complete');
  });

  it('stops when the turn budget is used up', async () => {
    const cont = (n: number) => [reply().tool('report_goal_cycle', { status: 'continue', summary: `cycle ${n}` }), reply().text(`cycle ${n} done`)];
    const conv = await acceptedGoal({ turns: 2 }, ...cont(1), ...cont(2));
    await settle(conv);
    const g = runtime.goals.current(conv)!;
    expect(g.status).toBe('exhausted');
    expect(g.endedReason).toBe('turn budget used up (2/2 turns)');
    expect(g.cycles.map((c) => c.reported)).toEqual(['continue', 'continue']);
    expect(server.requests).toHaveLength(2 + 4);
  });

  it('is blocked only after three consecutive blocked cycles', async () => {
    const blocked = (n: number) => [reply().tool('report_goal_cycle', { status: 'blocked', summary: `no access ${n}` }, { id: `b${n}` }), reply().text('blocked')];
    const conv = await acceptedGoal({ turns: 10 }, ...blocked(1), ...blocked(2), ...blocked(3));
    await settle(conv);
    const g = runtime.goals.current(conv)!;
    expect(g.status).toBe('blocked');
    expect(g.consecutiveBlocked).toBe(3);
    expect(g.cycles.map((c) => c.reported)).toEqual(['blocked', 'blocked', 'blocked']);
    const outputs = new Map(store.toolCallsForConversation(conv).map((c) => [c.call_id, c.output]));
    expect(outputs.get('b1')).toMatch(/Blocked cycle 1 of 3 noted; the goal stays active/);
    expect(outputs.get('b2')).toMatch(/Blocked cycle 2 of 3/);
    expect(outputs.get('b3')).toMatch(/Goal blocked after 3 consecutive blocked cycles/);
  });

  it('rejects evidence that cites a result which does not exist, or does not say what is quoted', async () => {
    const conv = await acceptedGoal(
      { turns: 1 },
      reply().tool('execute_command', { command: 'echo something-else', description: 'greet' }, { id: 'e1' }),
      reply().tool('report_goal_cycle', { status: 'complete', summary: 'Done!', evidence: [{ call_id: 'call_does_not_exist', quote: 'hello-goal' }] }, { id: 'r1' }),
      reply().tool('report_goal_cycle', { status: 'complete', summary: 'Done!', evidence: [{ call_id: 'e1', quote: 'hello-goal' }] }, { id: 'r2' }),
      reply().tool('report_goal_cycle', { status: 'complete', summary: 'Done!' }, { id: 'r3' }),
      reply().text('I could not prove it.'),
    );
    await settle(conv);
    const results = toolResultsOf(server.requests.at(-1)!);
    expect(results.get('r1')).toMatch(/Evidence rejected, nothing was recorded:\n- call_does_not_exist: no tool result with this call id exists in this conversation/);
    expect(results.get('r2')).toMatch(/e1: the quote "hello-goal" is not in that result's output/);
    expect(results.get('r3')).toMatch(/A complete report needs evidence/);
    const g = runtime.goals.current(conv)!;
    // Not complete: the claim was rejected; the cycle counts as unreported and the one-turn budget ends the goal.
    expect(g.status).toBe('exhausted');
    expect(g.cycles).toMatchObject([{ n: 1, reported: 'unreported', evidence: [] }]);
  });

  it('parks on an approval and continues once it is answered; set_goal_budget may lower but never raise', async () => {
    const conv = await acceptedGoal(
      { turns: 3 },
      reply().tool('set_goal_budget', { value: 9, unit: 'turns' }, { id: 's1' }),
      reply().tool('set_goal_budget', { value: 2, unit: 'turns' }, { id: 's2' }),
      reply().tool('write_file', { path: `${work}/out.txt`, content: 'x\n' }, { id: 'w1' }),
    );
    await until(() => store.latestRunForConversation(conv)?.status === 'parked', 'the cycle to park', 20_000);
    expect(runtime.goals.current(conv)!.status).toBe('active');
    const calls = new Map(store.toolCallsForConversation(conv).map((c) => [c.call_id, c]));
    expect(calls.get('s1')!.output).toMatch(/Only the person can raise the turns budget \(now 3\)/);
    expect(calls.get('s2')!.output).toBe('Budget: turns 0/2');
    const parked = store.latestRunForConversation(conv)!;
    const [approval] = store.pendingApprovals(parked.id);
    server.enqueue(reply().tool('report_goal_cycle', { status: 'continue', summary: 'wrote it' }), reply().text('ok'), reply().tool('end_loop', { reason: 'enough for today' }), reply().text('bye'));
    await runtime.decideApproval(approval!.id, { approved: true }, { provider: provider(), interactive: false });
    await settle(conv);
    const g = runtime.goals.current(conv)!;
    expect(g.status).toBe('ended');
    expect(g.endedReason).toBe('enough for today');
    expect(g.cycles.map((c) => c.reported)).toEqual(['continue', 'unreported']);
  });
});
