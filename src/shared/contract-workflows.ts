/**
 * The contract's workflow methods (the workflows panel): runs of a conversation with their phases, progress and
 * spend, one run with its script and event log, cancelling one. Schemas kept beside contract.ts. Pure.
 */
import { z } from 'zod';

const workflowIdSchema = z.string().regex(/^wf_[0-9a-f]{8}$/, 'Not a workflow id.');

export const workflowPhaseViewSchema = z.strictObject({
  name: z.string(),
  status: z.enum(['running', 'done']),
  output: z.string().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
});

export const workflowViewSchema = z.strictObject({
  id: z.string(),
  conversationId: z.string(),
  taskId: z.string().nullable(),
  name: z.string().nullable(),
  args: z.string(),
  status: z.enum(['running', 'finished', 'failed', 'cancelled', 'interrupted']),
  phase: z.string().nullable(),
  phases: z.array(workflowPhaseViewSchema),
  progress: z.string().nullable(),
  agents: z.number(),
  tokens: z.number(),
  costUSD: z.number(),
  limits: z.strictObject({ maxMinutes: z.number(), maxTokens: z.number(), maxCostUSD: z.number(), maxAgents: z.number(), maxConcurrency: z.number() }),
  result: z.string().nullable(),
  error: z.string().nullable(),
  createdAt: z.number(),
  finishedAt: z.number().nullable(),
});
export type WorkflowView = z.infer<typeof workflowViewSchema>;

export const workflowMethods = {
  /** Workflow runs of one conversation (or all), oldest first. */
  listWorkflows: { params: z.strictObject({ conversationId: z.string().max(100).optional() }), result: z.strictObject({ workflows: z.array(workflowViewSchema) }) },
  /** One run with its whole script and event log. */
  getWorkflow: {
    params: z.strictObject({ id: workflowIdSchema }),
    result: z.strictObject({ workflow: workflowViewSchema, script: z.string(), events: z.array(z.strictObject({ at: z.number(), kind: z.string(), text: z.string() })) }),
  },
  /** Stops a run and every agent it started. */
  cancelWorkflow: { params: z.strictObject({ id: workflowIdSchema }), result: z.strictObject({ workflow: workflowViewSchema }) },
} as const;

export const WORKFLOW_METHOD_NAMES = ['listWorkflows', 'getWorkflow', 'cancelWorkflow'] as const;
