/**
 * A workflow run: the limits it runs under, what a call of the workflow tool gives, the state of a run this process
 * drives (its script's journal, its children, why it stops), and the run in words (task output, wake-ups, the CLI).
 */
import type { WorkflowJournalEntry, WorkflowPhase, WorkflowRow, WorkflowStatus } from '../store/modules/workflows';
import { SUBAGENT_TERMINAL, type SubagentRow } from '../store/modules/subagents';

export interface WorkflowLimits {
  maxMinutes: number;
  maxTokens: number;
  maxCostUSD: number;
  /** Subagents the run may start in all. */
  maxAgents: number;
  /** Children of this run alive at once (also capped by the subagent service's own limit). */
  maxConcurrency: number;
}

export const DEFAULT_WORKFLOW_LIMITS: WorkflowLimits = { maxMinutes: 60, maxTokens: 5_000_000, maxCostUSD: 10, maxAgents: 50, maxConcurrency: 4 };

export interface StartWorkflowInput {
  name?: string;
  script?: string;
  args?: string;
  limits?: Partial<WorkflowLimits>;
}

export interface WorkflowCallContext {
  runId: string;
  conversationId: string;
  callId: string;
  /** Opens a background input request (the runtime's ctx.openBackgroundRequest), for `ask`. */
  openBackgroundRequest?: (spec: { kind: string; description: string; prompt: string; data: unknown; taskId: string }) => string;
}

export interface Live {
  row: WorkflowRow;
  controller: AbortController;
  ctx: WorkflowCallContext;
  children: Set<string>;
  pending: Map<string, Promise<SubagentRow>>;
  started: number;
  limits: WorkflowLimits;
  stop?: { status: WorkflowStatus; reason: string };
  done?: Promise<void>;
  /** A person can answer its children here: else they park, and so does the run when it can go no further. */
  attended: boolean;
  /** What the script's calls got before the run parked (replayed), by their place in its order. */
  journal: Map<number, WorkflowJournalEntry>;
  /** The phases recorded before it parked: the replayed script must name them again, in order. */
  recordedPhases: WorkflowPhase[];
  phaseAt: number;
  /** The highest call number the script reached in this process. */
  seen: number;
  /** Calls being answered now (not parked), and calls parked on children waiting for a person. */
  inflight: number;
  parkedCalls: number;
  parking?: boolean;
  /** Resolves once the script has reacted to every answer sent (script-host.ts). */
  idle?: () => Promise<void>;
}

/** A call that waits for children parked on a person: it stays open, and the run parks once nothing else can move. */
export class ParkedCall extends Error {}

export const never = (): Promise<never> => new Promise<never>(() => undefined);

export const SUB_TERMINAL = new Set<string>(SUBAGENT_TERMINAL);

/** Why a replayed script cannot continue: it is not the script that parked (what it asked for differs). */
export function diverged(detail: string): string {
  return (
    `the workflow cannot resume: its script asked for something else than before it parked (${detail}). ` +
    'The script changed, or depends on something that changes between runs (the time, random numbers), so its recorded results were not reused past that point; start the workflow again.'
  );
}

export function outcomeOf(r: SubagentRow): { id: string; status: string; result: unknown; error: string | null } {
  let result: unknown = r.result;
  if (r.result_schema && r.result !== null) {
    try {
      result = JSON.parse(r.result);
    } catch {
      // stays text
    }
  }
  return { id: r.id, status: r.status, result, error: r.error };
}

/** A run in words: status, phases with their outputs, spend, result or error (task_output, wake-ups, the CLI). */
export function describeRun(row: WorkflowRow): string {
  const phases = JSON.parse(row.phases) as WorkflowPhase[];
  const lines = [
    `workflow ${row.id} (${row.name ?? 'inline script'}) ${row.status}${row.phase && row.status === 'running' ? `, phase ${row.phase}` : ''}: ${row.agents} agents, ${row.input_tokens + row.output_tokens} tokens, ~$${row.cost_usd.toFixed(4)}`,
  ];
  for (const p of phases) lines.push(`phase ${p.name} [${p.status}]${p.output ? `: ${p.output.slice(0, 1500)}` : ''}`);
  if (row.progress && row.status === 'running') lines.push(`progress: ${row.progress}`);
  if (row.error) lines.push(`error: ${row.error}`);
  if (row.result !== null) lines.push(`result:\n${row.result}`);
  return lines.join('\n');
}
