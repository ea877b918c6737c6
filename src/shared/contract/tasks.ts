/**
 * The contract's background-tasks area: a task as the panel shows it, and listing and cancelling them. Pure.
 */
import { z } from 'zod';
import { conversationIdSchema, taskIdSchema } from './ids';

/** A background task as the panel shows it: what it is, how it stands, and the end of its output. */
export const backgroundTaskSchema = z.strictObject({
  id: z.string(),
  kind: z.enum(['command', 'job_batch', 'wait_for', 'question', 'subagent', 'workflow']),
  title: z.string(),
  status: z.enum(['running', 'finished', 'failed', 'cancelled', 'timed_out', 'interrupted']),
  summary: z.string().nullable(),
  exitCode: z.number().nullable(),
  createdAt: z.number(),
  finishedAt: z.number().nullable(),
  /** The last part of its output (a command's log, a wait's last check); the model pages the rest with task_output. */
  tail: z.string(),
  jobs: z.array(
    z.strictObject({
      idx: z.number(),
      command: z.string(),
      status: z.enum(['pending', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted']),
      exitCode: z.number().nullable(),
      attempts: z.number(),
      note: z.string().nullable(),
    }),
  ),
});
export type BackgroundTaskView = z.infer<typeof backgroundTaskSchema>;

export const taskMethods = {
  listBackgroundTasks: { params: z.strictObject({ conversationId: conversationIdSchema }), result: z.strictObject({ tasks: z.array(backgroundTaskSchema) }) },
  cancelBackgroundTask: {
    params: z.strictObject({ conversationId: conversationIdSchema, taskId: taskIdSchema }),
    result: z.strictObject({ result: z.string() }),
  },
};
