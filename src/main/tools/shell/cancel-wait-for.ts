/** cancel_wait_for: stop a pending wait_for (its id comes from wait_for or list_background_jobs). */
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import type { TaskService } from '../../services/tasks';

export const createCancelWaitFor = (tasks: TaskService) =>
  defineTool({
    name: 'cancel_wait_for',
    facts: { loadsWith: 'waiting' },
    description: 'Cancel a pending wait_for by its id (wait_for returns it; list_background_jobs lists waits). No wake-up follows a cancelled wait.',
    params: () => z.object({ id: z.string().min(1).describe('The wait id, e.g. "wait_1a2b3c4d".') }),
    risk: 'low-risk',
    disclosure: 'internal',
    presentation: { title: 'Cancel a wait', icon: 'task', summary: (args) => args.id },
    async execute({ id }, ctx) {
      const { task } = tasks.resolve(id, ctx.conversationId);
      if (task.kind !== 'wait_for') throw new ToolError(`${task.id} is not a wait_for (it is a ${task.kind}); stop it with cancel_background_jobs.`);
      const [result] = await tasks.cancel([task.id], ctx.conversationId, 'cancelled with cancel_wait_for');
      return { output: `${task.id}: ${result?.result ?? 'cancelled'}.` };
    },
  });
