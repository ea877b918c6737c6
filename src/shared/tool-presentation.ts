/**
 * How tools are shown: each tool declares its title, icon and result hint (src/main/runtime/tool.ts `presentation`);
 * main sends them through the contract (`listTools`) and puts each call's one-line summary on its events. Pure.
 */
export const TOOL_ICONS = ['file', 'edit', 'search', 'folder', 'terminal', 'task', 'todo', 'secret', 'clock', 'info', 'question', 'web', 'browser', 'desktop', 'memory', 'plug', 'tool'] as const;
export type ToolIcon = (typeof TOOL_ICONS)[number];

/** How a tool's result reads best: plain text, terminal output, a diff, a list of paths, markdown. */
export const RESULT_HINTS = ['text', 'terminal', 'diff', 'list', 'markdown'] as const;
export type ResultHint = (typeof RESULT_HINTS)[number];

export interface ToolPresentationView {
  name: string;
  title: string;
  icon: ToolIcon;
  result: ResultHint;
  kind: 'builtin' | 'mcp' | 'custom';
}

/** A title for a tool nothing declared one for (an unknown name the model sent): its words, capitalised. */
export function fallbackTitle(tool: string): string {
  const words = tool.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : tool;
}

/** The title of a name no tool has: said to be unknown, the name shown as sent (cut to 60 characters). */
export function unknownToolTitle(tool: string): string {
  const name = String(tool);
  return `Unknown tool “${name.length > 60 ? `${name.slice(0, 59)}…` : name}”`;
}

/** The glyph each icon name is drawn with (text, so no remote fonts or images are needed). */
export const ICON_GLYPHS: Record<ToolIcon, string> = {
  file: '▤',
  edit: '✎',
  search: '⌕',
  folder: '▭',
  terminal: '$',
  task: '⧗',
  todo: '☑',
  secret: '⚿',
  clock: '◷',
  info: 'ⓘ',
  question: '?',
  web: '⇄',
  browser: '⊞',
  desktop: '▣',
  memory: '✦',
  plug: '⌁',
  tool: '◇',
};
