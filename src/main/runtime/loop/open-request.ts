/**
 * Opening a call's request (the asking half of the call pipeline, call-pipeline.ts): what a person reads (the
 * proposal), the request's data (an approval's reversibility and its one sentence of what the call will do,
 * runtime/decision/reversibility.ts and call-sentence.ts; an input kind's own data), and the request row with its
 * event. Running and recording a call is call-execution.ts.
 */
import { randomUUID } from 'node:crypto';
import { rootOfferPattern } from '../../../shared/always-allow';
import { fallbackTitle } from '../../../shared/tool-presentation';
import { DeskhandError } from '../../../shared/errors';
import type { ApprovalRow, ConversationRow, RunRow, ToolCallRow } from '../../services/store/store';
import type { RunEvent } from '../../../shared/events';
import type { PolicyDecision } from '../decision/approval-engine';
import type { DecisionBase } from '../decision/hold';
import { callSentence } from '../decision/call-sentence';
import { callReversibility } from '../decision/reversibility';
import type { PersistentConversationState } from '../context/conversation-state';
import type { RunOptions, RuntimeCore } from '../core';
import type { Effects, InputSpec, ToolContext, ToolDefinition } from '../tool';

/** The decision's columns, written with the call's next state change (one commit per call on the hot path). */
export type DecisionFields = Pick<ToolCallRow, 'risk' | 'decision' | 'reasons' | 'paths'>;

export interface Proposal {
  description: string;
  preview: string | null;
}

/** An input kind's request for a call (the tool's `input`): its kind, description, prompt and data. */
export type CallInput = ReturnType<NonNullable<ToolDefinition['input']>>;

/**
 * What the request shows a person: the input kind's description and prompt, else the tool's own words for the call
 * (`presentation.ask`), else its pair's proposal, else its title and summary. Throws what a pair's proposal threw.
 */
export async function proposalOf(core: RuntimeCore, tool: ToolDefinition, args: unknown, input: CallInput | undefined, context: () => ToolContext): Promise<Proposal> {
  let proposal = { description: plainDescription(tool, core.registry.summarize(tool.name, args), args), preview: null as string | null };
  if (input) proposal = { description: input.description, preview: input.prompt };
  else if (!tool.pair && tool.presentation?.ask) {
    try {
      proposal = { description: tool.presentation.ask(args as never), preview: null };
    } catch {
      // arguments it cannot put in words (a `when` that does not parse): the plain summary stays
    }
  } else if (tool.pair) {
    proposal = await tool.pair.propose(args as never, context());
  }
  return proposal;
}

/** What a request carries besides its words: an input kind's data, or an approval's reversibility and sentence. */
export function requestData(
  core: RuntimeCore,
  call: { tool: ToolDefinition; args: unknown; effects: Effects; decision: PolicyDecision; input: CallInput | undefined },
  conv: ConversationRow,
  state: PersistentConversationState,
  base: Pick<DecisionBase, 'recorded'>,
): unknown {
  const { tool, args, effects, decision, input } = call;
  // An approval's data: whether the call can be taken back from the change list (runtime/decision/reversibility.ts).
  // And what it will do, in one sentence from its declared effects (call-sentence.ts).
  const doing = input ? null : callSentence({ tool, summary: core.registry.summarize(tool.name, args), effects, paths: decision.paths, network: decision.network, egress: decision.egress, risk: decision.risk, secrets: decision.secrets, sandbox: conv.sandbox, workspaceRoots: state.workspaceRoots });
  return input ? input.data : { reversibility: callReversibility({ tool, effects, paths: decision.paths, network: decision.network, egress: decision.egress, sandbox: conv.sandbox, workspaceRoots: state.workspaceRoots, ledger: core.fileWatchers.size > 0, recorded: base.recorded }), ...(doing ? { doing } : {}) };
}

/** Opens an approval or an input request for the call; returns its id. */
export function openRequest(
  core: RuntimeCore,
  run: RunRow,
  row: ToolCallRow,
  tool: ToolDefinition,
  args: unknown,
  decision: PolicyDecision,
  proposal: { description: string; preview: string | null },
  kind: string,
  data: unknown,
  decided: DecisionFields,
  options: RunOptions,
): string {
  const { store, redactor } = core;
  const isApproval = kind === 'approval';
  const request = store.transaction(() => {
    store.updateToolCall(row.id, { ...decided, status: 'awaiting_approval' });
    return store.insertApproval({
      id: `apr_${randomUUID()}`,
      run_id: run.id,
      tool_call_id: row.id,
      tool: tool.name,
      args_sha256: row.args_sha256,
      risk: decision.risk,
      reasons: JSON.stringify(decision.reasons),
      description: redactor.redact(proposal.description),
      preview: proposal.preview === null ? null : redactor.redact(proposal.preview),
      // A rule pattern, or an offer to add a workspace root (`workspace-root:<folder>`): what "always" saves.
      always_pattern: isApproval ? (decision.rulePattern ?? (decision.rootOffer ? rootOfferPattern(decision.rootOffer) : null)) : null,
      kind,
      request: redactor.redact(JSON.stringify(data ?? null)),
    });
  });
  if (isApproval) {
    core.emit(options, {
      type: 'approval.requested',
      runId: run.id,
      conversationId: run.conversation_id,
      approvalId: request.id,
      callId: row.call_id,
      tool: tool.name,
      args,
      risk: decision.risk,
      reasons: decision.reasons,
      description: request.description,
      preview: request.preview,
      alwaysPattern: request.always_pattern,
    });
  } else {
    core.emit(options, inputRequested(core, run, row, request));
  }
  return request.id;
}

/** A request that belongs to a background task: bound to the call (for the UI) but no call or run waits for it. */
export function openBackgroundRequest(core: RuntimeCore, run: RunRow, row: ToolCallRow, spec: InputSpec & { taskId: string }, options: RunOptions): string {
  if (!core.inputKinds.get(spec.kind)) throw new DeskhandError('internal', `No input kind "${spec.kind}".`);
  return openAskedRequest(core, run, row, spec, 'asked in the background', options, spec.taskId).id;
}

/**
 * Stores a question a tool puts to a person for its call (a background task's, or one asked during the call: not the
 * call's own approval) with its words and data redacted, and announces it (`input.requested`). The caller checks the kind.
 */
export function openAskedRequest(core: RuntimeCore, run: RunRow, row: ToolCallRow, spec: InputSpec, why: string, options: RunOptions, taskId: string | null = null): ApprovalRow {
  const { redactor } = core;
  const request = core.store.insertApproval({
    id: `apr_${randomUUID()}`,
    run_id: run.id,
    tool_call_id: row.id,
    tool: row.tool,
    args_sha256: row.args_sha256,
    risk: 'read-only',
    reasons: JSON.stringify([why]),
    description: redactor.redact(spec.description),
    preview: redactor.redact(spec.prompt),
    always_pattern: null,
    kind: spec.kind,
    request: redactor.redact(JSON.stringify(spec.data ?? null)),
    task_id: taskId,
  });
  core.emit(options, inputRequested(core, run, row, request));
  return request;
}

/**
 * The `input.requested` event of a stored input request (its kind and tool as stored; its words and data as stored,
 * so already redacted): one shape for a call's request, a background task's and a question asked during a call.
 */
export function inputRequested(core: RuntimeCore, run: RunRow, row: Pick<ToolCallRow, 'call_id'>, request: ApprovalRow): Extract<RunEvent, { type: 'input.requested' }> {
  return {
    type: 'input.requested',
    runId: run.id,
    conversationId: run.conversation_id,
    requestId: request.id,
    kind: request.kind,
    callId: row.call_id,
    tool: request.tool,
    description: request.description,
    prompt: request.preview ?? '',
    data: JSON.parse(request.request ?? 'null') as unknown,
    schema: core.inputKinds.schemaOf(request.kind),
  };
}


/**
 * The approval's line for a tool without its own proposal: its title and its own summary of the call ("Set a
 * reminder: tomorrow 9:00: call Ann"), never the raw JSON (the card shows the exact arguments beneath).
 */
export function plainDescription(tool: Pick<ToolDefinition, 'name' | 'presentation'>, summary: string | null, args: unknown): string {
  const title = tool.presentation?.title ?? fallbackTitle(tool.name);
  if (summary) return `${title}: ${summary}`;
  const n = args && typeof args === 'object' ? Object.keys(args).length : 0;
  return n ? `${title} (${n} argument${n === 1 ? '' : 's'}, shown below)` : title;
}
