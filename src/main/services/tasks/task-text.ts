/** How a background task reads to the model: in lists, in task_output, in wait_tasks and in wake messages. */
import type { JobRow, TaskRow } from './task-store';

export interface WaitProgress {
  checks: number;
  lastExit: number | null;
  lastOutput: string;
  identical: boolean;
  recent: { at: number; exit: number | null; ms: number; output: string }[];
}

export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export const KIND_LABEL: Record<string, string> = { command: 'command', job_batch: 'job batch', wait_for: 'wait_for', question: 'question' };

/** One line: `cmd_1a2b3c4d  command  running 12.0 s  npm test`. */
export function taskLine(task: TaskRow, now = Date.now()): string {
  const age = formatDuration((task.finished_at ?? now) - task.created_at);
  const status = task.status === 'running' ? `running ${age}` : `${task.status} after ${age}${task.summary ? ` (${task.summary})` : ''}`;
  return `${task.id}  ${KIND_LABEL[task.kind] ?? task.kind}  ${status}  ${oneLine(task.title, 120)}`;
}

export function jobLine(taskId: string, job: JobRow): string {
  const attempts = job.attempts > 1 ? `, ${job.attempts} attempts` : '';
  const exit = job.exit_code !== null ? `, exit code ${job.exit_code}` : '';
  const note = job.note ? ` (${job.note})` : '';
  return `  ${taskId}.${job.idx}  ${job.status}${exit}${attempts}${note}  ${oneLine(job.command, 120)}`;
}

export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The last `max` characters of a text, marked when cut. */
export function tailText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `[… ${text.length - max} earlier characters …]\n${text.slice(text.length - max)}`;
}

/**
 * The result of an ended task in words: what it was, how it ended, and its output (a tail; the rest through
 * task_output). `output` is the text to show (a log tail for commands); jobs come from the batch.
 */
export function describeResult(task: TaskRow, extra: { output?: string; outputBytes?: number; jobs?: JobRow[] }): string {
  const spec = parseJson<{ command?: string; intervalMs?: number; timeoutMs?: number }>(task.spec, {});
  const lines: string[] = [];
  const took = formatDuration((task.finished_at ?? Date.now()) - task.created_at);
  if (task.kind === 'command') {
    lines.push(`command: ${oneLine(spec.command ?? task.title, 500)}`);
    lines.push(`status: ${task.status}, ${task.summary ?? `after ${took}`}`);
    if (extra.output !== undefined) {
      const size = extra.outputBytes ?? extra.output.length;
      lines.push(`--- output${size > extra.output.length ? ` (the last part of ${size} bytes; task_output {"id": "${task.id}", "offset": 0} reads it from the start)` : ''} ---`);
      lines.push(extra.output === '' ? '(no output)' : extra.output.replace(/\n$/, ''));
    }
  } else if (task.kind === 'wait_for') {
    const p = parseJson<WaitProgress>(task.progress, { checks: 0, lastExit: null, lastOutput: '', identical: false, recent: [] });
    lines.push(`check: ${oneLine(spec.command ?? task.title, 500)}`);
    lines.push(`status: ${task.status} after ${took} and ${p.checks} check${p.checks === 1 ? '' : 's'}${task.summary ? ` (${task.summary})` : ''}`);
    lines.push(`last check: exit code ${p.lastExit ?? 'none'}`);
    lines.push('--- last check output ---');
    lines.push(p.lastOutput === '' ? '(no output)' : p.lastOutput.replace(/\n$/, ''));
    if (task.status === 'timed_out' && p.identical && p.checks > 1) {
      lines.push(
        `Every one of the ${p.checks} checks returned the same exit code (${p.lastExit ?? 'none'}) and the same output, so the check may be ` +
          'unable to succeed as written (a typo, a wrong path or port, a missing program, or the sandbox blocking it). ' +
          'Test the check command itself (run it once with execute_command) before waiting again.',
      );
    }
  } else if (task.kind === 'question') {
    lines.push(`question: ${oneLine(task.title, 500)}`);
    lines.push(`status: ${task.status === 'running' ? 'waiting for the person to answer' : `${task.status} after ${took}${task.summary ? ` (${task.summary})` : ''}`}`);
    if (extra.output) lines.push('--- answers ---', extra.output);
  } else if (task.kind === 'job_batch') {
    const jobs = extra.jobs ?? [];
    const count = (s: string) => jobs.filter((j) => j.status === s).length;
    lines.push(`status: ${task.status} after ${took}: ${jobs.length} jobs, ${count('succeeded')} succeeded, ${count('failed')} failed${count('cancelled') ? `, ${count('cancelled')} cancelled` : ''}${count('interrupted') ? `, ${count('interrupted')} interrupted` : ''}${count('pending') + count('running') ? `, ${count('pending') + count('running')} not done` : ''}`);
    const budget = Math.max(400, Math.floor(12_000 / Math.max(1, jobs.length)));
    for (const job of jobs) {
      lines.push(jobLine(task.id, job));
      if (job.tail) lines.push(indent(tailText(job.tail.replace(/\n$/, ''), budget)));
    }
    lines.push(`Each job's whole output: task_output {"id": "${task.id}.N"}.`);
  }
  return lines.join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}
