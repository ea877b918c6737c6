/** One-line summaries and family icons for tool cards ("read_file src/app.ts (1–200)"). */
import type { ToolItemStatus } from '../../shared/contract';

export function toolSummary(tool: string, args: unknown): string {
  const a = args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const str = (k: string) => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
  const num = (k: string) => (typeof a[k] === 'number' ? (a[k] as number) : undefined);
  const oneLine = (s: string) => (s.length > 140 ? `${s.slice(0, 137)}…` : s).replace(/\s*\n\s*/g, ' ⏎ ');
  if (tool === 'read_file') {
    const path = str('path') ?? '';
    const offset = num('offset');
    const limit = num('limit');
    if (offset !== undefined || limit !== undefined) {
      const from = offset ?? 1;
      return `${path} (${from}–${limit !== undefined ? from + limit - 1 : 'end'})`;
    }
    return path;
  }
  const command = str('command') ?? str('cmd');
  if (command) return oneLine(command);
  const path = str('path') ?? str('file') ?? str('source');
  if (path) return str('destination') ? `${path} → ${str('destination')}` : path;
  const pattern = str('pattern') ?? str('query') ?? str('url');
  if (pattern) return oneLine(pattern);
  const first = Object.values(a).find((v) => typeof v === 'string') as string | undefined;
  return first ? oneLine(first) : '';
}

export function toolIcon(tool: string): string {
  if (/read|view|cat|stat|ls|list|pwd/.test(tool)) return '▤';
  if (/write|edit|patch|mkdir|mv|cp|rm|move|copy|delete/.test(tool)) return '✎';
  if (/grep|glob|find|search/.test(tool)) return '⌕';
  if (/command|shell|bash|exec/.test(tool)) return '$';
  if (/web|fetch|http|browser/.test(tool)) return '⇄';
  if (/todo|plan|work_state/.test(tool)) return '☑';
  return '◇';
}

export const STATUS_LABEL: Record<ToolItemStatus, string> = {
  pending: 'pending',
  awaiting_approval: 'waiting for your approval',
  approved: 'approved',
  running: 'running',
  ok: 'done',
  error: 'failed',
  denied: 'denied',
  interrupted: 'interrupted',
};

export function formatDuration(ms: number | null): string {
  if (ms === null) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
