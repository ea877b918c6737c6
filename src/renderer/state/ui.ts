import { create } from 'zustand';
import type { MethodResult } from '../../shared/contract';
import type { ConnectionState } from '../api/ws-client';
import { useConversations } from './conversations';

export type Dialog = { kind: 'new' } | { kind: 'delete'; conversationId: string; title: string } | null;

export interface Notice {
  id: number;
  text: string;
  kind: 'error' | 'info';
  /** The conversation open when it was raised: it is dropped when the person opens another one. */
  conversationId: string | null;
}

/** How long an info notice stays; errors stay until the person dismisses them (they may need reading twice). */
export const INFO_NOTICE_MS = 6000;

interface UiState {
  view: 'chat' | 'settings' | 'usage';
  panelOpen: boolean;
  dialog: Dialog;
  notices: Notice[];
  connection: ConnectionState;
  host: MethodResult<'getHostInfo'> | null;
  /** The person chose "Set up later" on the first-run panel (this window only). */
  firstRunDismissed: boolean;
  setView(view: 'chat' | 'settings' | 'usage'): void;
  dismissFirstRun(): void;
  togglePanel(open?: boolean): void;
  openDialog(dialog: Dialog): void;
  notify(text: string, kind?: Notice['kind']): void;
  dismiss(id: number): void;
  /** A conversation was opened: notices raised in another one go. */
  leaveConversation(conversationId: string | null): void;
  setConnection(connection: ConnectionState): void;
  setHost(host: MethodResult<'getHostInfo'>): void;
}

let noticeId = 0;

export const useUi = create<UiState>((set, get) => ({
  view: 'chat',
  panelOpen: true,
  dialog: null,
  notices: [],
  connection: 'connecting',
  host: null,
  firstRunDismissed: false,
  setView: (view) => set({ view }),
  dismissFirstRun: () => set({ firstRunDismissed: true }),
  togglePanel: (open) => set((s) => ({ panelOpen: open ?? !s.panelOpen })),
  openDialog: (dialog) => set({ dialog }),
  notify: (text, kind = 'error') => {
    const id = ++noticeId;
    const conversationId = useConversations.getState().selectedId;
    set((s) => ({ notices: [...s.notices.filter((n) => n.text !== text).slice(-3), { id, text, kind, conversationId }] }));
    if (kind === 'info') setTimeout(() => get().dismiss(id), INFO_NOTICE_MS);
  },
  dismiss: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
  leaveConversation: (conversationId) => set((s) => ({ notices: s.notices.filter((n) => n.conversationId === null || n.conversationId === conversationId) })),
  setConnection: (connection) => set({ connection }),
  setHost: (host) => set({ host }),
}));
