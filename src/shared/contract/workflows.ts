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
  status: z.enum(['running', 'parked', 'finished', 'failed', 'cancelled', 'interrupted']),
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

/** The mission board: a conversation's Tower session (missions, roster, review gate, inbox, findings, activity). */
export const towerBoardSchema = z.strictObject({
  id: z.string(),
  repo: z.string(),
  baseBranch: z.string(),
  integrationBranch: z.string(),
  objective: z.string(),
  status: z.string(),
  planStatus: z.string(),
  missions: z.array(
    z.strictObject({
      id: z.string(),
      title: z.string(),
      status: z.string(),
      scope: z.array(z.string()),
      tasks: z.array(z.strictObject({ text: z.string(), done: z.boolean() })),
      depends: z.array(z.string()),
      branch: z.string().nullable(),
      review: z.strictObject({ reviewer: z.string(), verdict: z.string(), commit: z.string(), body: z.string() }).nullable(),
    }),
  ),
  roster: z.array(z.strictObject({ id: z.string(), role: z.string(), mission: z.string(), status: z.string() })),
  inbox: z.array(z.strictObject({ at: z.number(), from: z.string(), to: z.string(), body: z.string() })),
  findings: z.array(z.strictObject({ at: z.number(), from: z.string(), kind: z.string(), title: z.string() })),
  activity: z.array(z.strictObject({ at: z.number(), text: z.string() })),
});
export type TowerBoard = z.infer<typeof towerBoardSchema>;

export const workflowMethods = {
  /** The conversation's latest Tower session as a mission board (null: none). */
  getTowerBoard: { params: z.strictObject({ conversationId: z.string().max(100) }), result: z.strictObject({ board: towerBoardSchema.nullable() }) },
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

export const WORKFLOW_METHOD_NAMES = ['getTowerBoard', 'listWorkflows', 'getWorkflow', 'cancelWorkflow'] as const;
