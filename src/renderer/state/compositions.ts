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

/**
 * Viewer tickets asked for while the details load (the list knows the latest version): the frame's page request then
 * starts one round trip sooner. Keyed `id:version`; each is taken once.
 */
const early = new Map<string, Promise<{ url: string }>>();

/** The ticket asked for early for this version, if any (then forgotten); else null. */
export function takeEarlyTicket(id: string, version: number): Promise<{ url: string }> | null {
  const t = early.get(`${id}:${version}`) ?? null;
  early.delete(`${id}:${version}`);
  return t;
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
    const latest = get().list.find((c) => c.id === id)?.latestVersion;
    early.clear();
    if (latest) {
      const ticket = api().openComposition({ id, version: latest });
      ticket.catch(() => undefined); // the frame asks again and shows the error
      early.set(`${id}:${latest}`, ticket);
    }
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
