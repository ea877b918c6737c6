/**
 * The model's verbatim view of a conversation (its messages after the latest compaction), kept between steps so a
 * step reads only what was appended since the last one, with a running size estimate updated as messages arrive.
 *
 * Before every model call the loop needs the history (for the request) and its size (for the compaction threshold).
 * Reading and parsing the whole conversation for both, every step, made each step's cost grow with the conversation
 * (and the loop quadratic in its length). Now a step costs one indexed read of the rows after the last id seen and a
 * count: message ids only grow, and a deletion or replacement anywhere (another process, an edit that truncates)
 * changes the count, which reloads the view from the store. A new compaction record moves the start of the view.
 *
 * Parsed messages are shared between steps, so they are frozen: nothing downstream may change what it was given.
 */
import type { Store } from '../../services/store/store';
import type { StoredMessage } from '../loop/model-call';

export type ViewedMessage = StoredMessage & { id: number; chars: number };

interface View {
  /** Messages with ids above this are in the view (the latest compaction's last dropped id, or 0). */
  after: number;
  lastId: number;
  messages: ViewedMessage[];
  /** Sum of the messages' sizes (characters as sent: a text's length, otherwise its JSON, images counted apart). */
  chars: number;
}

/** Conversations kept per store (a host drives a few at a time; the least recently used one goes first). */
const KEPT = 16;
const views = new WeakMap<Store, Map<string, View>>();

/** How many rows the view loaded from the store (all calls, all stores): what tests use to prove reads are incremental. */
export const historyReads = { rows: 0, reloads: 0 };

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/**
 * What an attached image costs in the estimate, in characters (4 to a token): providers bill an image by its pixels,
 * not by the length of its base64 (Anthropic about 1,600 tokens for one at the 1,568 px it is scaled to, OpenAI at
 * most 1,105 at high detail), so an image counts as 1,600 tokens, and its base64 not at all: a 1 MB photo would
 * otherwise count as 350,000 tokens and compact the conversation at once.
 */
export const IMAGE_PART_CHARS = 1_600 * 4;

/** A message's size for the estimate: its JSON, less the base64 of its image parts, plus IMAGE_PART_CHARS each. */
export function messageChars(content: unknown, json: string): number {
  if (typeof content === 'string') return content.length;
  let chars = json.length;
  if (Array.isArray(content)) {
    for (const part of content as { type?: unknown; data?: unknown; mediaType?: unknown }[]) {
      if (part && part.type === 'file' && typeof part.data === 'string' && typeof part.mediaType === 'string' && part.mediaType.startsWith('image/')) {
        chars += IMAGE_PART_CHARS - part.data.length;
      }
    }
  }
  return Math.max(0, chars);
}

function toViewed(row: { id: number; role: StoredMessage['role']; content: string }): ViewedMessage {
  const content = JSON.parse(row.content) as unknown;
  return { id: row.id, role: row.role, content: deepFreeze(content), chars: messageChars(content, row.content) };
}

function load(store: Store, conversationId: string, after: number): View {
  const rows = store.messagesAfter(conversationId, after);
  historyReads.rows += rows.length;
  historyReads.reloads++;
  const messages = rows.map(toViewed);
  return { after, lastId: rows.length ? rows[rows.length - 1]!.id : after, messages, chars: messages.reduce((n, m) => n + m.chars, 0) };
}

/**
 * The messages after `after` (the latest compaction's boundary), up to date with the store, and their total size.
 * The returned array is a snapshot: later appends do not change it.
 */
export function historyView(store: Store, conversationId: string, after: number): { messages: readonly ViewedMessage[]; chars: number } {
  let perStore = views.get(store);
  if (!perStore) views.set(store, (perStore = new Map()));
  let view = perStore.get(conversationId);
  perStore.delete(conversationId);
  if (view && after !== view.after) {
    if (after > view.after) {
      // A compaction moved the boundary forward: drop what it covers.
      const cut = view.messages.findIndex((m) => m.id > after);
      const dropped = cut < 0 ? view.messages : view.messages.slice(0, cut);
      view.messages = cut < 0 ? [] : view.messages.slice(cut);
      view.chars -= dropped.reduce((n, m) => n + m.chars, 0);
      view.after = after;
      view.lastId = Math.max(view.lastId, after);
    } else view = undefined;
  }
  if (!view) view = load(store, conversationId, after);
  else {
    const added = store.messagesAfter(conversationId, view.lastId);
    historyReads.rows += added.length;
    for (const row of added) {
      const m = toViewed(row);
      view.messages.push(m);
      view.chars += m.chars;
      view.lastId = row.id;
    }
    // Anything but appends (a deletion, a replacement, rows below the last id seen) changes the count: reload.
    if (store.countMessagesAfter(conversationId, after) !== view.messages.length) view = load(store, conversationId, after);
  }
  perStore.set(conversationId, view);
  if (perStore.size > KEPT) perStore.delete(perStore.keys().next().value!);
  return { messages: view.messages.slice(), chars: view.chars };
}
