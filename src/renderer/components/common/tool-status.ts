/** Status words and durations for tool cards and background tasks (titles, icons and summaries come from the tools). */
import type { ToolItemStatus } from '../../../shared/contract';

export const STATUS_LABEL: Record<ToolItemStatus, string> = {
  pending: 'pending',
  awaiting_approval: 'waiting for your approval',
  approved: 'approved',
  running: 'running',
  ok: 'done',
  error: 'failed',
  denied: 'denied',
  interrupted: 'interrupted',
  stopped: 'stopped',
  backgrounded: 'backgrounded',
};

export function formatDuration(ms: number | null): string {
  if (ms === null) return '';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
