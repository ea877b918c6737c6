import { create } from 'zustand';
import type { PendingApproval } from '../../shared/contract';

interface ApprovalsState {
  list: PendingApproval[];
  /** The approval a person asked to see (tray, notification, right panel); its card scrolls into view and takes focus. */
  focusId: string | null;
  set(list: PendingApproval[]): void;
  focus(id: string | null): void;
}

export const useApprovals = create<ApprovalsState>((set) => ({
  list: [],
  focusId: null,
  set: (list) => set({ list }),
  focus: (focusId) => set({ focusId }),
}));
