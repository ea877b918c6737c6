/** The subagents under the open conversation (a tree, every depth) and its own place when it is a child. */
import { create } from 'zustand';
import type { MethodResult } from '../../../shared/contract';
import type { SubagentView } from '../../../shared/contract/subagents';
import { api, errorText } from '../../api/client';

type Self = MethodResult<'listSubagents'>['self'];

interface SubagentsState {
  conversationId: string | null;
  list: SubagentView[];
  self: Self;
  error: string | null;
  /** Ids with a steer or cancel on its way (their buttons wait). */
  busy: string[];
  load(conversationId: string | null): Promise<void>;
  steer(id: string, message: string): Promise<boolean>;
  cancel(id: string): Promise<void>;
}

export const useSubagents = create<SubagentsState>((set, get) => {
  const act = async (id: string, work: () => Promise<unknown>): Promise<boolean> => {
    set((s) => ({ busy: [...s.busy, id] }));
    try {
      await work();
      await get().load(get().conversationId);
      return true;
    } catch (err) {
      set({ error: errorText(err) });
      return false;
    } finally {
      set((s) => ({ busy: s.busy.filter((b) => b !== id) }));
    }
  };
  return {
    conversationId: null,
    list: [],
    self: null,
    error: null,
    busy: [],
    async load(conversationId) {
      if (conversationId !== get().conversationId) set({ conversationId, list: [], self: null, error: null });
      if (!conversationId) return;
      try {
        const r = await api().listSubagents({ conversationId });
        // A slower answer for a conversation left meanwhile is dropped.
        if (get().conversationId === conversationId) set({ list: r.subagents, self: r.self, error: null });
      } catch (err) {
        if (get().conversationId === conversationId) set({ error: errorText(err) });
      }
    },
    steer: (id, message) => act(id, () => api().steerSubagent({ subagentId: id, message })),
    async cancel(id) {
      await act(id, () => api().cancelSubagent({ subagentId: id }));
    },
  };
});

/** Children of one node (a conversation's own children when `parent` is null), in start order. */
export function childrenOf(list: readonly SubagentView[], parent: SubagentView | null, root: string): SubagentView[] {
  return list.filter((s) => (parent ? s.parentConversationId === parent.conversationId : s.parentConversationId === root));
}
