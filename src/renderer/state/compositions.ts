/** Compositions of the open conversation, and the one open in the viewer (issue 17). */
import { create } from 'zustand';
import type { CompositionDetailView, CompositionSummaryView } from '../../shared/contract';
import { api, errorText } from '../api/client';

interface CompositionsState {
  conversationId: string | null;
  list: CompositionSummaryView[];
  error: string | null;
  /** The composition in the viewer, with its details. */
  open: CompositionDetailView | null;
  /** When the person asked to open it (for the time-to-first-paint figure). */
  openedAt: number;
  load(conversationId: string | null): Promise<void>;
  show(id: string): Promise<void>;
  refreshOpen(): Promise<void>;
  close(): void;
}

export const useCompositions = create<CompositionsState>((set, get) => ({
  conversationId: null,
  list: [],
  error: null,
  open: null,
  openedAt: 0,
  async load(conversationId) {
    if (conversationId !== get().conversationId) set({ conversationId, list: [], error: null });
    if (!conversationId) return;
    try {
      const { compositions } = await api().listCompositions({ conversationId });
      if (get().conversationId === conversationId) set({ list: compositions, error: null });
    } catch (err) {
      if (get().conversationId === conversationId) set({ error: errorText(err) });
    }
  },
  async show(id) {
    set({ openedAt: performance.now() });
    try {
      set({ open: await api().getComposition({ id }), error: null });
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
  async refreshOpen() {
    const open = get().open;
    if (!open) return;
    try {
      const next = await api().getComposition({ id: open.id });
      if (get().open?.id === open.id) set({ open: next });
    } catch {
      // kept as it was; the next change tries again
    }
  },
  close: () => set({ open: null }),
}));
