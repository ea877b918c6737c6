import { create } from 'zustand';
import type { ConversationSummary } from '../../shared/contract';

interface ConversationsState {
  list: ConversationSummary[];
  loaded: boolean;
  selectedId: string | null;
  search: string;
  setList(list: ConversationSummary[]): void;
  upsert(summary: ConversationSummary): void;
  select(id: string | null): void;
  setSearch(search: string): void;
}

export const useConversations = create<ConversationsState>((set) => ({
  list: [],
  loaded: false,
  selectedId: null,
  search: '',
  setList: (list) =>
    set((s) => ({
      list,
      loaded: true,
      selectedId: s.selectedId && list.some((c) => c.id === s.selectedId) ? s.selectedId : null,
    })),
  upsert: (summary) =>
    set((s) => {
      const i = s.list.findIndex((c) => c.id === summary.id);
      if (i === -1) return { list: [summary, ...s.list] };
      const list = s.list.slice();
      list[i] = summary;
      return { list };
    }),
  select: (selectedId) => set({ selectedId }),
  setSearch: (search) => set({ search }),
}));

export interface FolderGroup {
  folder: string;
  name: string;
  conversations: ConversationSummary[];
}

/** Conversations grouped by working folder (most recently active group first), filtered by title. */
export function groupByFolder(list: ConversationSummary[], search: string): FolderGroup[] {
  const q = search.trim().toLowerCase();
  const groups = new Map<string, FolderGroup>();
  for (const c of list) {
    // A subagent's conversation is reached through its parent's tree (or a search, or #c=), not the sidebar.
    if (c.subagentOf) continue;
    if (q && !c.title.toLowerCase().includes(q)) continue;
    let g = groups.get(c.folder);
    if (!g) {
      const parts = c.folder.split(/[\\/]/).filter(Boolean);
      g = { folder: c.folder, name: parts[parts.length - 1] ?? c.folder, conversations: [] };
      groups.set(c.folder, g);
    }
    g.conversations.push(c);
  }
  return [...groups.values()];
}
