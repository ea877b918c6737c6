/**
 * wait_for (approval pair `execute_wait_for`): re-run a check command until it exits 0. Checked once at once; if
 * the condition does not hold yet, a background task keeps checking on the interval and wakes the conversation with
 * the last check's output when it holds or the time is up, and says so when every check answered exactly the same.
 */
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import { formatDuration } from '../../services/tasks';
import { checkCwd, commandEffects, oneLine, resolveCommandCwd, visibleCommand, type ShellDeps } from './execute-command';
import { commandPlan, sandboxLine } from './sandbox-policy';

export const MIN_INTERVAL_MS = 250;
export const MAX_WAIT_MS = 900_000;
const DEFAULT_INTERVAL_MS = 1_000;
const DEFAULT_WAIT_MS = 300_000;
/** One check may take this long before it counts as failed. */
const CHECK_TIMEOUT_MS = 60_000;

const params = () => z.object({
  command: z.string().min(1, { error: 'command is empty; pass the check command' }).describe('The check: a bash command that exits 0 once the condition holds (e.g. `test -f build/done`, `grep -q ready server.log`).'),
  cwd: z.string().optional().describe('Working directory of the check. Default: the current working directory.'),
  interval_ms: z
    .number()
    .int()
    .min(MIN_INTERVAL_MS, { error: `interval_ms must be at least ${MIN_INTERVAL_MS}` })
    .max(600_000)
    .optional()
    .describe(`Milliseconds between checks (at least ${MIN_INTERVAL_MS}; default ${DEFAULT_INTERVAL_MS}).`),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .max(MAX_WAIT_MS, { error: `timeout_ms may be at most ${MAX_WAIT_MS} (15 minutes)` })
    .optional()
    .describe(`Give up after this many milliseconds (default ${DEFAULT_WAIT_MS}, at most ${MAX_WAIT_MS}).`),
  description: z.string().max(200).optional().describe('A few words naming the wait in lists (e.g. "server up").'),
  network: z.boolean().optional().describe('Let the check use the network inside the sandbox (e.g. curl a server another command started). Always asks the person.'),
  outside_sandbox: z.boolean().optional().describe('Run the check without the OS sandbox. Always asks the person.'),
});

export const createWaitFor = (deps: ShellDeps) =>
  defineTool({
    name: 'wait_for',
    facts: { loadsWith: 'waiting' },
    description:
      'Wait in the background until a check command exits 0, re-running it every interval_ms (at least 250 ms) for up ' +
      'to timeout_ms (at most 15 min). The check runs once right away: if it already exits 0 you get its output and ' +
      'nothing is scheduled. Otherwise this returns at once with the first check\'s exit code and output and a wait id; ' +
      'keep working, and you are woken with the last check\'s output when it holds or the time runs out. Checks run in ' +
      'the OS sandbox like execute_command (network off unless network: true). cancel_wait_for stops a wait.',
    params,
    risk: 'unknown',
    effects: (args, ectx) => ({ ...commandEffects(args, ectx, deps.sandbox), secretArgs: [] }),
    disclosure: 'private',
    presentation: { title: 'Wait for a condition', icon: 'task', result: 'terminal', summary: (args) => oneLine(args.command) },
    timeoutMs: CHECK_TIMEOUT_MS + 10_000,
    pair: {
      executeName: 'execute_wait_for',
      async propose(args, ctx) {
        const cwd = resolveCommandCwd(args.cwd, ctx.state.cwd);
        const every = formatDuration(args.interval_ms ?? DEFAULT_INTERVAL_MS);
        const upTo = formatDuration(args.timeout_ms ?? DEFAULT_WAIT_MS);
        return { description: `Re-run a check every ${every} for up to ${upTo} in ${visibleCommand(cwd)} until it exits 0`, preview: visibleCommand(args.command) };
      },
    },
    async execute(args, ctx) {
      const cwd = resolveCommandCwd(args.cwd, ctx.state.cwd);
      checkCwd(cwd);
      const intervalMs = args.interval_ms ?? DEFAULT_INTERVAL_MS;
      const timeoutMs = args.timeout_ms ?? DEFAULT_WAIT_MS;
      const plan = commandPlan(args, ctx, cwd, deps);
      const first = await deps.tasks.runCheck(args.command, cwd, plan, Math.min(CHECK_TIMEOUT_MS, timeoutMs), ctx.signal);
      if (ctx.signal.aborted) throw new ToolError('The run was stopped during the first check; nothing was scheduled.', 'aborted');
      const output = first.output.trim() === '' ? '(no output)' : first.output.replace(/\n$/, '');
      if (first.exitCode === 0) {
        return {
          output: `The condition already holds: the check exited 0 right away (${formatDuration(first.durationMs)}). Nothing was scheduled.\n${sandboxLine(plan)}\n--- check output ---\n${output}`,
          untrustedSource: 'command output',
        };
      }
      const task = deps.tasks.startWaitFor({
        conversationId: ctx.conversationId,
        runId: ctx.runId,
        callId: ctx.callId,
        command: args.command,
        cwd,
        plan,
        intervalMs,
        timeoutMs,
        title: args.description?.trim() || args.command,
        first,
      });
      return {
        output: [
          `The condition does not hold yet: the first check ${first.timedOut ? 'timed out' : `exited ${first.exitCode ?? 'without a code'}`}.`,
          `Checking again every ${formatDuration(intervalMs)} for up to ${formatDuration(timeoutMs)} as ${task.id}. Keep working: you are woken with the last check's output when it exits 0 or the time is up. cancel_wait_for {"id": "${task.id}"} stops it.`,
          sandboxLine(plan),
          '--- first check output ---',
          output,
        ].join('\n'),
        untrustedSource: 'command output',
      };
    },
  });
