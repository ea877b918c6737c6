/**
 * wait_tasks: suspend this turn until one of the given background tasks (or any running one) ends, or the time
 * passes. A task reported here sends no wake-up message later.
 */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { TaskService } from '../../services/tasks';
import { taskLine } from '../../services/tasks';

export const MAX_WAIT_SECONDS = 600;

export const createWaitTasks = (tasks: TaskService) =>
  defineTool({
    name: 'wait_tasks',
    description:
      'Wait until a background task ends or the timeout (seconds, required) passes, then report. With ids, waits for the first of those ' +
      'to end; without, for the first of this conversation\'s tasks running now (returns at once when none runs). ' +
      'Reaching the timeout is not an error: the answer lists what still runs, and you can wait again or do other work. ' +
      'A task reported here sends no separate message when it ends.',
    params: () => z.object({
      ids: z.array(z.string().min(1)).max(20).optional().describe('Task ids to wait for (one or several; the first to end is reported); omit for any running task of this conversation.'),
      timeout: z
        .number({ error: `timeout is required: how many seconds to wait at most (1 to ${MAX_WAIT_SECONDS})` })
        .int()
        .min(1)
        .max(MAX_WAIT_SECONDS, { error: `timeout may be at most ${MAX_WAIT_SECONDS} seconds` })
        .describe(`How long to wait at most, in seconds (at most ${MAX_WAIT_SECONDS}). Required.`),
    }),
    risk: 'read-only',
    disclosure: 'private',
    facts: { loadsWith: 'jobs', reaches: [] },
    presentation: { title: 'Wait for background tasks', icon: 'task' },
    timeoutMs: (MAX_WAIT_SECONDS + 15) * 1000,
    repeats: 'expected',
    async execute({ ids, timeout }, ctx) {
      const seconds = timeout;
      const { finished, running } = await tasks.waitAny(ctx.conversationId, ids ?? null, seconds * 1000, ctx.signal);
      if (finished.length === 0 && running.length === 0) return { output: 'No background task of this conversation is running; nothing to wait for.' };
      const lines: string[] = [];
      if (finished.length === 0) lines.push(`Waited ${seconds} s; nothing ended yet.`);
      for (const task of finished) {
        lines.push(`[${task.id} ended]`);
        lines.push(tasks.describe(task));
      }
      if (running.length) {
        lines.push('still running:');
        for (const task of running) lines.push(`  ${taskLine(task)}`);
      }
      return { output: lines.join('\n'), untrustedSource: 'command output' };
    },
  });
