/**
 * The contract's events (main → UI): a run's events as the runtime emits them, checked against its `RunEvent` type,
 * and every other event the UI listens for. Pure.
 */
import { z } from 'zod';
import type { RunEvent } from '../events';
import { approvalIdSchema, conversationIdSchema, riskSchema } from './ids';
import { conversationSummarySchema, todoSchema } from './conversations';
import { approvalRequestFields, pendingApprovalSchema } from './requests';
import { browserSessionSchema } from './browser';
import { computerSessionSchema } from './computer';
import { subagentsChangedSchema } from './subagents';
import { noParams as none } from './ids';

const usageSchema = z.strictObject({ inputTokens: z.number(), outputTokens: z.number() });
const runStatusSchema = z.enum(['running', 'parked', 'finished', 'failed', 'aborted', 'interrupted']);

export const runEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('run.started'), conversationId: z.string(), runId: z.string(), resumed: z.boolean() }),
  z.strictObject({ type: z.literal('text'), runId: z.string(), delta: z.string(), step: z.number().optional() }),
  z.strictObject({ type: z.literal('thinking'), runId: z.string(), delta: z.string(), step: z.number().optional() }),
  z.strictObject({ type: z.literal('tool.call'), runId: z.string(), callId: z.string(), tool: z.string(), args: z.unknown(), summary: z.string().optional() }),
  z.strictObject({
    type: z.literal('tool.decision'),
    runId: z.string(),
    callId: z.string(),
    tool: z.string(),
    risk: riskSchema.nullable(),
    decision: z.enum(['allow', 'ask', 'deny']),
    reasons: z.array(z.string()),
  }),
  z.strictObject({
    type: z.literal('approval.requested'),
    runId: z.string(),
    conversationId: z.string(),
    approvalId: z.string(),
    callId: z.string(),
    tool: z.string(),
    ...approvalRequestFields,
  }),
  z.strictObject({
    type: z.literal('input.requested'),
    runId: z.string(),
    conversationId: z.string(),
    requestId: z.string(),
    kind: z.string(),
    callId: z.string(),
    tool: z.string(),
    description: z.string(),
    prompt: z.string(),
    data: z.unknown(),
    schema: z.record(z.string(), z.unknown()),
  }),
  z.strictObject({
    type: z.literal('state.changed'),
    conversationId: z.string(),
    slot: z.literal('todos'),
    value: z.array(
      z.strictObject({ id: z.string(), title: z.string(), status: z.enum(['pending', 'in_progress', 'done']), priority: z.enum(['low', 'medium', 'high']).optional() }),
    ),
  }),
  z.strictObject({
    type: z.literal('approval.decided'),
    runId: z.string(),
    approvalId: z.string(),
    decision: z.enum(['approved', 'denied']),
    always: z.boolean(),
    reason: z.string().optional(),
  }),
  z.strictObject({ type: z.literal('tool.output'), runId: z.string(), callId: z.string(), stream: z.enum(['stdout', 'stderr']), chunk: z.string() }),
  z.strictObject({
    type: z.literal('tool.result'),
    runId: z.string(),
    callId: z.string(),
    tool: z.string(),
    status: z.enum(['ok', 'error', 'denied', 'interrupted']),
    output: z.string(),
    durationMs: z.number(),
    summary: z.string().optional(),
  }),
  z.strictObject({ type: z.literal('usage'), runId: z.string(), step: z.number(), usage: usageSchema }),
  z.strictObject({ type: z.literal('run.retry'), runId: z.string(), attempt: z.number(), delayMs: z.number(), reason: z.string() }),
  z.strictObject({ type: z.literal('run.parked'), runId: z.string(), conversationId: z.string(), approvalIds: z.array(z.string()), budget: z.strictObject({ holdId: z.string(), message: z.string() }).optional() }),
  z.strictObject({
    type: z.literal('context.compaction'),
    phase: z.enum(['started', 'done']),
    runId: z.string(),
    conversationId: z.string(),
    reason: z.string(),
    tokensBefore: z.number(),
    droppedMessages: z.number(),
    tokensAfter: z.number().optional(),
  }),
  z.strictObject({ type: z.literal('hook.note'), runId: z.string(), conversationId: z.string(), event: z.string(), text: z.string(), toModel: z.boolean() }),
  z.strictObject({
    type: z.literal('run.finished'),
    runId: z.string(),
    conversationId: z.string(),
    status: runStatusSchema,
    error: z.string().optional(),
    usage: usageSchema,
    steps: z.number(),
  }),
]);

// The schema and the runtime's RunEvent type must describe the same events.
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _runEventsMatch: Same<z.infer<typeof runEventSchema>, RunEvent> = true;
void _runEventsMatch;

export const contractEvents = {
  run: runEventSchema,
  conversationsChanged: z.strictObject({
    conversations: z.array(conversationSummarySchema),
    /** Conversations another process continued since the last event (no run of this host in them): open ones load again. */
    changedElsewhere: z.array(z.string()).optional(),
  }),
  approvalsChanged: z.strictObject({ approvals: z.array(pendingApprovalSchema) }),
  /** Main asks the UI to show one approval (a notification or the tray was clicked). */
  openApproval: z.strictObject({ approvalId: approvalIdSchema, conversationId: conversationIdSchema }),
  /** Main asks the UI to show one conversation (a reminder's notification was clicked). */
  openConversation: z.strictObject({ conversationId: conversationIdSchema }),
  /** Main asks the UI to start a new conversation (tray, Ctrl/Cmd+N from the menu). */
  newConversation: none,
  /** A background task of this conversation started, ended or printed (coalesced): list them again. */
  backgroundTasksChanged: z.strictObject({ conversationId: conversationIdSchema }),
  /** The conversation's todo list changed (manage_todos). */
  todosChanged: z.strictObject({ conversationId: conversationIdSchema, todos: z.array(todoSchema) }),
  /** A composition was made, revised or reviewed: list them again. */
  compositionsChanged: z.strictObject({ conversationId: z.string().nullable() }),
  /** A conversation's browser session changed (page, tab, a new screenshot) or closed (null). */
  browserChanged: z.strictObject({ conversationId: conversationIdSchema, session: browserSessionSchema.nullable() }),
  /** Tools were added or removed (an MCP server came or went): load listTools again. */
  toolsChanged: none,
  /** Runs started or stopped using the desktop (the "Deskhand is using" banner). */
  computerChanged: z.strictObject({ sessions: z.array(computerSessionSchema) }),
  /** A subagent (in any conversation's tree) started, changed or spent: its tree lists again. */
  subagentsChanged: subagentsChangedSchema,
};
