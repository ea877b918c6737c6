import { z } from 'zod';
import { defineTool } from '../../runtime/tool';

/** Minutes of work left for a conversation with a time budget (a subagent's limit, the active goal's time budget), or null. */
export type WorkBudget = (conversationId: string) => number | null;

export const createGetTime = (budget: WorkBudget | null) =>
  defineTool({
    name: 'get_time',
    description:
      'The current local date and time (ISO 8601), and workMinutesLeft when this run has a time budget.',
    params: () => z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'internal',
    presentation: { title: 'Check the time', icon: 'clock' },
    async execute(_args, ctx) {
      const now = new Date();
      const offsetMin = -now.getTimezoneOffset();
      const sign = offsetMin >= 0 ? '+' : '-';
      const abs = Math.abs(offsetMin);
      const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
      const local = new Date(now.getTime() + offsetMin * 60_000).toISOString().slice(0, 19) + offset;
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      const weekday = now.toLocaleDateString('en-US', { weekday: 'long' });
      const left = budget?.(ctx.conversationId) ?? null;
      return { output: JSON.stringify({ local, utc: now.toISOString(), timeZone: zone, weekday, unixMs: now.getTime(), ...(left !== null ? { workMinutesLeft: left } : {}) }) };
    },
  });

/** Without a budget source (tests, hosts without subagents). */
export const getTime = createGetTime(null);
