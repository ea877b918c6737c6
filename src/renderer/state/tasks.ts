/** The background tasks of the open conversation (commands, job batches, waits), as main projects them. */
import { create } from 'zustand';
import type { BackgroundTaskView } from '../../shared/contract';
import { api, errorText } from '../api/client';

interface TasksState {
  conversationId: string | null;
  list: BackgroundTaskView[];
  error: string | null;
  /** Ids being cancelled right now (their button waits). */
  cancelling: string[];
  load(conversationId: string | null): Promise<void>;
  cancel(taskId: string): Promise<void>;
}

export const useTasks = create<TasksState>((set, get) => ({
  conversationId: null,
  list: [],
  error: null,
  cancelling: [],
  async load(conversationId) {
    if (conversationId !== get().conversationId) set({ conversationId, list: [], error: null });
    if (!conversationId) return;
    try {
      const { tasks } = await api().listBackgroundTasks({ conversationId });
      // A slower answer for a conversation left meanwhile is dropped.
      if (get().conversationId === conversationId) set({ list: tasks, error: null });
    } catch (err) {
      if (get().conversationId === conversationId) set({ error: errorText(err) });
    }
  },
  async cancel(taskId) {
    const conversationId = get().conversationId;
    if (!conversationId) return;
    set((s) => ({ cancelling: [...s.cancelling, taskId] }));
    try {
      await api().cancelBackgroundTask({ conversationId, taskId });
      await get().load(conversationId);
    } catch (err) {
      set({ error: errorText(err) });
    } finally {
      set((s) => ({ cancelling: s.cancelling.filter((id) => id !== taskId) }));
    }
  },
}));
