/** The open conversation's browser session (browser family), as main pushes it: current tab, URL, title, a screenshot. */
import { create } from 'zustand';
import type { BrowserSessionView } from '../../shared/contract';
import { api, errorText } from '../api/client';

interface BrowserState {
  conversationId: string | null;
  session: BrowserSessionView | null;
  /** The latest screenshots of this session, newest last (the live strip). */
  strip: string[];
  error: string | null;
  load(conversationId: string | null): Promise<void>;
  set(conversationId: string, session: BrowserSessionView | null): void;
  stop(): Promise<void>;
}

const STRIP = 6;

export const useBrowser = create<BrowserState>((set, get) => ({
  conversationId: null,
  session: null,
  strip: [],
  error: null,
  async load(conversationId) {
    if (conversationId !== get().conversationId) set({ conversationId, session: null, strip: [], error: null });
    if (!conversationId) return;
    try {
      const { session } = await api().getBrowserSession({ conversationId });
      if (get().conversationId === conversationId) get().set(conversationId, session);
    } catch (err) {
      if (get().conversationId === conversationId) set({ error: errorText(err) });
    }
  },
  set(conversationId, session) {
    if (conversationId !== get().conversationId) return;
    const shot = session?.shot;
    const strip = !session ? [] : shot && get().strip.at(-1) !== shot ? [...get().strip, shot].slice(-STRIP) : get().strip;
    set({ session, strip, error: null });
  },
  async stop() {
    const id = get().conversationId;
    if (!id) return;
    try {
      await api().closeBrowserSession({ conversationId: id });
      get().set(id, null);
    } catch (err) {
      set({ error: errorText(err) });
    }
  },
}));
