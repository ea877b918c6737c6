/**
 * The contract's requests area: what waits for the person (approvals, secrets, questions, file picks) as the
 * Approvals panel and the cards show it, and the methods that answer them. Pure.
 */
import { z } from 'zod';
import { GRANT_LIFETIMES, GRANT_SCOPES } from '../rules';
import { approvalIdSchema, conversationIdSchema, riskSchema } from './ids';
import { boundedText as text, noParams as none } from './ids';

/** What an approval asks, the same in the `approval.requested` event (contract-events.ts) and the pending list. */
export const approvalRequestFields = {
  /** The exact arguments the approval is bound to (their sha256 is checked again when it is answered). */
  args: z.unknown(),
  risk: riskSchema,
  reasons: z.array(z.string()),
  description: z.string(),
  preview: z.string().nullable(),
  /** What "Always allow" would save a rule for, or null when no rule may be saved for this call. */
  alwaysPattern: z.string().nullable(),
};

export const pendingApprovalSchema = z.strictObject({
  approvalId: approvalIdSchema,
  runId: z.string(),
  conversationId: conversationIdSchema,
  conversationTitle: z.string(),
  folder: z.string(),
  callId: z.string(),
  tool: z.string(),
  /** The tool's title in plain words, as the tool declares it ("Run a command"); notifications use it too. */
  title: z.string(),
  ...approvalRequestFields,
  /** running: the run waits in this host; parked: nobody was there to answer, approving resumes it. */
  runStatus: z.enum(['running', 'parked', 'other']),
  /**
   * The request's kind: 'approval' (approve, always, deny), or an input request answered with a value — 'secret'
   * (provideSecret), 'question' and 'file_pick' (answerRequest), or any kind a family registers (the UI falls back to
   * showing the `deskhand runs answer` command). Every kind can be denied.
   */
  kind: z.string().min(1).max(100),
  /** What an input request shows the person (the questions and options; the picker's prompt, pick and multiple). Never a secret. */
  data: z.unknown(),
  /** The saved secret this call asks for (ask_user_secret) or would use (use_saved_secret); never a value. */
  secret: z.strictObject({ name: z.string(), description: z.string(), prompt: z.string().nullable() }).nullable(),
  /** Set when a subagent asks: the request is shown in its parent's conversation (conversationId), labelled with the child. */
  subagent: z.strictObject({ id: z.string(), type: z.string(), description: z.string(), conversationId: conversationIdSchema }).nullable().optional(),
  createdAt: z.number(),
});
export type PendingApproval = z.infer<typeof pendingApprovalSchema>;

export const requestMethods = {
  listPendingApprovals: { params: none, result: z.strictObject({ approvals: z.array(pendingApprovalSchema) }) },
  decideApproval: {
    params: z.strictObject({
      approvalId: approvalIdSchema,
      decision: z.enum(['approve', 'always', 'deny']),
      /** Where an "always" rule applies (`task`: until this run ends); default this conversation. */
      scope: z.enum(GRANT_SCOPES).optional(),
      /** How long it lasts; default until revoked. */
      lifetime: z.enum(GRANT_LIFETIMES).optional(),
      reason: text(2000).optional(),
    }),
    result: z.strictObject({ decision: z.enum(['approved', 'denied']), resumed: z.boolean() }),
  },
  /**
   * Answers a request for a secret (ask_user_secret) with the value the person typed. It goes to the OS keyring; it
   * is never sent back to any UI, in any event or projection.
   */
  provideSecret: {
    params: z.strictObject({ approvalId: approvalIdSchema, value: z.string().min(1, 'The secret is empty.').max(10_000) }),
    result: z.strictObject({ resumed: z.boolean() }),
  },
  /**
   * Answers an input request (a question, a file pick, any registered kind) with the JSON value its kind validates;
   * a value that does not fit comes back as a 'usage' error that says what to change. Approvals use decideApproval,
   * secrets provideSecret.
   */
  answerRequest: {
    params: z.strictObject({ requestId: approvalIdSchema, value: z.unknown() }),
    result: z.strictObject({ resumed: z.boolean() }),
  },
  /**
   * Lists one folder's entry names (never contents), only while that request is a pending file pick: the web folder
   * browser. `path` defaults to the conversation's folder. Hidden entries (dot names) come after the others.
   */
  browseForRequest: {
    params: z.strictObject({ requestId: approvalIdSchema, path: text(4096).min(1).optional() }),
    result: z.strictObject({
      path: z.string(),
      parent: z.string().nullable(),
      entries: z.array(z.strictObject({ name: z.string(), kind: z.enum(['file', 'folder']) })),
      /** More entries exist than were listed (very large folders). */
      truncated: z.boolean(),
    }),
  },
  /**
   * Answers a pending file pick with the host's native dialog (desktop only: web mode gets 'unsupported'). The paths
   * come from the dialog in main, never from the renderer. `cancelled`: the person closed the dialog; nothing was answered.
   */
  pickForRequest: {
    params: z.strictObject({ requestId: approvalIdSchema }),
    result: z.strictObject({ resumed: z.boolean(), cancelled: z.boolean() }),
  },
};
