/**
 * task_output: a non-blocking snapshot of a background task: its status and a page of its whole output (kept on
 * disk), or, for a wait, its recent checks, or, for a batch, every job.
 */
import { z } from 'zod';
import { defineTool } from '../../runtime/tool';
import type { TaskService } from '../../services/tasks';
import { readRedactedPage } from './redacted-page';
import { describeResult, jobLine, parseJson, taskLine, type WaitProgress } from '../../services/tasks';

/** A page of output: big enough to read a log in a few calls, small enough for the context. */
export const PAGE_BYTES = 32 * 1024;

export const createTaskOutput = (tasks: TaskService) =>
  defineTool({
    name: 'task_output',
    // Asked again while waiting for something to change: the repeat guard leaves it alone.
    repeats: 'expected',
    description:
      'A background task\'s status and output now (it does not wait): the last 32 KB, or 32 KB from offset.',
    details:
      'wait_tasks waits. Ids: cmd_…, jobs_…, wait_…, or one job of a batch ("<batch>.<n>"); each page names the next ' +
      'offset. A batch shows every job\'s status and last output; a wait_for its recent checks. output_path lies in ' +
      'Deskhand\'s data folder, where read_file asks the person first: page with offset here.',
    params: () => z.object({
      id: z.string().min(1).describe('Task id, or a batch job ("jobs_1a2b.2").'),
      offset: z.number().int().min(0).optional().describe('Byte to read from (0 = start).'),
    }),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    presentation: { title: "Show a background task's output", icon: 'task', summary: (args) => args.id },
    async execute({ id, offset }, ctx) {
      const { task, job } = tasks.resolve(id, ctx.conversationId);
      if (task.kind === 'command' || job) {
        // Redacted around the page before it is cut, so an edge never shows part of a secret (the edges move instead).
        const page = readRedactedPage((at, limit) => tasks.readOutput(task, job, at, limit), offset, PAGE_BYTES, (t) => ctx.redact(t));
        const head = job ? [taskLine(task), jobLine(task.id, job)] : [taskLine(task)];
        // Spec II's output_path: where the whole log is saved (in Deskhand's data folder, so page it with offset here).
        const path = job ? job.output_path : task.output_path;
        if (path) head.push(`output_path: ${path}`);
        const name = job ? `${task.id}.${job.idx}` : task.id;
        const where =
          page.total === 0
            ? 'no output yet'
            : `bytes ${page.offset}–${page.end} of ${page.total}${page.end < page.total ? `; next page: task_output {"id": "${name}", "offset": ${page.end}}` : ''}${offset === undefined && page.offset > 0 ? `; from the start: task_output {"id": "${name}", "offset": 0}` : ''}`;
        // The page is returned byte for byte (a trailing newline included), so consecutive pages join exactly.
        return { output: `${head.join('\n')}\n--- output (${where}) ---\n${page.text === '' ? '(none)' : page.text}`, untrustedSource: 'command output' };
      }
      if (task.kind === 'wait_for') {
        const p = parseJson<WaitProgress>(task.progress, { checks: 0, lastExit: null, lastOutput: '', identical: false, recent: [] });
        const recent = p.recent.map((c) => `  ${new Date(c.at).toISOString().slice(11, 19)}  exit ${c.exit ?? 'none'}  ${c.ms} ms  ${c.output.trim().split('\n').at(-1)?.slice(0, 160) ?? ''}`);
        return { output: `${taskLine(task)}\n${describeResult(task, {})}\nrecent checks:\n${recent.join('\n') || '  (none)'}`, untrustedSource: 'command output' };
      }
      // A background question: the person's answers (once given), like the foreground tool's result.
      if (task.kind === 'question') return { output: `${taskLine(task)}\n${tasks.describe(task)}` };
      // A subagent: its answer (or why it ended); untrusted only when the child read untrusted content.
      if (task.kind === 'subagent') {
        const tainted = parseJson<{ tainted?: boolean }>(task.progress, {}).tainted === true;
        return { output: `${taskLine(task)}\n${tasks.describe(task)}`, ...(tainted ? { untrustedSource: 'subagent result (the subagent read untrusted content)' } : {}) };
      }
      return { output: `${taskLine(task)}\n${describeResult(task, { jobs: tasks.jobs(task.id) })}`, untrustedSource: 'command output' };
    },
  });
