/**
 * The wake-up message's format: what task-wakes.ts writes into a conversation when background work ends (a marked
 * header per task, its details as untrusted data, then the trailer), and the parser that reads it back (memory
 * extraction skips it, the projections show it as task cards). Both halves here so they cannot drift apart.
 */
import { wrapUntrusted } from '../../runtime/context/untrusted';
import type { TaskRow } from '../../services/tasks/task-store';
import { parseJson, type WaitProgress } from '../../services/tasks/task-text';

const WAKE_TRAILER =
  'This message comes from Deskhand, not from the person: background work this conversation started has ended. Continue the task with this result.';
const IDENTICAL_NOTICE = 'Every check returned the same exit code and output: test the check command itself before waiting again.';
const WAKE_SOURCE = 'background task output';

/** The wake-up message for ended tasks: a marked header, and the details (command output) as untrusted data. */
export function wakeMessage(runtime: { tasks: { describe(task: TaskRow): string } }, tasks: readonly TaskRow[]): string {
  const parts = tasks.map((task) => {
    const header =
      task.kind === 'wait_for'
        ? task.status === 'finished'
          ? `[wait_for ${task.id}: the condition holds]`
          : `[wait_for ${task.id} ${task.status === 'timed_out' ? 'timed out' : task.status}]`
        : task.kind === 'job_batch'
          ? `[job batch ${task.id} ${task.status}]`
          : task.kind === 'question'
            ? `[question ${task.id} ${task.status === 'finished' ? 'answered' : task.status}]`
            : `[background task ${task.id} ${task.status}]`;
    const identical = task.kind === 'wait_for' && task.status === 'timed_out' && parseJson<WaitProgress>(task.progress, { checks: 0, lastExit: null, lastOutput: '', identical: false, recent: [] }).identical;
    const notice = identical ? `\n${IDENTICAL_NOTICE}` : '';
    return `${header} ${task.title.slice(0, 200)}${notice}\n${wrapUntrusted(WAKE_SOURCE, runtime.tasks.describe(task))}`;
  });
  return `${parts.join('\n\n')}\n\n${WAKE_TRAILER}`;
}

export interface ParsedWakeTask {
  id: string;
  kind: 'command' | 'job_batch' | 'wait_for' | 'question';
  /** In plain words: "Background task finished", "Wait finished: the condition holds", "Job batch failed"… */
  headline: string;
  title: string;
  output: string;
  notice: string | null;
}

const WAKE_PART = new RegExp(
  String.raw`\[(background task|job batch|wait_for|question) ((?:cmd|jobs|wait|ask)_[0-9a-f]{8})(: the condition holds| [a-z_ ]+)\] ((?:(?!<untrusted )[\s\S])*?)\n` +
    String.raw`<untrusted source="${WAKE_SOURCE}" nonce="([0-9a-f]{16})">\n([\s\S]*?)\n</untrusted nonce="\5">(?:\n\n|$)`,
  'y',
);

/**
 * The other half of wakeMessage: a stored user-role message that is exactly a wake-up (every part a marked header
 * with its enveloped details, then the trailer) parses into its tasks; anything else is the person's own text (null).
 * Kept beside wakeMessage so the two cannot drift apart.
 */
export function parseWakeMessage(text: string): ParsedWakeTask[] | null {
  const tail = `\n\n${WAKE_TRAILER}`;
  if (!text.endsWith(tail)) return null;
  const body = `${text.slice(0, -tail.length)}`;
  const tasks: ParsedWakeTask[] = [];
  const re = new RegExp(WAKE_PART.source, 'y');
  let at = 0;
  while (at < body.length) {
    re.lastIndex = at;
    const m = re.exec(body);
    if (!m) return null;
    const [, family, id, state, head, , output] = m as unknown as [string, string, string, string, string, string, string];
    const notice = head.endsWith(`\n${IDENTICAL_NOTICE}`) ? IDENTICAL_NOTICE : null;
    const title = notice ? head.slice(0, -(IDENTICAL_NOTICE.length + 1)) : head;
    const status = state.startsWith(':') ? state.slice(2) : state.trim();
    const kind = family === 'wait_for' ? 'wait_for' : family === 'job batch' ? 'job_batch' : family === 'question' ? 'question' : 'command';
    const headline =
      kind === 'wait_for'
        ? state.startsWith(':')
          ? 'Wait finished: the condition holds'
          : `Wait ${status}`
        : kind === 'question'
          ? `Question ${status}`
          : `${kind === 'job_batch' ? 'Job batch' : 'Background task'} ${status}`;
    tasks.push({ id, kind, headline, title, output, notice });
    at = re.lastIndex;
  }
  return tasks.length ? tasks : null;
}
