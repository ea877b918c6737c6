/**
 * Asking a person in the middle of a call (an MCP server's elicitation): an input request bound to the call, of a
 * registered kind. In a run a person drives, the call waits for the answer in this process (its timeout paused).
 * Otherwise the run parks on the request (WaitingForPeople: the call stays open), the answer comes from any process
 * (`deskhand runs answer`), and the call runs again when the run resumes: there the same question (the same `key`,
 * the n-th time in this call) finds its stored answer at once. The request's data carries the key; never a secret.
 */
import { WaitingForPeople } from '../../../shared/waiting';
import { DeskhandError } from '../../../shared/errors';
import type { ApprovalRow, RunRow, ToolCallRow } from '../../services/store/store';
import type { RunOptions, RuntimeCore } from '../core';
import type { CallAnswer, InputSpec } from '../tool';
import { openAskedRequest } from './open-request';

export interface Pausable {
  pause(): void;
  resume(): void;
}

/** What one call asked so far in this execution, by key (the n-th ask of a key matches the n-th stored request). */
export type AskedCount = Map<string, number>;

export async function askDuringCall(
  core: RuntimeCore,
  run: RunRow,
  row: ToolCallRow,
  spec: InputSpec & { key: string },
  options: RunOptions,
  signal: AbortSignal,
  asked: AskedCount,
  deadline: Pausable,
): Promise<CallAnswer> {
  const { store, inputKinds } = core;
  if (!inputKinds.get(spec.kind)) throw new DeskhandError('internal', `No input kind "${spec.kind}".`);
  const n = asked.get(spec.key) ?? 0;
  asked.set(spec.key, n + 1);
  const earlier = store.approvalsForRun(run.id).filter((a) => a.tool_call_id === row.id && a.kind === spec.kind && keyOf(a) === spec.key)[n];
  if (earlier && earlier.status !== 'pending') return outcome(earlier);
  const request = earlier ?? openAskedRequest(core, run, row, { ...spec, data: { ...(spec.data as object), key: spec.key } }, 'asked during the call', options);
  // Nobody to answer here: the run parks on it, and the call runs again once it is answered.
  if (!options.interactive) throw new WaitingForPeople([request.id], `the call waits for ${request.id}`);
  deadline.pause();
  try {
    for (;;) {
      const now = store.getApproval(request.id);
      if (!now || now.status !== 'pending') return outcome(now ?? request);
      if (signal.aborted) {
        store.decideApproval(request.id, 'denied', false, 'the call was stopped before an answer');
        return { answered: false, reason: 'the call was stopped' };
      }
      await core.waiters.wait(run.id, [request.id], signal);
    }
  } finally {
    deadline.resume();
  }
}

function keyOf(a: ApprovalRow): string | null {
  try {
    const data = JSON.parse(a.request ?? 'null') as { key?: unknown } | null;
    return typeof data?.key === 'string' ? data.key : null;
  } catch {
    return null;
  }
}

function outcome(a: ApprovalRow): CallAnswer {
  if (a.status === 'approved') return { answered: true, value: a.answer === null ? null : (JSON.parse(a.answer) as unknown) };
  return { answered: false, reason: a.reason };
}
