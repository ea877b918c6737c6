/**
 * The contract's conversations area: the sidebar's summaries, the transcript's items, the host's facts, and the
 * methods that make, rename, send to, stop and search conversations (the todo list shown beside them too). Pure.
 */
import { z } from 'zod';
import { MAX_ATTACHMENTS } from '../attachments';
import { attachmentInputSchema, attachmentViewSchema, clearedSchema, messageItemIdSchema, turnUsageSchema } from './chat';
import { TOOL_ITEM_STATUSES } from './names';
import { reviewItemSchema } from './compositions';
import { boundedText as text, conversationIdSchema, noParams as none, okResult as ok, policySchema, riskSchema, runIdSchema, sandboxModeSchema } from './ids';

export const conversationSummarySchema = z.strictObject({
  id: conversationIdSchema,
  title: z.string(),
  folder: z.string(),
  policy: policySchema,
  createdAt: z.number(),
  updatedAt: z.number(),
  /** running: a run of this host is working; waiting: approvals wait for the person; idle otherwise. */
  activity: z.enum(['idle', 'running', 'waiting']),
  pendingApprovals: z.number().int().nonnegative(),
  /** How this conversation's commands run: in the OS sandbox (workspace writable or read-only) or without it. */
  sandbox: sandboxModeSchema,
  /** Set when this conversation is a subagent's: its parent (the sidebar leaves it out; the tree reaches it). */
  subagentOf: z.strictObject({ conversationId: z.string(), subagentId: z.string() }).optional(),
});
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

export const messageItemSchema = z.discriminatedUnion('kind', [
  // `from`: in a subagent's transcript, who wrote a message that is not the person's (its parent conversation's title).
  z.strictObject({ kind: z.literal('user'), id: z.string(), runId: z.string().nullable(), text: z.string(), at: z.number(), attachments: z.array(attachmentViewSchema).optional(), from: z.string().optional() }),
  z.strictObject({
    kind: z.literal('assistant'),
    id: z.string(),
    runId: z.string().nullable(),
    text: z.string(),
    /** A reasoning model's thinking before this text (or before the step's tool calls, with no text): shown collapsed. */
    thinking: z.string().optional(),
    at: z.number(),
    /** On the last assistant text of a finished turn: the turn's tokens and cost (contract-chat.ts). */
    usage: turnUsageSchema.optional(),
  }),
  z.strictObject({
    kind: z.literal('tool'),
    id: z.string(),
    runId: z.string(),
    callId: z.string(),
    tool: z.string(),
    args: z.unknown(),
    status: z.enum(TOOL_ITEM_STATUSES),
    risk: riskSchema.nullable(),
    reasons: z.array(z.string()),
    /** The result text, cut to the first OUTPUT_PREVIEW_CHARS; `outputChars` is the full length (page with getToolOutput). */
    output: z.string().nullable(),
    outputChars: z.number().int().nonnegative(),
    durationMs: z.number().nullable(),
    approvalId: z.string().nullable(),
    /** The tool's own one-line summary of the call (its declared presentation), or null when it gives none. */
    summary: z.string().nullable(),
    at: z.number(),
    /** Who or what cleared the call and when (contract-chat.ts); absent while live. */
    cleared: clearedSchema.nullable().optional(),
    /** The approval's preview (a diff, the command) kept on the card after the answer, denied ones included. */
    preview: z.string().nullable().optional(),
    /** Set once the person marked this untrusted result as reviewed (markReviewed): the surface they used, and when. */
    reviewed: z.strictObject({ by: z.string(), at: z.number() }).optional(),
  }),
  z.strictObject({ kind: z.literal('error'), id: z.string(), runId: z.string().nullable(), text: z.string(), severity: z.enum(['error', 'notice']), at: z.number() }),
  /**
   * A compaction of the model's view: what was dropped (messages with their sizes and tools), the summary that replaced
   * them, and the sizes before and after. The transcript itself stays whole; only later requests carry the summary.
   */
  z.strictObject({
    kind: z.literal('compaction'),
    id: z.string(),
    runId: z.string().nullable(),
    at: z.number(),
    /** auto (the threshold), tool (summarize_context), refused (the provider refused the request as too long). */
    reason: z.string(),
    tokensBefore: z.number(),
    tokensAfter: z.number(),
    dropped: z.array(z.strictObject({ role: z.string(), chars: z.number(), tools: z.array(z.string()) })),
    summary: z.string(),
    /** What every later request keeps word for word: the last messages, the person's own messages (pinned), the pinned state. */
    kept: z
      .strictObject({ messages: z.number(), chars: z.number(), instructions: z.array(z.strictObject({ id: z.number(), chars: z.number(), cut: z.boolean() })), state: z.array(z.string()) })
      .optional(),
  }),
  /**
   * A turn nobody typed: Deskhand continued the conversation because background work it started ended (a command, a
   * job batch, a wait_for). Stored as a user-role message for the model; shown as what it is, never as "You".
   */
  z.strictObject({
    kind: z.literal('wake'),
    id: z.string(),
    runId: z.string().nullable(),
    tasks: z.array(
      z.strictObject({
        id: z.string(),
        kind: z.enum(['command', 'job_batch', 'wait_for', 'question', 'subagent', 'workflow']),
        /** In plain words: "Background task finished", "Wait timed out"… */
        headline: z.string(),
        title: z.string(),
        /** What the model was given about it (outside the untrusted-content markup). */
        output: z.string(),
        notice: z.string().nullable(),
      }),
    ),
    at: z.number(),
  }),
  /**
   * What a lifecycle hook said (docs/hooks.md): a Stop (SubagentStop) hook's reason that sent the model back to work,
   * stored as a user-role message the model read (`toModel`), or a firing's notes (a `systemMessage`, a hook that
   * failed) that only the person sees. Shown as the hook's, never as "You".
   */
  z.strictObject({ kind: z.literal('hook'), id: z.string(), runId: z.string().nullable(), event: z.string(), text: z.string(), toModel: z.boolean(), at: z.number() }),
  // A composition review from the viewer (contract-compositions.ts).
  reviewItemSchema,
]);
export type MessageItem = z.infer<typeof messageItemSchema>;
export type ToolItem = Extract<MessageItem, { kind: 'tool' }>;

/** One item of the conversation's todo list (manage_todos). */
export const todoSchema = z.strictObject({
  id: z.string(),
  title: z.string(),
  status: z.enum(['pending', 'in_progress', 'done']),
  priority: z.enum(['low', 'medium', 'high']).nullable(),
});
export type TodoView = z.infer<typeof todoSchema>;

export const conversationMethods = {
  getHostInfo: {
    params: none,
    result: z.strictObject({
      /** 'acp': an editor drives this host (`deskhand acp`); it has no window of its own. */
      kind: z.enum(['electron', 'web', 'acp']),
      /** Electron offers a native folder picker (pickFolder); web mode takes a typed path. */
      canPickFolder: z.boolean(),
      /** Electron answers file_pick requests with a native dialog (pickForRequest); web mode browses (browseForRequest). */
      canPickPaths: z.boolean(),
      /** Where new conversations start when no conversation or workspace folder says otherwise (never the home folder). */
      defaultFolder: z.string(),
      /** The Deskhand folder (`~/Deskhand`) offered instead of the home folder, and whether it exists yet. */
      deskhandFolder: z.strictObject({ path: z.string(), exists: z.boolean() }),
      version: z.string(),
      /** Whether commands can run in an OS sandbox on this machine, and what it is (or why there is none). */
      sandbox: z.strictObject({ available: z.boolean(), detail: z.string() }),
    }),
  },
  listConversations: { params: none, result: z.strictObject({ conversations: z.array(conversationSummarySchema) }) },
  createConversation: {
    params: z.strictObject({
      folder: text(4096).min(1),
      policy: policySchema,
      title: text(200).optional(),
      /** Create the folder first: only for the Deskhand folder, after the dialog said it would (refused for any other). */
      createFolder: z.boolean().optional(),
    }),
    result: conversationSummarySchema,
  },
  renameConversation: {
    params: z.strictObject({ conversationId: conversationIdSchema, title: z.string().trim().min(1).max(200) }),
    result: conversationSummarySchema,
  },
  deleteConversation: { params: z.strictObject({ conversationId: conversationIdSchema }), result: ok },
  setPolicy: { params: z.strictObject({ conversationId: conversationIdSchema, policy: policySchema }), result: conversationSummarySchema },
  getMessages: {
    params: z.strictObject({ conversationId: conversationIdSchema }),
    result: z.strictObject({
      conversation: conversationSummarySchema,
      items: z.array(messageItemSchema),
      activeRun: z.strictObject({ runId: z.string(), status: z.enum(['running', 'parked']) }).nullable(),
      /** The conversation's tokens and cost so far (every run, superseded branches included: they were spent). */
      usage: turnUsageSchema.optional(),
      /** The steps already stored of the latest run: live text of those steps is in `items` already. */
      storedSteps: z.strictObject({ runId: z.string(), step: z.number() }).nullable().optional(),
    }),
  },
  getToolOutput: {
    params: z.strictObject({
      conversationId: conversationIdSchema,
      runId: runIdSchema,
      callId: z.string().min(1).max(200),
      offset: z.number().int().nonnegative().default(0),
      limit: z.number().int().min(1).max(200_000).default(50_000),
    }),
    result: z.strictObject({ text: z.string(), offset: z.number(), total: z.number(), nextOffset: z.number().nullable() }),
  },
  sendMessage: {
    params: z.strictObject({
      conversationId: conversationIdSchema,
      // Empty is allowed with attachments; main refuses a message with neither.
      text: z.string().trim().max(200_000),
      attachments: z.array(attachmentInputSchema).max(MAX_ATTACHMENTS).optional(),
      /** Edit and resend: the id of the user message (`m123`) this one replaces, with everything after it. */
      replaceFrom: messageItemIdSchema.optional(),
    }).refine((p) => p.text.length > 0 || (p.attachments?.length ?? 0) > 0, { message: 'The message is empty.', path: ['text'] }),
    /** `messageId`: the stored message (`m123`), so the page's copy of it can be edited at once. */
    result: z.strictObject({ runId: z.string(), messageId: messageItemIdSchema.optional() }),
  },
  stopRun: { params: z.strictObject({ conversationId: conversationIdSchema }), result: z.strictObject({ stopped: z.boolean() }) },
  /** Stops a run that is parked (waiting for approvals nobody answered): its approvals expire, open calls are not run. */
  stopParkedRun: {
    params: z.strictObject({ conversationId: conversationIdSchema, runId: runIdSchema }),
    result: z.strictObject({ stopped: z.boolean() }),
  },
  /** Full-text search over message text, newest first; `snippet` marks matched words with \u0002 … \u0003. */
  searchMessages: {
    params: z.strictObject({ query: z.string().trim().min(1, 'Type something to search for.').max(200), limit: z.number().int().min(1).max(200).default(50) }),
    result: z.strictObject({
      matches: z.array(
        z.strictObject({
          conversationId: conversationIdSchema,
          conversationTitle: z.string(),
          /** The transcript item to jump to (the message's first item). */
          itemId: z.string(),
          role: z.enum(['user', 'assistant']),
          snippet: z.string(),
          at: z.number(),
        }),
      ),
    }),
  },
  pickFolder: { params: none, result: z.strictObject({ folder: z.string().nullable() }) },
  setSandbox: { params: z.strictObject({ conversationId: conversationIdSchema, sandbox: sandboxModeSchema }), result: conversationSummarySchema },
  getTodos: { params: z.strictObject({ conversationId: conversationIdSchema }), result: z.strictObject({ todos: z.array(todoSchema) }) },
};
