/**
 * Message search: the sidebar's search box also searches what was said (full text, in main), and a match opens its
 * conversation scrolled to the message, marked.
 */
import { create } from 'zustand';
import type { MethodResult } from '../../shared/contract';
import { api, errorText } from '../api/client';
import { selectConversation } from './sync';
import { useConversations } from './conversations';

export type MessageMatch = MethodResult<'searchMessages'>['matches'][number];

interface SearchState {
  query: string;
  matches: MessageMatch[];
  searching: boolean;
  error: string | null;
  /** The transcript item to scroll to and mark; `token` changes on every jump. */
  focus: { conversationId: string; id: string; token: number } | null;
  run(query: string): void;
  jump(match: MessageMatch): void;
}

let timer: ReturnType<typeof setTimeout> | null = null;
let seq = 0;

export const useSearch = create<SearchState>((set) => ({
  query: '',
  matches: [],
  searching: false,
  error: null,
  focus: null,
  run(query) {
    set({ query });
    if (timer) clearTimeout(timer);
    const q = query.trim();
    if (q.length < 2) {
      set({ matches: [], searching: false, error: null });
      return;
    }
    set({ searching: true });
    const mine = ++seq;
    // Typing is debounced: one query per pause, and only the newest answer is shown.
    timer = setTimeout(() => {
      api()
        .searchMessages({ query: q, limit: 50 })
        .then((r) => mine === seq && set({ matches: r.matches, searching: false, error: null }))
        .catch((err: unknown) => mine === seq && set({ matches: [], searching: false, error: errorText(err) }));
    }, 200);
  },
  jump(match) {
    if (useConversations.getState().selectedId !== match.conversationId) selectConversation(match.conversationId);
    set((s) => ({ focus: { conversationId: match.conversationId, id: match.itemId, token: (s.focus?.token ?? 0) + 1 } }));
  },
}));
