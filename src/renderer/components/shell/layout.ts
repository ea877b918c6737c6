/**
 * The window's layout as the person left it: side panel widths and whether the sidebar is collapsed. Kept in this
 * browser's localStorage (a per-window preference, like a window size; the theme, which main also needs to know
 * nothing about but which should follow the person across windows, is a setting).
 */
import { create } from 'zustand';

export const SIDEBAR = { min: 180, max: 420, initial: 260 } as const;
export const PANEL = { min: 240, max: 520, initial: 300 } as const;
/**
 * Below this window width the right panel is a drawer over the conversation instead of a column (its button reopens
 * it): at 1000 px three columns left the conversation about 440 px (issue 52).
 */
export const NARROW_PX = 1200;
const KEY = 'deskhand.layout';

interface Saved {
  sidebarWidth: number;
  panelWidth: number;
  sidebarCollapsed: boolean;
}

interface LayoutState extends Saved {
  setSidebarWidth(px: number): void;
  setPanelWidth(px: number): void;
  toggleSidebar(collapsed?: boolean): void;
}

export const clamp = (px: number, range: { min: number; max: number }) => Math.round(Math.min(range.max, Math.max(range.min, px)));

function load(): Saved {
  const fallback: Saved = { sidebarWidth: SIDEBAR.initial, panelWidth: PANEL.initial, sidebarCollapsed: false };
  try {
    const raw = globalThis.localStorage?.getItem(KEY);
    if (!raw) return fallback;
    const v = JSON.parse(raw) as Partial<Saved>;
    return {
      sidebarWidth: typeof v.sidebarWidth === 'number' ? clamp(v.sidebarWidth, SIDEBAR) : fallback.sidebarWidth,
      panelWidth: typeof v.panelWidth === 'number' ? clamp(v.panelWidth, PANEL) : fallback.panelWidth,
      sidebarCollapsed: v.sidebarCollapsed === true,
    };
  } catch {
    return fallback;
  }
}

function save(s: Saved): void {
  try {
    globalThis.localStorage?.setItem(KEY, JSON.stringify({ sidebarWidth: s.sidebarWidth, panelWidth: s.panelWidth, sidebarCollapsed: s.sidebarCollapsed }));
  } catch {
    // storage full or blocked: the layout still works for this window
  }
}

export const useLayout = create<LayoutState>((set, get) => ({
  ...load(),
  setSidebarWidth: (px) => {
    set({ sidebarWidth: clamp(px, SIDEBAR) });
    save(get());
  },
  setPanelWidth: (px) => {
    set({ panelWidth: clamp(px, PANEL) });
    save(get());
  },
  toggleSidebar: (collapsed) => {
    set((s) => ({ sidebarCollapsed: collapsed ?? !s.sidebarCollapsed }));
    save(get());
  },
}));
