/**
 * The chat family's contract pieces (kept beside contract.ts): attachments, tokens and cost, who cleared a tool call,
 * regenerate and export. Pure.
 */
import { z } from 'zod';

const conversationIdSchema = z.string().regex(/^conv_[A-Za-z0-9_-]{1,80}$/, 'not a conversation id');

/** The transcript's id of a stored message (`m123`, `m123.1` for the second text of one message). */
export const messageItemIdSchema = z.string().regex(/^m\d{1,15}$/, 'not a message id (m123)');

export const attachmentInputSchema = z.strictObject({
  name: z.string().min(1).max(300),
  mediaType: z.string().max(200),
  /** The bytes, base64 (main checks kinds and sizes: shared/attachments.ts). */
  data: z.string().max(1_000_000),
});

export const attachmentViewSchema = z.strictObject({
  name: z.string(),
  kind: z.enum(['image', 'text']),
  bytes: z.number(),
  /** Images: a data: URL for the thumbnail. */
  dataUrl: z.string().nullable(),
  /** Text: its first lines, for the chip's "show" (the model got all of it). */
  preview: z.string().optional(),
});
export type AttachmentView = z.infer<typeof attachmentViewSchema>;

export const turnUsageSchema = z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  /** Of inputTokens: served from the provider's prompt cache. */
  cacheReadTokens: z.number(),
  /** Of inputTokens: written to the provider's prompt cache (Anthropic charges these above the input price). */
  cacheWriteTokens: z.number().optional(),
  /** US dollars from the price table (src/shared/prices.ts); null when a model's price is unknown. */
  costUsd: z.number().nullable(),
  /** The models the figure covers (a conversation may use several). */
  models: z.array(z.string()),
});
export type TurnUsage = z.infer<typeof turnUsageSchema>;

export const clearedSchema = z.strictObject({
  /** 'person': answered in a UI or the CLI (`via`); 'rule': a saved rule (`via` is its pattern); 'policy': the policy allowed it. */
  by: z.enum(['person', 'rule', 'policy']),
  via: z.string().nullable(),
  /** The answer: approved or denied (a rule or the policy only ever approves). */
  decision: z.enum(['approved', 'denied']),
  at: z.number().nullable(),
});
export type Cleared = z.infer<typeof clearedSchema>;

export const chatMethods = {
  /** Sends the conversation's last user message again (its attachments too), replacing the reply and what followed. */
  regenerate: { params: z.strictObject({ conversationId: conversationIdSchema }), result: z.strictObject({ runId: z.string() }) },
  /**
   * A new conversation whose history is this one's up to a message (its id as the transcript names it: m42, m42.2;
   * without one, all of it), and nothing after; the source is unchanged. Returns the fork (docs/chat.md, "Fork").
   */
  forkConversation: {
    params: z.strictObject({ conversationId: conversationIdSchema, messageId: z.string().regex(/^m?\d{1,15}(\.\d+)?$/, 'not a message id').optional() }),
    result: z.strictObject({ conversationId: z.string(), title: z.string() }),
  },
  /** The conversation as Markdown: messages, tool calls with their arguments and outputs (untrusted markup removed), never secrets. */
  exportConversation: {
    params: z.strictObject({ conversationId: conversationIdSchema }),
    result: z.strictObject({ markdown: z.string(), fileName: z.string() }),
  },
  /**
   * The person marks an untrusted tool result of the conversation as reviewed: they read it and vouch for it, so it no
   * longer taints the conversation (SECURITY.md §9b). Refused for a result that is not untrusted, a call of another
   * conversation, a subagent's or a peer's conversation.
   */
  markReviewed: {
    params: z.strictObject({ conversationId: conversationIdSchema, callId: z.string().min(1).max(200) }),
    result: z.strictObject({ callId: z.string(), tool: z.string(), reviewedBy: z.string(), reviewedAt: z.number(), marked: z.boolean() }),
  },
};

export const CHAT_METHOD_NAMES = ['regenerate', 'forkConversation', 'exportConversation', 'markReviewed'] as const;
