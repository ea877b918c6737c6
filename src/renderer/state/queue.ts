/**
 * Messages typed while Deskhand is working in a conversation (a run the person started, or a turn Deskhand started
 * because background work ended). They wait here, shown as queued, and are sent one by one when the conversation is
 * idle again (sync.ts drains them), with the files attached to them. They live in this window only: a reload drops
 * them (the window says so).
 */
import { create } from 'zustand';
import type { PendingAttachment } from './chat';

export interface QueuedMessage {
  id: string;
  conversationId: string;
  text: string;
  /** Files attached when it was queued (read and checked then); sent with it as parts. */
  attachments: PendingAttachment[];
  at: number;
  /** Why sending it failed (it then waits for the person: Retry or Remove). */
  error: string | null;
}

interface QueueState {
  items: QueuedMessage[];
  /** The one being sent right now (hidden from the queue; its text is on its way). */
  sending: string | null;
  add(conversationId: string, text: string, attachments?: PendingAttachment[]): QueuedMessage;
  remove(id: string): void;
  fail(id: string, error: string | null): void;
  setSending(id: string | null): void;
}

let seq = 0;

export const useQueue = create<QueueState>((set) => ({
  items: [],
  sending: null,
  add(conversationId, text, attachments = []) {
    const item: QueuedMessage = { id: `q${++seq}`, conversationId, text, attachments, at: Date.now(), error: null };
    set((s) => ({ items: [...s.items, item] }));
    return item;
  },
  remove: (id) => set((s) => ({ items: s.items.filter((i) => i.id !== id) })),
  fail: (id, error) => set((s) => ({ items: s.items.map((i) => (i.id === id ? { ...i, error } : i)) })),
  setSending: (sending) => set({ sending }),
}));
