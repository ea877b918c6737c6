/**
 * The open conversation's change ledger (docs/rewind.md): what each of the person's turns changed on disk (loaded
 * with the transcript and again when a run ends), the rewind being prepared (its choice and dry run) and the last
 * rewind, which "Redo" takes back.
 */
import { create } from 'zustand';
import type { MethodResult } from '../../shared/contract';
import type { ChangedPathView, RewindItemView } from '../../shared/contract/changes';
import { api, errorText } from '../api/client';
import { useUi } from './ui';

export type RewindMode = 'both' | 'files' | 'conversation';

export interface TurnChanges {
  turn: number;
  messageId: string;
  total: number;
  changes: ChangedPathView[];
}

export interface RewindDraft {
  messageId: string;
  mode: RewindMode;
  /** The dry run for this mode (null while it loads). */
  preview: RewindItemView[] | null;
  busy: boolean;
  error: string | null;
}

interface ChangesState {
  conversationId: string | null;
  byMessage: Record<string, TurnChanges>;
  lastRewind: MethodResult<'listChanges'>['lastRewind'];
  draft: RewindDraft | null;
  /** What the last rewind done here did (shown until the next one or another conversation). */
  done: { items: RewindItemView[]; conversation: boolean; redo: boolean } | null;
  load(conversationId: string | null): Promise<void>;
  startRewind(messageId: string): void;
  setMode(mode: RewindMode): void;
  cancelRewind(): void;
  /** Runs the drafted rewind; resolves true when it ran. */
  confirmRewind(): Promise<boolean>;
  redo(): Promise<boolean>;
}

let seq = 0;

export const useChanges = create<ChangesState>((set, get) => {
  async function preview(): Promise<void> {
    const conversationId = get().conversationId;
    const draft = get().draft;
    if (!conversationId || !draft) return;
    const mine = ++seq;
    try {
      const r = await api().rewind({ conversationId, to: draft.messageId, mode: draft.mode, dryRun: true });
      if (mine !== seq) return;
      set((s) => (s.draft ? { draft: { ...s.draft, preview: r.files?.items ?? [], error: null } } : {}));
    } catch (err) {
      if (mine === seq) set((s) => (s.draft ? { draft: { ...s.draft, preview: [], error: errorText(err) } } : {}));
    }
  }
  return {
    conversationId: null,
    byMessage: {},
    lastRewind: null,
    draft: null,
    done: null,
    async load(conversationId) {
      if (conversationId !== get().conversationId) set({ conversationId, byMessage: {}, lastRewind: null, draft: null, done: null });
      if (!conversationId) return;
      try {
        const r = await api().listChanges({ conversationId });
        if (get().conversationId !== conversationId) return;
        set({ byMessage: Object.fromEntries(r.turns.map((t) => [t.messageId, t])), lastRewind: r.lastRewind });
      } catch {
        // The list is an extra: the transcript shows without it.
      }
    },
    startRewind(messageId) {
      set({ draft: { messageId, mode: 'both', preview: null, busy: false, error: null }, done: null });
      void preview();
    },
    setMode(mode) {
      set((s) => (s.draft ? { draft: { ...s.draft, mode, preview: null, error: null } } : {}));
      void preview();
    },
    cancelRewind() {
      seq++;
      set({ draft: null });
    },
    async confirmRewind() {
      const conversationId = get().conversationId;
      const draft = get().draft;
      if (!conversationId || !draft || draft.busy) return false;
      set({ draft: { ...draft, busy: true, error: null } });
      try {
        const r = await api().rewind({ conversationId, to: draft.messageId, mode: draft.mode });
        set({ draft: null, done: { items: r.files?.items ?? [], conversation: !!r.conversation, redo: false } });
        await get().load(conversationId);
        return true;
      } catch (err) {
        set((s) => (s.draft ? { draft: { ...s.draft, busy: false, error: errorText(err) } } : {}));
        return false;
      }
    },
    async redo() {
      const conversationId = get().conversationId;
      if (!conversationId) return false;
      try {
        const r = await api().rewind({ conversationId, redo: true });
        set({ done: { items: r.files?.items ?? [], conversation: false, redo: true } });
        await get().load(conversationId);
        return true;
      } catch (err) {
        useUi.getState().notify(errorText(err));
        return false;
      }
    },
  };
});
