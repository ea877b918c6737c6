/**
 * Goals through the real loop: the person accepts a proposed goal, then the goal loop (host/background/goal-loop.ts) runs cycles
 * unattended against the scripted model server. One completes with evidence that matches a real tool result; one
 * uses up its turn budget; one is blocked only after three consecutive blocked cycles; one cites a result that does
 * not exist, which is rejected back to the model and recorded nowhere.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GoalLoop, goalNotification, startGoalLoop } from '../../src/main/host/background/goal-loop';
import { budgetActionAnswer, startBudgetNotices } from '../../src/main/host/background/budget-notice';
import { usageModule } from '../../src/main/services/store/modules/usage';
import type { NotificationSpec } from '../../src/main/services/notify';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { describeEstimate, type GoalView } from '../../src/main/services/goals';
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

/**
 * The person's turn (interactive: they are there to answer) proposes a goal and they accept it while the turn waits;
 * returns once that turn finished.
 */
async function proposeAndAccept(conversationId: string, args: Record<string, unknown>, beforeAccept: () => void, ...after: ReturnType<typeof reply>[]): Promise<void> {
  server.enqueue(reply().tool('propose_goal', args, { id: `g${server.requests.length}` }));
  const turn = runtime.sendMessage(conversationId, 'Keep at it until the greeting prints hello-goal.', { provider: provider(), interactive: true });
  const request = await until(() => store.pendingApprovals().find((a) => store.getRun(a.run_id)?.conversation_id === conversationId), 'the goal to be proposed');
  expect(request.kind).toBe('goal');
  beforeAccept();
  server.enqueue(reply().text('Accepted; starting.'), ...after);
  await runtime.answerRequest(request.id, { accept: true });
  expect((await turn).status).toBe('finished');
}

/** Proposes a goal in a first turn and accepts it; returns the conversation id once the first turn finished. */
async function acceptedGoal(budget: Record<string, number>, ...cycles: ReturnType<typeof reply>[]): Promise<string> {
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  runtime.setFamilies(conv.id, ['goals'], true); // loaded from the first request, as a person enabling them would
  // Nothing runs before the person accepts: no goal exists while the request waits.
  await proposeAndAccept(conv.id, { objective: 'Make the greeting print hello-goal', criteria: ['echo prints hello-goal'], budget }, () => expect(runtime.goals.current(conv.id)).toBeNull(), ...cycles);
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

  it('a question stops the loop and asks the person; their answer starts the next cycle', async () => {
    const conv = await acceptedGoal(
      { turns: 5 },
      reply().tool('report_goal_cycle', { status: 'question', summary: 'Should the greeting go to stdout or to a file?' }, { id: 'q1' }),
      reply().text('Should the greeting go to stdout or to a file?'),
    );
    await until(() => stopped.some((g) => g.status === 'waiting'), 'the goal to wait for the person', 20_000);
    await loop!.idle();
    const waiting = runtime.goals.current(conv)!;
    expect(waiting.status).toBe('waiting');
    expect(waiting.endedReason).toBe('Should the greeting go to stdout or to a file?');
    expect(toolResultsOf(server.requests.at(-1)!).get('q1')).toMatch(/the loop stops after this turn and the person is asked/);
    // The loop started no further cycle: nothing more reached the model.
    const asked = server.requests.length;
    await new Promise((r) => setImmediate(r));
    await loop!.idle();
    expect(server.requests).toHaveLength(asked);
    expect(store.latestRunForConversation(conv)!.status).toBe('finished');

    // The person answers in the conversation: that turn, then the next cycle, which is told what was asked.
    server.enqueue(reply().text('Understood: stdout.'), reply().tool('end_loop', { reason: 'answered and done' }), reply().text('bye'));
    await runtime.sendMessage(conv, 'stdout, please', { provider: provider(), interactive: true });
    await until(() => runtime.goals.current(conv)!.status === 'ended', 'the resumed cycle to end the loop', 20_000);
    await loop!.idle();
    const cycle = server.requests[asked + 1]!;
    const lastUser = cycle.protocol === 'openai' ? JSON.stringify(cycle.body.messages.filter((m) => m.role === 'user').at(-1)) : '';
    expect(lastUser).toContain('[goal cycle 2 of');
    expect(lastUser).toContain('The last cycle asked the person: Should the greeting go to stdout or to a file?');
    expect(runtime.goals.current(conv)!.cycles.map((c) => c.reported)).toEqual(['question', 'unreported']);
  });

  it('the host tells the person when a goal asks them something: headline and title in public, the question as private detail', async () => {
    await loop!.stop();
    const shown: NotificationSpec[] = [];
    loop = startGoalLoop(runtime, () => provider(), undefined, { warn: () => {} }, { notify: async (spec) => (shown.push(spec), { id: String(shown.length), via: 'test' }) });
    const conv = await acceptedGoal(
      { turns: 5 },
      reply().tool('report_goal_cycle', { status: 'question', summary: 'Which port should the greeting server use?' }, { id: 'q1' }),
      reply().text('Which port should the greeting server use?'),
    );
    await until(() => shown.length > 0, 'the person to be told', 20_000);
    await loop.idle();
    expect(runtime.goals.current(conv)!.status).toBe('waiting');
    expect(shown).toHaveLength(1);
    const title = store.getConversation(conv)!.title;
    expect(shown[0]).toMatchObject({ title: 'A goal asks you something', category: 'deskhand.goal', urgency: 'critical', target: { kind: 'conversation', id: conv } });
    expect(shown[0]!.body).toBe(`In “${title}”: Make the greeting print hello-goal`);
    expect(shown[0]!.privateBody).toBe('Which port should the greeting server use?');
    expect(shown[0]!.body).not.toContain('port');
  });

  it("a goal's token budget parks the cycle before the call that would cross it; the notification's Raise continues it where it stood", async () => {
    const shown: NotificationSpec[] = [];
    const actions = new Set<(action: string, spec: NotificationSpec) => void>();
    const notifier = { notify: async (spec: NotificationSpec) => (shown.push(spec), { id: String(shown.length), via: 'test' }), onAction: (l: (a: string, s: NotificationSpec) => void) => (actions.add(l), () => void actions.delete(l)) };
    const resumed: Promise<unknown>[] = [];
    const off = startBudgetNotices(runtime, notifier, async (holdId, value) => void resumed.push(runtime.answerBudgetHold(holdId, value, { provider: provider(), interactive: false })), { warn: () => {} });
    const u = { input: 100, output: 10 };
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    runtime.setFamilies(conv.id, ['goals'], true);
    // Every call reports 110 tokens; the goal's 400 count from its acceptance: the accepting reply, then two cycle
    // steps (330 spent), and the third step's estimate (the last call's 110) would cross it.
    server.enqueue(reply().tool('propose_goal', { objective: 'Greet', criteria: ['echo prints hi'], budget: { tokens: 400 } }, { id: 'pg' }).usage(u));
    const turn = runtime.sendMessage(conv.id, 'Greet until it prints hi.', { provider: provider(), interactive: true });
    const request = await until(() => store.pendingApprovals().find((a) => store.getRun(a.run_id)?.conversation_id === conv.id), 'the goal to be proposed');
    server.enqueue(
      reply().text('Accepted.').usage(u),
      reply().tool('execute_command', { command: 'echo hi', description: 'greet' }, { id: 'e1' }).usage(u),
      reply().tool('report_goal_cycle', { status: 'continue', summary: 'printed hi' }, { id: 'r1' }).usage(u),
    );
    await runtime.answerRequest(request.id, { accept: true });
    expect((await turn).status).toBe('finished');
    await until(() => store.latestRunForConversation(conv.id)?.status === 'parked', 'the cycle to park on the goal budget', 20_000);
    await loop!.idle();
    expect(server.requests).toHaveLength(4); // nothing was asked past the budget
    const goal = runtime.goals.current(conv.id)!;
    expect(goal.status).toBe('active'); // paused, not exhausted
    const [hold] = store.module(usageModule).pendingHolds();
    expect(hold).toMatchObject({ scope: 'goal', scope_id: goal.id, unit: 'tokens', spent: 330, limit_value: 400 });
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ title: 'A goal paused on its budget', category: 'deskhand.budget', target: { kind: 'conversation', id: conv.id } });
    expect(shown[0]!.privateBody).toBe("Budget reached: 330 tokens spent of 400 tokens (this goal's budget) — raise it, or stop.");
    expect(shown[0]!.actions?.map((a) => a.id)).toEqual(['raise', 'stop', 'open']);

    // The person presses "Double it and continue": the goal's budget is 800 and the cycle goes on from its third step.
    server.enqueue(reply().text('cycle 1 done').usage(u), reply().tool('end_loop', { reason: 'enough' }).usage(u), reply().text('bye').usage(u));
    for (const l of actions) l('raise', shown[0]!);
    await until(() => resumed.length === 1, 'the answer');
    await resumed[0];
    await until(() => runtime.goals.current(conv.id)!.status === 'ended', 'the goal to end', 20_000);
    await loop!.idle();
    off();
    expect(runtime.goals.current(conv.id)!.budget.tokens).toBe(800);
    expect(store.module(usageModule).hold(hold!.id)!.status).toBe('raised');
    // The resumed request is the one that was not made: it carries the report's result, asked once.
    expect(toolResultsOf(server.requests[4]!).has('r1')).toBe(true);
    expect(server.requests).toHaveLength(7);
    expect(runtime.goals.current(conv.id)!.endedReason).toBe('enough');
  });

  it("the acceptance card carries an estimate from the goal's plan and the recent cost per step", async () => {
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    runtime.setFamilies(conv.id, ['goals'], true);
    // Earlier work: two turns of two steps each, 1,000 tokens a step (gpt-test has no price: the cost is unknown).
    for (let i = 0; i < 2; i++) {
      server.enqueue(reply().tool('get_time', {}).usage({ input: 900, output: 100 }), reply().text('ok').usage({ input: 950, output: 50 }));
      await runtime.sendMessage(conv.id, `turn ${i}`, { provider: provider(), interactive: true });
    }
    server.enqueue(reply().tool('propose_goal', { objective: 'Ship the greeting', criteria: ['prints hi'], milestones: ['write it', 'test it', 'release it'], budget: { turns: 10 } }).usage({ input: 900, output: 100 }));
    const turn = runtime.sendMessage(conv.id, 'Ship it over a few turns.', { provider: provider(), interactive: true });
    const request = await until(() => store.pendingApprovals().find((a) => store.getRun(a.run_id)?.conversation_id === conv.id), 'the goal to be proposed');
    // 5 calls over 3 turns (the proposing turn's first step counts): 5/3 steps a cycle, 3 cycles (one per milestone).
    const expected = 'Estimate: about 5,000 tokens, cost unknown (a model without a price): 3 cycles (one per milestone) × 1.7 steps × 1,000 tokens per step, from the last 5 model calls.';
    expect((JSON.parse(request.request!) as { estimate?: string }).estimate).toBe(expected);
    expect(request.preview).toContain(expected);
    store.module(usageModule).setPrice({ model: 'gpt-test', input_per_mtok: 100, output_per_mtok: 1000, cache_read_per_mtok: 0, cache_write_per_mtok: 0 });
    const priced = describeEstimate(runtime.goals.estimate(conv.id, { criteria: 1, milestones: 0, turns: 10 }));
    // 1 cycle × 5/3 steps × ($0.46 for 4,600 input + $0.40 for 400 output)/5 per step = $0.29 at $100 / $1,000 per million.
    expect(priced).toBe('Estimate: about 1,667 tokens, ≈ $0.29: 1 cycle (one per criterion) × 1.7 steps × 1,000 tokens per step, from the last 5 model calls.');
    expect(describeEstimate(runtime.goals.estimate('conv_nothing', { criteria: 2, milestones: 0, turns: 1 }))).toMatch(/^Estimate: about/); // everyone's recent calls
    server.enqueue(reply().text('Not now.'));
    await runtime.decideApproval(request.id, { approved: false, reason: 'later' });
    expect((await turn).status).toBe('finished');
  });

  it('a notification action answers a budget hold: raise doubles the limit in its unit, stop stops; other actions do nothing', () => {
    expect(budgetActionAnswer({ unit: 'usd', limit_value: 0.5 }, 'raise')).toEqual({ usd: 1 });
    expect(budgetActionAnswer({ unit: 'tokens', limit_value: 1001 }, 'raise')).toEqual({ tokens: 2002 });
    expect(budgetActionAnswer({ unit: 'tokens', limit_value: 10 }, 'stop')).toEqual({ stop: true });
    for (const a of ['open', 'dismiss', 'default', '']) expect(budgetActionAnswer({ unit: 'usd', limit_value: 1 }, a)).toBeNull();
  });

  it('what a goal notification says is redacted, and the reason of a stopped goal is private detail', () => {
    const goal = { id: 'goal_1', conversationId: 'conv_1', objective: 'Ship with key sk-SECRET', criteria: [], status: 'blocked', budget: {}, used: {}, consecutiveBlocked: 3, endedReason: 'The key sk-SECRET is refused', cycles: [], createdAt: 0 } as unknown as Parameters<typeof goalNotification>[0];
    const spec = goalNotification(goal, 'Release', (t) => t.replaceAll('sk-SECRET', '[REDACTED]'));
    expect(spec).toMatchObject({ title: 'A goal is blocked', body: 'In “Release”: Ship with key [REDACTED]', privateBody: 'The key [REDACTED] is refused', urgency: 'critical' });
    expect(goalNotification({ ...goal, status: 'complete', endedReason: null }, 'Release', (t) => t)).not.toHaveProperty('privateBody');
  });

  it('a blocked verdict (the objective is unsafe) blocks in the same cycle; a verdict needs status blocked', async () => {
    const conv = await acceptedGoal(
      { turns: 10 },
      reply().tool('report_goal_cycle', { status: 'continue', summary: 'x', verdict: 'unsafe' }, { id: 'v0' }),
      reply().tool('report_goal_cycle', { status: 'blocked', summary: 'It asks me to disable the firewall on a shared server.', verdict: 'unsafe' }, { id: 'v1' }),
      reply().text('I will not do this.'),
    );
    await settle(conv);
    const g = runtime.goals.current(conv)!;
    expect(g.status).toBe('blocked');
    expect(g.endedReason).toBe('The objective is unsafe: It asks me to disable the firewall on a shared server.');
    expect(g.cycles).toHaveLength(1);
    const results = toolResultsOf(server.requests.at(-1)!);
    expect(results.get('v0')).toMatch(/A verdict goes only with status blocked \(got continue\)/);
    expect(results.get('v1')).toMatch(/Goal blocked now: the objective is unsafe/);
  });

  it('propose_goal with replace swaps the open goal once the person accepts; without replace it is refused before anyone is asked', async () => {
    const conv = await acceptedGoal({ turns: 5 }, reply().tool('report_goal_cycle', { status: 'question', summary: 'Which greeting?' }), reply().text('Which greeting?'));
    await until(() => runtime.goals.current(conv)?.status === 'waiting', 'the first goal to wait', 20_000);
    await loop!.idle();
    const first = runtime.goals.current(conv)!;

    // Without replace: an error the model can act on, and no request for the person.
    server.enqueue(reply().tool('propose_goal', { objective: 'Print goodbye instead', criteria: ['echo prints goodbye'] }, { id: 'p1' }), reply().text('It needs replace.'));
    await runtime.sendMessage(conv, 'Actually, print goodbye instead.', { provider: provider(), interactive: true });
    await loop!.idle();
    expect(toolResultsOf(server.requests.at(-1)!).get('p1')).toMatch(new RegExp(`already has a goal \\(${first.id}, waiting: .*\\)\\. Propose with replace: true`));
    expect(store.pendingApprovals()).toEqual([]);
    expect(runtime.goals.current(conv)!.id).toBe(first.id);

    // With replace: the person accepts; the old goal ends as replaced and the new one runs its cycles.
    await proposeAndAccept(conv, { objective: 'Print goodbye instead', criteria: ['echo prints goodbye'], budget: { turns: 3 }, replace: true }, () => {
      const req = store.pendingApprovals()[0]!;
      expect(req.preview).toMatch(/^Replaces this conversation's current goal/);
    }, reply().tool('end_loop', { reason: 'replaced goal done' }), reply().text('bye'));
    const replaced = runtime.goals.get(first.id)!;
    expect(replaced.status).toBe('ended');
    expect(replaced.endedReason).toMatch(/^Replaced by goal_\w+: Print goodbye instead$/);
    const now = runtime.goals.current(conv)!;
    expect(now.id).not.toBe(first.id);
    await until(() => runtime.goals.current(conv)!.status === 'ended', 'the new goal to end', 20_000);
    await loop!.idle();
    expect(runtime.goals.current(conv)!.endedReason).toBe('replaced goal done');
  });

  it('propose_goal is offered only in a turn the person is present for, never in a goal cycle; get_time counts the goal\'s time budget', async () => {
    const unattended = runtime.createConversation({ folder: work, policy: 'read-only' });
    runtime.setFamilies(unattended.id, ['goals'], true);
    server.enqueue(reply().text('nothing to propose'));
    await runtime.sendMessage(unattended.id, 'hello', { provider: provider(), interactive: false });
    expect(toolsOf(server.requests.at(-1)!)).not.toContain('propose_goal');
    expect(toolsOf(server.requests.at(-1)!)).toContain('get_goal');

    const conv = await acceptedGoal(
      { turns: 3, minutes: 30 },
      reply().tool('get_time', {}, { id: 't1' }),
      reply().tool('end_loop', { reason: 'checked the time' }),
      reply().text('bye'),
    );
    // The person's own (interactive) turn offered it: the proposal came from there.
    expect(toolsOf(server.requests[1]!)).toContain('propose_goal');
    await settle(conv);
    const cycleRequests = server.requests.slice(3);
    expect(cycleRequests.length).toBeGreaterThan(0);
    for (const req of cycleRequests) expect(toolsOf(req)).not.toContain('propose_goal');
    expect(toolsOf(cycleRequests[0]!)).toContain('report_goal_cycle');
    const time = JSON.parse(toolResultsOf(server.requests.at(-2)!).get('t1')!) as { workMinutesLeft?: number };
    expect(time.workMinutesLeft).toBeGreaterThanOrEqual(29);
    expect(time.workMinutesLeft).toBeLessThanOrEqual(30);
  });
});
