/** cancel_background_jobs: stop background tasks by id (a command, a whole batch or one of its jobs, a wait). */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { TaskService } from '../../services/tasks';

const DEFAULT_REASON = 'Stopped by cancel_background_jobs';

export const createCancelBackgroundJobs = (tasks: TaskService) =>
  defineTool({
    name: 'cancel_background_jobs',
    facts: { loadsWith: 'jobs' },
    description:
      'Cancel background tasks by id: a command or a job that is running is stopped with everything it started ' +
      '(SIGTERM, then SIGKILL 3 s later); a batch\'s pending jobs never start; a wait stops checking. Safe on tasks that ' +
      'already ended. The reason you give is kept with the task. No wake-up message follows a cancelled task.',
    params: () => z.object({
      ids: z.array(z.string().min(1)).min(1).max(20).describe('Task ids (cmd_…, jobs_…, wait_…) or jobs of a batch ("jobs_1a2b3c4d.2").'),
      reason: z.string().trim().min(1).max(300).optional().describe(`Why the tasks are stopped, kept with them and shown in their status (default "${DEFAULT_REASON}").`),
    }),
    risk: 'low-risk',
    disclosure: 'internal',
    presentation: { title: 'Stop background tasks', icon: 'task', summary: (args) => args.ids.join(', ') },
    timeoutMs: 60_000,
    async execute({ ids, reason }, ctx) {
      const results = await tasks.cancel(ids, ctx.conversationId, reason ?? DEFAULT_REASON);
      return { output: results.map((r) => `${r.id}: ${r.result}`).join('\n') };
    },
  });
