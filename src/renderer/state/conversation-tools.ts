/**
 * The open conversation's tools (the /tools panel and the header's family toggles read the same slice): what its
 * agent may use, its families and its project instructions, loaded from main when the conversation opens, when the
 * panel opens, after a toggle and after each run (search_tools loads families as it works).
 */
import { create } from 'zustand';
import type { ConversationToolsView } from '../../shared/contract/tools';
import { api, errorText } from '../api/client';

interface ConversationToolsState {
  conversationId: string | null;
  view: ConversationToolsView | null;
  error: string | null;
  /** The /tools panel is shown. */
  panelOpen: boolean;
  /** Families being switched now (their toggles wait). */
  busy: string[];
  load(conversationId: string | null): Promise<void>;
  openPanel(open?: boolean): void;
  setFamily(name: string, enabled: boolean): Promise<void>;
}

export const useConversationTools = create<ConversationToolsState>((set, get) => ({
  conversationId: null,
  view: null,
  error: null,
  panelOpen: false,
  busy: [],
  async load(conversationId) {
    if (conversationId !== get().conversationId) set({ conversationId, view: null, error: null });
    if (!conversationId) return;
    try {
      const view = await api().getConversationTools({ conversationId });
      if (get().conversationId === conversationId) set({ view, error: null });
    } catch (err) {
      if (get().conversationId === conversationId) set({ error: errorText(err) });
    }
  },
  openPanel(open) {
    const next = open ?? !get().panelOpen;
    set({ panelOpen: next });
    if (next) void get().load(get().conversationId);
  },
  async setFamily(name, enabled) {
    const conversationId = get().conversationId;
    if (!conversationId) return;
    set((s) => ({ busy: [...s.busy, name] }));
    try {
      const view = await api().setConversationFamilies({ conversationId, families: [name], enabled });
      if (get().conversationId === conversationId) set({ view, error: null });
    } catch (err) {
      set({ error: errorText(err) });
    } finally {
      set((s) => ({ busy: s.busy.filter((b) => b !== name) }));
    }
  },
}));

/** Words for a family in toggles and lists. */
export const FAMILY_LABEL: Readonly<Record<string, string>> = { browser: 'Browser', computer: 'Computer use', mcp: 'MCP', pdf: 'PDFs' };
export const familyLabel = (name: string): string => FAMILY_LABEL[name] ?? name.charAt(0).toUpperCase() + name.slice(1);

/** Whether a family is on for the conversation (enabled here or by its profile, or always loaded). */
export const familyOn = (state: string): boolean => state === 'enabled' || state === 'profile' || state === 'default';

/** A composer text that opens the /tools panel instead of being sent. */
export const isToolsCommand = (text: string): boolean => /^\/tools\s*$/i.test(text.trim());
