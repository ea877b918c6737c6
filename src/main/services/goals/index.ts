/**
 * Goals (interface and pure helpers; tools import only this module): a durable objective the person accepted, pursued
 * in a loop of turns within budgets; each cycle's evidence is checked against the tool results it cites.
 */
import type { GoalCycleRow, GoalRow, GoalStatus } from '../store/modules/goals';

export type { GoalCycleRow, GoalRow, GoalStatus };

export interface GoalBudget {
  turns?: number;
  tokens?: number;
  /** Wall time since the goal was accepted. */
  ms?: number;
  /** Money, in USD, from the usage ledger and its prices. */
  cost?: number;
}
export interface GoalUsed {
  turns: number;
  tokens: number;
  ms: number;
  cost: number;
}

export interface GoalView {
  id: string;
  conversationId: string;
  objective: string;
  criteria: string[];
  status: GoalStatus;
  budget: GoalBudget;
  used: GoalUsed;
  consecutiveBlocked: number;
  endedReason: string | null;
  cycles: { n: number; runId: string | null; reported: string; summary: string; evidence: Evidence[]; tokens: number; ms: number; at: number }[];
  createdAt: number;
}

export interface Evidence {
  call_id: string;
  quote: string;
}

export interface CycleReport {
  /** `question`: the loop stops and the summary (the question) goes to the person; their answer resumes it. */
  status: 'continue' | 'complete' | 'blocked' | 'question';
  summary: string;
  evidence: Evidence[];
  /** With `blocked`: the objective itself is impossible, unsafe or contradictory, so the goal blocks in this cycle (Spec II). */
  verdict?: ObjectiveVerdict;
}

export const OBJECTIVE_VERDICTS = ['impossible', 'unsafe', 'contradictory'] as const;
export type ObjectiveVerdict = (typeof OBJECTIVE_VERDICTS)[number];

/** A settled tool result of a conversation, by the model's call id (what evidence cites). */
export interface EvidenceSource {
  resultOf(conversationId: string, callId: string): { tool: string; output: string; ok: boolean } | null;
}

/** Budgets: 3 consecutive blocked cycles before a goal is blocked (Spec II), default 20 turns when none is given. */
export const BLOCKED_CYCLES = 3;
export const DEFAULT_TURN_BUDGET = 20;

/** What a goal may cost before it starts: its plan's cycles × the recent steps per turn × the recent tokens per step. */
export interface GoalEstimate {
  cycles: number;
  /** Why that many cycles: one per milestone, per criterion, or the turn budget when it is lower. */
  cyclesFrom: 'milestones' | 'criteria' | 'turn budget';
  stepsPerCycle: number;
  tokensPerStep: number;
  tokens: number;
  /** Dollars at the recent calls' prices; null when one of their models has no price. */
  costUsd: number | null;
  /** How many recent model calls it was judged from (0: no estimate). */
  basedOnCalls: number;
}

export function describeEstimate(e: GoalEstimate): string {
  if (e.basedOnCalls === 0) return 'Estimate: none yet (no model calls recorded to judge from).';
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const cost = e.costUsd === null ? 'cost unknown (a model without a price)' : `≈ $${e.costUsd.toFixed(2)}`;
  const per = e.cyclesFrom === 'turn budget' ? 'the turn budget' : `one per ${e.cyclesFrom === 'milestones' ? 'milestone' : 'criterion'}`;
  return `Estimate: about ${n(e.tokens)} tokens, ${cost}: ${e.cycles} cycle${e.cycles === 1 ? '' : 's'} (${per}) × ${e.stepsPerCycle.toFixed(1)} steps × ${n(e.tokensPerStep)} tokens per step, from the last ${e.basedOnCalls} model calls.`;
}

export interface GoalService {
  /** What a proposed goal may cost, from its plan and the recent cost per step (the conversation's, else everyone's). */
  estimate(conversationId: string, plan: { criteria: number; milestones: number; turns: number }): GoalEstimate;
  /** Refuses while the conversation has an open goal (active or waiting) unless `replace`: that one then ends, replaced. */
  create(conversationId: string, goal: { objective: string; criteria: string[]; budget: GoalBudget }, opts?: { replace?: boolean }): GoalView;
  /** The conversation's goal that is active or waiting for the person's answer, or null. */
  open(conversationId: string): GoalView | null;
  /** A waiting goal becomes active again (the person answered its question). */
  resume(goalId: string): GoalView;
  /** Minutes left of the active goal's time budget (it runs from acceptance), or null without one. */
  minutesLeft(conversationId: string, now?: number): number | null;
  /** The conversation's newest goal, or null. */
  current(conversationId: string): GoalView | null;
  active(conversationId: string): GoalView | null;
  get(id: string): GoalView | null;
  list(): GoalView[];
  /** Lowers a budget or sets one that was unset; `byPerson` may also raise it. */
  setBudget(goalId: string, key: keyof GoalBudget, value: number, byPerson: boolean): GoalView;
  startCycle(goalId: string, runId: string): number;
  isCycleRun(goalId: string, runId: string): boolean;
  /** Records an accepted report (evidence already checked); returns the goal and a line for the model. */
  report(goalId: string, runId: string, report: CycleReport): { goal: GoalView; message: string };
  end(goalId: string, reason: string): GoalView;
  /** After a cycle's run finished: its tokens and the wall time go into `used`; a budget used up stops the goal. */
  finishCycle(goalId: string, runId: string, tokens: number): GoalView;
}

/** Whitespace-insensitive comparison of a quote with a tool result. */
const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** Checks each cited result: it exists in this conversation, succeeded, and contains the quoted text. Returns the problems. */
export function checkEvidence(conversationId: string, evidence: readonly Evidence[], source: EvidenceSource): string[] {
  const problems: string[] = [];
  for (const e of evidence) {
    const result = source.resultOf(conversationId, e.call_id);
    if (!result) problems.push(`${e.call_id}: no tool result with this call id exists in this conversation`);
    else if (result.tool === 'report_goal_cycle') problems.push(`${e.call_id}: a report is not evidence; cite the tool result itself`);
    else if (!result.ok) problems.push(`${e.call_id}: that call failed, so it proves nothing`);
    else if (norm(e.quote).length < 3 || !norm(result.output).includes(norm(e.quote))) problems.push(`${e.call_id}: the quote "${e.quote.slice(0, 80)}" is not in that result's output`);
  }
  return problems;
}

/**
 * Which budget is used up, in words, or null: the turn and time budgets end the goal between cycles. Its token and
 * cost budgets never end it: the next model call that would cross one parks the run with a budget hold the person
 * raises or stops (runtime/loop/usage-budget.ts).
 */
export function exhaustedBudget(budget: GoalBudget, used: GoalUsed): string | null {
  if (budget.turns !== undefined && used.turns >= budget.turns) return `turn budget used up (${used.turns}/${budget.turns} turns)`;
  if (budget.ms !== undefined && used.ms >= budget.ms) return `time budget used up (${Math.round(used.ms / 1000)}/${Math.round(budget.ms / 1000)} s)`;
  return null;
}

export function describeBudget(budget: GoalBudget, used: GoalUsed): string {
  const parts: string[] = [];
  if (budget.turns !== undefined) parts.push(`turns ${used.turns}/${budget.turns}`);
  if (budget.tokens !== undefined) parts.push(`tokens ${used.tokens}/${budget.tokens}`);
  if (budget.ms !== undefined) parts.push(`time ${Math.round(used.ms / 1000)}/${Math.round(budget.ms / 1000)} s`);
  if (budget.cost !== undefined) parts.push(`cost $${used.cost.toFixed(2)}/$${budget.cost.toFixed(2)}`);
  return parts.join(', ') || 'no budget';
}
