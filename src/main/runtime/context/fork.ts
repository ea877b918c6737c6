/**
 * Forking a conversation: a new conversation whose history is the source's up to a message (inclusive), and nothing
 * after it. The messages are copied with their runs and tool calls (so the transcript shows the same cards), the
 * person's own messages stay marked as theirs (compaction pins them), and the fork keeps the folder, policy, sandbox,
 * working directory and loaded tools; its todos and work state start empty (they may describe later work). The
 * source is not changed. An edit or a regenerate keeps a branch inside one conversation (branches.ts); a fork makes
 * the branch a conversation of its own.
 */
import { randomUUID } from 'node:crypto';
import { DeskhandError } from '../../../shared/errors';
import { chatModule } from '../../services/store/modules/chat';
import { contextModule } from '../../services/store/modules/context';
import type { ConversationRow, Store } from '../../services/store/store';
import { PersistentConversationState } from './conversation-state';

/** A message id as the CLI and the UI name it: `123`, `m123`, or a part of one (`m123.2`). */
export function parseMessageRef(ref: string | number): number {
  const m = /^m?(\d{1,15})(?:\.\d+)?$/.exec(String(ref).trim());
  if (!m) throw new DeskhandError('usage', `"${String(ref)}" is not a message id: give its number (as \`deskhand conversations export\` and the app's Fork name it, e.g. 42 or m42).`);
  return Number(m[1]);
}

export function forkConversation(store: Store, sourceId: string, at?: number): ConversationRow {
  const source = store.getConversation(sourceId);
  if (!source) throw new DeskhandError('not_found', `No conversation ${sourceId}. List them with \`deskhand runs list\`.`);
  const messages = store.listMessages(sourceId);
  if (messages.length === 0) throw new DeskhandError('usage', 'That conversation has no messages to fork yet.');
  let index = at === undefined ? messages.length - 1 : messages.findIndex((m) => m.id === at);
  if (index < 0) throw new DeskhandError('not_found', `Conversation ${sourceId} has no message ${at} (a message an edit replaced is no longer in it). Its messages are ${messages[0]!.id}–${messages.at(-1)!.id}.`);
  // A reply that called tools keeps its results: a request may not hold a call without its result.
  while (index + 1 < messages.length && messages[index]!.role !== 'user' && messages[index + 1]!.role === 'tool') index++;
  const upto = messages[index]!.id;
  const state = new PersistentConversationState(source.folder, source.state);
  state.todos = [];
  state.workState = {};
  const id = `conv_${randomUUID()}`;
  return store.transaction(() => {
    const conv = store.createConversation({ id, title: `${source.title} (fork)`, folder: source.folder, policy: source.policy, sandbox: source.sandbox });
    store.updateConversation(id, { state: state.serialize() });
    const ids = store.module(chatModule).copyHistory(sourceId, id, upto, () => randomUUID());
    const ctx = store.module(contextModule);
    for (const p of ctx.personMessages(sourceId, upto)) {
      const copied = ids.get(p.id);
      if (copied !== undefined) ctx.markPerson(id, copied);
    }
    // A Stop hook's reason stays the hook's in the fork (never shown as the person's).
    for (const h of ctx.hookMessages(sourceId)) {
      const copied = h.message_id === null ? undefined : ids.get(h.message_id);
      if (copied !== undefined) ctx.addHookMessage({ conversationId: id, runId: h.run_id, event: h.event, messageId: copied, text: h.text });
    }
    return store.getConversation(conv.id)!;
  });
}
