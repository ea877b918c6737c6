import { create } from 'zustand';
import type { MethodResult } from '../../shared/contract';
import type { ConnectionState } from '../api/ws-client';

export type Dialog = { kind: 'new' } | { kind: 'delete'; conversationId: string; title: string } | null;

export interface Notice {
  id: number;
  text: string;
  kind: 'error' | 'info';
}

interface UiState {
  view: 'chat' | 'settings';
  panelOpen: boolean;
  dialog: Dialog;
  notices: Notice[];
  connection: ConnectionState;
  host: MethodResult<'getHostInfo'> | null;
  /** The person chose "Set up later" on the first-run panel (this window only). */
  firstRunDismissed: boolean;
  setView(view: 'chat' | 'settings'): void;
  dismissFirstRun(): void;
  togglePanel(open?: boolean): void;
  openDialog(dialog: Dialog): void;
  notify(text: string, kind?: Notice['kind']): void;
  dismiss(id: number): void;
  setConnection(connection: ConnectionState): void;
  setHost(host: MethodResult<'getHostInfo'>): void;
}

let noticeId = 0;

export const useUi = create<UiState>((set) => ({
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
  notify: (text, kind = 'error') =>
    set((s) => ({ notices: [...s.notices.filter((n) => n.text !== text).slice(-3), { id: ++noticeId, text, kind }] })),
  dismiss: (id) => set((s) => ({ notices: s.notices.filter((n) => n.id !== id) })),
  setConnection: (connection) => set({ connection }),
  setHost: (host) => set({ host }),
}));
