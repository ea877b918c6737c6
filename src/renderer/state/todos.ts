/** The open conversation's todo list (manage_todos), as main projects it; pushed again whenever it changes. */
import { create } from 'zustand';
import type { TodoView } from '../../shared/contract';
import { api, errorText } from '../api/client';

interface TodosState {
  conversationId: string | null;
  list: TodoView[];
  error: string | null;
  load(conversationId: string | null): Promise<void>;
  set(conversationId: string, list: TodoView[]): void;
}

export const useTodos = create<TodosState>((set, get) => ({
  conversationId: null,
  list: [],
  error: null,
  async load(conversationId) {
    if (conversationId !== get().conversationId) set({ conversationId, list: [], error: null });
    if (!conversationId) return;
    try {
      const { todos } = await api().getTodos({ conversationId });
      if (get().conversationId === conversationId) set({ list: todos, error: null });
    } catch (err) {
      if (get().conversationId === conversationId) set({ error: errorText(err) });
    }
  },
  set(conversationId, list) {
    if (conversationId === get().conversationId) set({ list, error: null });
  },
}));
