/** The goal service over the store's goals module. */
import { randomUUID } from 'node:crypto';
import { DeskhandError } from '../../../shared/errors';
import type { Store } from '../store/store';
import { goalsModule, type GoalRow } from '../store/modules/goals';
import { costOf, priceTable } from '../../../shared/prices';
import { usageModule } from '../store/modules/usage';
import { BLOCKED_CYCLES, exhaustedBudget, type CycleReport, type GoalBudget, type GoalEstimate, type GoalService, type GoalUsed, type GoalView } from './index';

/** How many recent model calls an estimate is judged from. */
const ESTIMATE_CALLS = 50;

type Queries = ReturnType<typeof goalsModule.queries>;

export class StoreGoalService implements GoalService {
  private readonly q: Queries;

  constructor(private readonly store: Store) {
    this.q = store.module(goalsModule);
  }

  estimate(conversationId: string, plan: { criteria: number; milestones: number; turns: number }): GoalEstimate {
    const usage = this.store.module(usageModule);
    // This conversation's own recent calls when it has a few; else the person's recent work anywhere.
    const own = usage.recentCalls(ESTIMATE_CALLS, conversationId);
    const calls = own.length >= 3 ? own : usage.recentCalls(ESTIMATE_CALLS);
    const planned = plan.milestones > 0 ? plan.milestones : Math.max(1, plan.criteria);
    const cycles = Math.min(planned, plan.turns);
    const cyclesFrom = planned > plan.turns ? 'turn budget' : plan.milestones > 0 ? 'milestones' : 'criteria';
    if (calls.length === 0) return { cycles, cyclesFrom, stepsPerCycle: 0, tokensPerStep: 0, tokens: 0, costUsd: null, basedOnCalls: 0 };
    const table = priceTable(usage.prices());
    let tokens = 0;
    let cost: number | null = 0;
    for (const c of calls) {
      tokens += c.input_tokens + c.output_tokens;
      const usd = costOf(c.model, { inputTokens: c.input_tokens, outputTokens: c.output_tokens, cacheReadTokens: c.cache_read_tokens, cacheWriteTokens: c.cache_write_tokens }, table);
      cost = cost === null || usd === null ? null : cost + usd;
    }
    const stepsPerCycle = calls.length / new Set(calls.map((c) => c.root_run_id ?? c.id)).size;
    const steps = cycles * stepsPerCycle;
    return {
      cycles,
      cyclesFrom,
      stepsPerCycle,
      tokensPerStep: tokens / calls.length,
      tokens: Math.round((steps * tokens) / calls.length),
      costUsd: cost === null ? null : (steps * cost) / calls.length,
      basedOnCalls: calls.length,
    };
  }

  create(conversationId: string, goal: { objective: string; criteria: string[]; budget: GoalBudget }, opts: { replace?: boolean } = {}): GoalView {
    const open = this.open(conversationId);
    if (open && !opts.replace) {
      throw new DeskhandError('conflict', `This conversation already has a goal (${open.id}, ${open.status}: ${open.objective.slice(0, 80)}). Pass replace: true to abandon it for this one, or finish it first.`);
    }
    const now = Date.now();
    const row: GoalRow = {
      id: `goal_${randomUUID().slice(0, 8)}`,
      conversation_id: conversationId,
      objective: goal.objective,
      criteria: JSON.stringify(goal.criteria),
      status: 'active',
      budget: JSON.stringify(goal.budget),
      used: JSON.stringify({ turns: 0, tokens: 0, ms: 0, cost: 0 } satisfies GoalUsed),
      consecutive_blocked: 0,
      ended_reason: null,
      created_at: now,
      updated_at: now,
    };
    this.q.transaction(() => {
      if (open) this.q.update(open.id, { status: 'ended', ended_reason: `Replaced by ${row.id}: ${goal.objective.slice(0, 200)}` });
      this.q.insert(row);
    });
    return this.view(this.q.get(row.id)!);
  }

  open(conversationId: string): GoalView | null {
    const g = this.current(conversationId);
    return g && (g.status === 'active' || g.status === 'waiting') ? g : null;
  }

  resume(goalId: string): GoalView {
    const g = this.must(goalId);
    if (g.status !== 'waiting') throw new DeskhandError('conflict', `The goal is ${g.status}, not waiting for an answer.`);
    this.q.update(goalId, { status: 'active', ended_reason: null });
    return this.must(goalId);
  }

  minutesLeft(conversationId: string, now = Date.now()): number | null {
    const g = this.active(conversationId);
    if (!g || g.budget.ms === undefined) return null;
    return Math.max(0, Math.floor((g.budget.ms - (now - g.createdAt)) / 60_000));
  }

  current(conversationId: string): GoalView | null {
    const row = this.q.latestFor(conversationId);
    return row ? this.view(row) : null;
  }

  active(conversationId: string): GoalView | null {
    const g = this.current(conversationId);
    return g?.status === 'active' ? g : null;
  }

  get(id: string): GoalView | null {
    const row = this.q.get(id);
    return row ? this.view(row) : null;
  }

  list(): GoalView[] {
    return this.q.list().map((r) => this.view(r));
  }

  setBudget(goalId: string, key: keyof GoalBudget, value: number, byPerson: boolean): GoalView {
    const g = this.must(goalId);
    const current = g.budget[key];
    if (!byPerson && current !== undefined && value > current) {
      throw new DeskhandError('usage', `Only the person can raise the ${key} budget (now ${current}); you may lower it. Ask them, or use what is left.`);
    }
    this.q.update(goalId, { budget: JSON.stringify({ ...g.budget, [key]: value }) });
    return this.must(goalId);
  }

  startCycle(goalId: string, runId: string): number {
    const n = this.q.cycles(goalId).length + 1;
    this.q.addCycle({ id: `cyc_${randomUUID().slice(0, 8)}`, goal_id: goalId, n, run_id: runId, reported: 'unreported', summary: '', evidence: '[]', tokens: 0, ms: 0, created_at: Date.now() });
    return n;
  }

  isCycleRun(goalId: string, runId: string): boolean {
    return !!this.q.cycleForRun(goalId, runId);
  }

  report(goalId: string, runId: string, report: CycleReport): { goal: GoalView; message: string } {
    const g = this.must(goalId);
    if (g.status !== 'active') throw new DeskhandError('conflict', `The goal is ${g.status}; there is no cycle to report.`);
    const cycle = this.q.cycleForRun(goalId, runId);
    if (!cycle) throw new DeskhandError('usage', 'report_goal_cycle is only for goal cycles (turns the goal loop started); this turn is not one.');
    return this.q.transaction(() => {
      // One report per cycle: a later report in the same cycle replaces the earlier one.
      this.rewriteCycle(cycle.id, report);
      if (report.status === 'complete') {
        this.q.update(goalId, { status: 'complete', consecutive_blocked: 0, ended_reason: report.summary });
        return { goal: this.must(goalId), message: 'Goal complete: the evidence matched the cited results. The loop stops after this turn.' };
      }
      if (report.status === 'question') {
        this.q.update(goalId, { status: 'waiting', ended_reason: report.summary });
        return { goal: this.must(goalId), message: 'Question noted: the loop stops after this turn and the person is asked. End this turn now with the question as your reply; the next cycle starts after they answer.' };
      }
      if (report.status === 'blocked' && report.verdict) {
        this.q.update(goalId, { status: 'blocked', consecutive_blocked: g.consecutiveBlocked + 1, ended_reason: `The objective is ${report.verdict}: ${report.summary}` });
        return { goal: this.must(goalId), message: `Goal blocked now: the objective is ${report.verdict}. The loop stops; the person is told.` };
      }
      if (report.status === 'blocked') {
        const n = g.consecutiveBlocked + 1;
        if (n >= BLOCKED_CYCLES) {
          this.q.update(goalId, { status: 'blocked', consecutive_blocked: n, ended_reason: report.summary });
          return { goal: this.must(goalId), message: `Goal blocked after ${n} consecutive blocked cycles. The loop stops; the person is told.` };
        }
        this.q.update(goalId, { consecutive_blocked: n });
        return { goal: this.must(goalId), message: `Blocked cycle ${n} of ${BLOCKED_CYCLES} noted; the goal stays active (it is blocked only after ${BLOCKED_CYCLES} consecutive blocked cycles). Try another approach next cycle.` };
      }
      this.q.update(goalId, { consecutive_blocked: 0 });
      return { goal: this.must(goalId), message: 'Cycle noted; the loop continues with the next cycle.' };
    });
  }

  private rewriteCycle(cycleId: string, report: CycleReport): void {
    this.q.updateCycle(cycleId, { reported: report.status, summary: report.summary, evidence: JSON.stringify(report.evidence) });
  }

  end(goalId: string, reason: string): GoalView {
    const g = this.must(goalId);
    if (g.status !== 'active') throw new DeskhandError('conflict', `The goal is already ${g.status}.`);
    this.q.update(goalId, { status: 'ended', ended_reason: reason });
    return this.must(goalId);
  }

  finishCycle(goalId: string, runId: string, tokens: number): GoalView {
    const g = this.must(goalId);
    const cycle = this.q.cycleForRun(goalId, runId);
    if (!cycle || cycle.ms > 0) return g;
    const ms = Math.max(1, Date.now() - cycle.created_at);
    const used: GoalUsed = { ...g.used, turns: g.used.turns + 1, tokens: g.used.tokens + tokens, ms: Date.now() - g.createdAt };
    this.q.transaction(() => {
      this.q.updateCycle(cycle.id, { tokens, ms });
      this.q.update(goalId, { used: JSON.stringify(used) });
      const out = g.status === 'active' ? exhaustedBudget(g.budget, used) : null;
      if (out) this.q.update(goalId, { status: 'exhausted', ended_reason: out });
    });
    return this.must(goalId);
  }

  private must(id: string): GoalView {
    const g = this.get(id);
    if (!g) throw new DeskhandError('not_found', `No goal ${id}.`);
    return g;
  }

  private view(r: GoalRow): GoalView {
    return {
      id: r.id,
      conversationId: r.conversation_id,
      objective: r.objective,
      criteria: JSON.parse(r.criteria) as string[],
      status: r.status,
      budget: JSON.parse(r.budget) as GoalBudget,
      used: JSON.parse(r.used) as GoalUsed,
      consecutiveBlocked: r.consecutive_blocked,
      endedReason: r.ended_reason,
      cycles: this.q.cycles(r.id).map((c) => ({ n: c.n, runId: c.run_id, reported: c.reported, summary: c.summary, evidence: JSON.parse(c.evidence) as GoalView['cycles'][number]['evidence'], tokens: c.tokens, ms: c.ms, at: c.created_at })),
      createdAt: r.created_at,
    };
  }
}
