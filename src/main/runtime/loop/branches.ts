/**
 * Edit-and-resend and regenerate. A new turn replaces the conversation from one user message on: those messages move,
 * in the same transaction that starts the new run, to `superseded_messages` under one branch id (store module
 * `chat`). They are kept — never deleted, never half-moved — but the model, search and the transcript see only the
 * current branch. Their runs and tool calls stay as they were (what ran, ran; its tokens were spent). A message the
 * conversation's summary already covers (before the latest compaction) cannot be replaced: the summary would still
 * describe the old branch.
 */
import { randomUUID } from 'node:crypto';
import { DeskhandError } from '../../../shared/errors';
import type { MessageRow, Records } from '../records';
import type { Attachment } from '../context/user-content';

export interface TurnInput {
  /** Files and images sent with the message (checked and turned into parts by user-content.ts). */
  attachments?: readonly Attachment[];
  /** The stored id of the user message this turn replaces, with everything after it. */
  replaceFrom?: number;
  /** Stored content to send as is (a regenerate resends the replaced message's own content, attachments included). */
  content?: unknown;
}

/** The user message a turn may replace, or a clear refusal. */
export function checkReplaceable(store: Records, conversationId: string, messageId: number): MessageRow {
  const row = store.chat.getMessage(conversationId, messageId);
  if (!row) throw new DeskhandError('not_found', `Message ${messageId} is not part of this conversation (it may have been replaced already).`);
  if (row.role !== 'user') throw new DeskhandError('usage', 'Only your own messages can be edited and sent again.');
  const compacted = store.compactions.latest(conversationId);
  if (compacted && messageId <= compacted.upto_message_id) {
    throw new DeskhandError('conflict', 'This message is part of the summary the conversation was compacted into; it can no longer be edited. Send a new message instead.');
  }
  return row;
}

/** Moves the messages from `messageId` on into a new superseded branch (inside the caller's transaction). */
export function supersedeFrom(store: Records, conversationId: string, messageId: number): string {
  const branch = `branch_${randomUUID()}`;
  store.chat.supersedeFrom(conversationId, messageId, branch, Date.now());
  return branch;
}

/** The last user message of the conversation: what a regenerate sends again (never a Stop hook's reason). */
export function lastUserMessage(store: Records, conversationId: string): MessageRow {
  const hooks = store.compactions.hookMessageIds(conversationId);
  const last = store.listMessages(conversationId).findLast((m) => m.role === 'user' && !hooks.has(m.id));
  if (!last) throw new DeskhandError('usage', 'There is no reply to regenerate yet: send a message first.');
  return last;
}
