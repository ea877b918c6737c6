/** list_background_jobs: the conversation's background tasks (commands, job batches with every job, waits). */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { TaskService } from '../../services/tasks';
import { jobLine, taskLine, tailText } from '../../services/tasks';

export const createListBackgroundJobs = (service: TaskService) =>
  defineTool({
    name: 'list_background_jobs',
    facts: { loadsWith: 'jobs' },
    description:
      'List this conversation\'s background tasks, newest first: background commands, job batches (every job\'s ' +
      'status, exit code and last output line) and waits, with their ids for task_output, wait_tasks and ' +
      'cancel_background_jobs. Only running tasks unless active_only is false.',
    params: () => z.object({
      active_only: z.boolean().optional().describe('Only tasks still running (default true); false lists ended ones too.'),
      limit: z.number().int().min(1).max(100).optional().describe('At most this many tasks (default 20).'),
    }),
    risk: 'read-only',
    disclosure: 'internal',
    presentation: { title: 'List background tasks', icon: 'task' },
    async execute(args, ctx) {
      const activeOnly = args.active_only ?? true;
      const tasks = service.list(ctx.conversationId, { activeOnly, limit: args.limit ?? 20 });
      if (tasks.length === 0) {
        return { output: activeOnly ? 'No background task of this conversation is running (active_only: false lists ended ones).' : 'This conversation has no background tasks.' };
      }
      const lines: string[] = [];
      for (const task of tasks) {
        lines.push(taskLine(task));
        if (task.kind === 'job_batch') {
          for (const job of service.jobs(task.id)) {
            lines.push(jobLine(task.id, job));
            const last = job.tail?.trim().split('\n').at(-1);
            if (last) lines.push(`      last output: ${tailText(last, 200)}`);
          }
        }
      }
      return { output: lines.join('\n'), untrustedSource: 'command output' };
    },
  });
