import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { Subagents } from '../../services/subagents/index';
import { statusLine } from './shared';

export const createListSubagents = (subagents: Subagents) =>
  defineTool({
    name: 'list_subagents',
    description: 'List the subagents this conversation started: id, status (queued, running, finished, failed, cancelled, timed_out), type, spend so far and task id.',
    params: () => z.object({}).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { parentOnly: true, reaches: ['conversations'] },
    presentation: { title: 'List subagents', icon: 'tool' },
    async execute(_args, ctx) {
      const rows = subagents.list(ctx.conversationId);
      if (rows.length === 0) return { output: 'This conversation has started no subagents.' };
      return { output: rows.map((r) => `${statusLine(r)}${subagents.isPaused(r.id) ? ' — paused (steer_subagent action resume continues it)' : ''}`).join('\n') };
    },
  });
