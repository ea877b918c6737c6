/**
 * How each tool is shown (title, icon, result hint), as the tools declare it: loaded once with listTools and again
 * when main says the tool set changed. A name nothing declared (an unknown tool the model sent) gets its own words.
 */
import { create } from 'zustand';
import type { MethodResult } from '../../shared/contract';
import { ICON_GLYPHS, unknownToolTitle, type ToolIcon } from '../../shared/tool-presentation';
import { api } from '../api/client';

type ToolView = MethodResult<'listTools'>['tools'][number];

interface ToolsState {
  byName: Record<string, ToolView>;
  /** The tool list arrived (before that, a name is not yet known to be unknown). */
  loaded: boolean;
  load(): Promise<void>;
}

export const useTools = create<ToolsState>((set) => ({
  byName: {},
  loaded: false,
  async load() {
    const { tools } = await api().listTools({});
    set({ byName: Object.fromEntries(tools.map((t) => [t.name, t])), loaded: true });
  },
}));

export interface ToolLook {
  title: string;
  icon: ToolIcon;
  glyph: string;
}

export function lookOf(byName: Record<string, ToolView>, tool: string, loaded = true): ToolLook {
  const view = Object.prototype.hasOwnProperty.call(byName, tool) ? byName[tool] : undefined;
  const icon = view?.icon ?? 'tool';
  // Not in the list: the name as sent until the list is there, then said to be unknown (not title-cased as if real).
  const title = view?.title ?? (loaded ? unknownToolTitle(tool) : tool);
  return { title, icon, glyph: ICON_GLYPHS[icon] };
}

/** The title and icon of one tool (re-renders when the tool set is loaded or changes). */
export function useToolLook(tool: string): ToolLook {
  const byName = useTools((s) => s.byName);
  const loaded = useTools((s) => s.loaded);
  return lookOf(byName, tool, loaded);
}
