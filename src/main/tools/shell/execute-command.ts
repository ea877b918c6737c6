/**
 * execute_command (approval pair `execute_execute_command`): run one bash command in the OS sandbox, in its own
 * process group, with stdin closed, a credential-free environment, and head+tail capped output streamed live (the
 * whole output is kept on disk for task_output). A command that reaches its foreground timeout keeps running as a
 * background task unless the call asked to kill it; `run_in_background` starts one directly.
 */
import { statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { classifyCommand } from './command-classifier';
import { defineTool, type Classification, type EffectsContext, type ToolContext } from '../../runtime/tool';
import { resolvePath } from '../../runtime/decision/resolve-path';
import { KILL_GRACE_MS, OUTPUT_CAP_BYTES, type CommandExit, type CommandProcess, type HeadTailBuffer } from '../../services/processes';
import type { SandboxPlan, SandboxService } from '../../services/sandbox';
import { formatDuration, type CommandTask, type TaskService } from '../../services/tasks';
import { PathGuard, type PathCheck } from '../../runtime/decision/path-guard';
import { commandPlan, sandboxClassification, sandboxLine, type SandboxAsk } from './sandbox-policy';
import { commandOutputSource } from './output-source';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_TIMEOUT_MS = 900_000;
/**
 * Spec II: a background task (started so, or moved there by its foreground timeout) is stopped after 10 minutes
 * unless the call sets disable_timeout. A field, not a constant, so tests can shorten it.
 */
export const backgroundLimits = { defaultTimeoutMs: 600_000 };
/** Output shown when a command moves to the background: enough to see where it is, not a second copy of the log. */
const SO_FAR_BYTES = 4 * 1024;

/** What the shell family's tools are built from (the host injects the implementations). */
export interface ShellDeps {
  tasks: TaskService;
  sandbox: SandboxService;
  /** Deskhand's data dir: hidden from commands, and never written without asking. */
  dataDir: string;
}

const fields = () =>
  z.object({
  command: z.string().min(1, { error: 'command is empty; pass the bash command to run' }).describe('The bash command.'),
  cwd: z.string().optional().describe('Working directory (default: the current one).'),
  timeout: z
    .number()
    .int({ error: 'timeout must be a whole number of milliseconds' })
    .positive({ error: 'timeout must be a positive number of milliseconds' })
    .max(MAX_TIMEOUT_MS, {
      error: `timeout may be at most ${MAX_TIMEOUT_MS} ms (15 minutes); for longer work use run_in_background, wait_for or run_background_jobs`,
    })
    .optional()
    .describe(
      `Milliseconds (default ${DEFAULT_TIMEOUT_MS}); then it continues in the background unless kill_on_timeout.`,
    ),
  run_in_background: z.boolean().optional().describe('Start it as a background task (servers, watchers, long builds); its result comes in a new message. Needs description.'),
  description: z.string().max(200).optional().describe('A background task\'s name, e.g. "dev server".'),
  disable_timeout: z
    .boolean()
    .optional()
    .describe('No 10-minute limit for a background task.'),
  kill_on_timeout: z.boolean().optional().describe('Stop it at the timeout instead.'),
  network: z.boolean().optional().describe('Allow the network (installs, downloads, git push, local servers). Asks the person.'),
  outside_sandbox: z.boolean().optional().describe('Run outside the sandbox, only after it blocked the command. Asks the person.'),
});
const params = () =>
  fields().superRefine((args, ctx) => {
  if (args.run_in_background && !args.description?.trim()) {
    ctx.addIssue({ code: 'custom', path: ['description'], message: 'description is required with run_in_background: a few words naming the task (e.g. "dev server")' });
  }
  if (args.disable_timeout && args.timeout !== undefined && args.run_in_background) {
    ctx.addIssue({ code: 'custom', path: ['disable_timeout'], message: 'disable_timeout and timeout contradict each other; pass one of them' });
  }
});
type Args = z.infer<ReturnType<typeof params>>;

/** Shows control characters and non-ASCII as escapes, so an approval prompt cannot be spoofed with \r, ANSI or bidi tricks. */
export function visibleCommand(command: string): string {
  let out = '';
  for (const ch of command) {
    const c = ch.codePointAt(0)!;
    if (c === 0x0a || c === 0x09 || (c >= 0x20 && c < 0x7f)) out += ch;
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c <= 0xffff) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += `\\u{${c.toString(16)}}`;
  }
  return out;
}

export function resolveCommandCwd(cwd: string | undefined, base: string): string {
  return cwd === undefined || cwd.trim() === '' ? base : resolvePath(cwd, base);
}

export function checkCwd(cwd: string): void {
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    throw new ToolError(`The working directory ${cwd} does not exist. Pass an existing folder as cwd, or omit cwd.`, 'not_found');
  }
  if (!isDir) throw new ToolError(`${cwd} is not a folder. Pass a folder as cwd, or omit cwd.`, 'invalid_args');
}

/** Live output goes to whoever watches the run, up to the cap per stream; the result carries the tail. */
class LiveStream {
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  private readonly sent = { stdout: 0, stderr: 0 };
  private readonly paused = { stdout: false, stderr: false };

  constructor(private readonly ctx: ToolContext) {}

  write(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    if (this.paused[stream]) return;
    const room = OUTPUT_CAP_BYTES - this.sent[stream];
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.sent[stream] += part.length;
    const text = this.decoders[stream].write(part);
    if (text) this.emit(stream, text);
    if (chunk.length > room) {
      this.paused[stream] = true;
      this.emit(stream, `\n[… live ${stream} paused after ${OUTPUT_CAP_BYTES} bytes; the end will be in the result …]\n`);
    }
  }

  private emit(stream: 'stdout' | 'stderr', text: string): void {
    try {
      this.ctx.progress(stream, text);
    } catch {
      // A watcher that fails must not stop the command or its output collection.
    }
  }
}

function format(proc: CommandProcess, exit: CommandExit, how: 'terminated' | 'killed' | null, timeoutMs: number, plan: SandboxPlan, taskId: string | null, sandbox: SandboxService): string {
  const lines: string[] = [];
  const method = how === 'killed' ? 'SIGTERM, then SIGKILL' : 'SIGTERM';
  if (proc.stopReason === 'timeout') lines.push(`timed out after ${timeoutMs} ms: the command and every process it started were stopped (${method})`);
  else if (proc.stopReason === 'interrupted') lines.push(`interrupted: the run was stopped, so the command and every process it started were stopped (${method})`);
  if (exit.error) lines.push(`could not start the command: ${exit.error}`);
  lines.push(`exit code: ${exit.code ?? `none (killed by ${exit.signal ?? 'a signal'})`}`);
  lines.push(`duration: ${formatDuration(exit.durationMs)}`);
  lines.push(sandboxLine(plan));
  const section = (name: string, buf: HeadTailBuffer): void => {
    const text = buf.toString();
    lines.push(`--- ${name} ---`);
    lines.push(text === '' ? '(empty)' : text.replace(/\n$/, ''));
    if (buf.omitted > 0) {
      lines.push(
        `(${name} was ${buf.total} bytes; the first and last ${OUTPUT_CAP_BYTES / 2} bytes are shown${taskId ? `; the whole output: task_output {"id": "${taskId}", "offset": 0}` : ''})`,
      );
    }
  };
  section('stdout', proc.stdout);
  section('stderr', proc.stderr);
  const hint = proc.stopReason ? null : sandbox.blockHint(`${proc.stderr.toString()}\n${proc.stdout.lastBytes(4096)}`, exit.code, plan);
  if (hint) lines.push(`note: ${hint}`);
  return lines.join('\n');
}

/**
 * Where a command runs is a path like any other: a working folder outside the workspace roots (or a sensitive one,
 * or one holding credentials) asks under every policy. Returns the check and the reason to ask, if any.
 */
export function cwdContainment(cwd: string, ctx: EffectsContext): { check: PathCheck; ask: string | null } {
  const check = new PathGuard(ctx).check(cwd, 'read');
  const ask = check.error
    ? `its working folder ${cwd} cannot be checked (${check.error})`
    : check.alwaysAsk
      ? `it runs in ${check.resolved}: ${check.alwaysAsk}`
      : !check.root
        ? `it runs in ${check.resolved}, outside the workspace roots`
        : null;
  return { check, ask };
}

/** The classification of one command call (execute_command, wait_for): the command where it runs, and the sandbox. */
export function classifyCommandCall(args: { command: string; cwd?: string | undefined } & SandboxAsk, ctx: EffectsContext, sandbox: SandboxService): Classification {
  let cwd = ctx.cwd;
  try {
    cwd = resolveCommandCwd(args.cwd, ctx.cwd);
  } catch {
    return { risk: 'high-risk', reasons: ['the cwd argument could not be resolved'], rulePattern: null, alwaysAsk: 'its working folder cannot be resolved' };
  }
  const c = classifyCommand(args.command, { ...ctx, cwd });
  const where = cwdContainment(cwd, ctx);
  if (where.ask) {
    c.reasons.push(`working folder: ${where.check.summary}`);
    c.alwaysAsk = c.alwaysAsk ? `${c.alwaysAsk}; ${where.ask}` : where.ask;
    c.rulePattern = null;
    c.paths = [...(c.paths ?? []), { ...where.check, raw: true }];
  }
  return sandboxClassification(c, args, ctx, sandbox);
}

/** What one command call touches: processes, the network when asked, and what the classifier found. */
export function commandEffects(args: { command: string; cwd?: string | undefined } & SandboxAsk, ctx: EffectsContext, sandbox: SandboxService) {
  const assessment = classifyCommandCall(args, ctx, sandbox);
  return { assessment, processes: true, network: !!assessment.network, secretArgs: ['command'], secretQuoting: 'shell' as const };
}

type Ending = 'exit' | 'timeout' | 'abort';

/** Waits for the first of: the command ends, the timeout passes, the run is stopped. */
function firstEnding(proc: CommandProcess, timeoutMs: number, signal: AbortSignal): Promise<Ending> {
  return new Promise((resolve) => {
    const done = (ending: Ending) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ending);
    };
    const timer = setTimeout(() => done('timeout'), timeoutMs);
    const onAbort = () => done('abort');
    signal.addEventListener('abort', onAbort, { once: true });
    void proc.exited.then(() => done('exit'));
  });
}

async function runForeground(args: Args, ctx: ToolContext, cwd: string, plan: SandboxPlan, deps: ShellDeps): Promise<string> {
  const timeoutMs = args.timeout ?? DEFAULT_TIMEOUT_MS;
  const live = new LiveStream(ctx);
  let task: CommandTask | null = null;
  const onOutput = (stream: 'stdout' | 'stderr', chunk: Buffer) => {
    if (!task?.background) live.write(stream, chunk);
  };
  task = deps.tasks.startCommand({ conversationId: ctx.conversationId, runId: ctx.runId, callId: ctx.callId, command: args.command, cwd, plan, background: false, title: args.description?.trim() || args.command, onOutput });
  const proc: CommandProcess = task.process;

  const ending = await firstEnding(proc, timeoutMs, ctx.signal);
  if (ending === 'timeout' && !args.kill_on_timeout && task?.moveToBackground()) {
    if (!args.disable_timeout) {
      // Moved to the background, the command gets the background limit from now on (Spec II).
      const limit = setTimeout(() => void proc.stop('timeout'), backgroundLimits.defaultTimeoutMs);
      void proc.exited.then(() => clearTimeout(limit));
    }
    const soFar = `${proc.stdout.lastBytes(SO_FAR_BYTES)}${proc.stderr.total ? `\n--- stderr so far ---\n${proc.stderr.lastBytes(SO_FAR_BYTES)}` : ''}`;
    return [
      `still running after ${formatDuration(timeoutMs)}: it continues as background task ${task.id}${args.disable_timeout ? ' without a time limit' : ` (stopped after ${formatDuration(backgroundLimits.defaultTimeoutMs)} more if still running)`}.`,
      `Its result comes in a new message when it ends. Meanwhile task_output {"id": "${task.id}"} shows its output, wait_tasks waits for it, and cancel_background_jobs {"ids": ["${task.id}"]} stops it.`,
      sandboxLine(plan),
      `--- output so far (${proc.stdout.total + proc.stderr.total} bytes; the last part) ---`,
      soFar.trim() === '' ? '(none yet)' : soFar.replace(/\n$/, ''),
    ].join('\n');
  }
  let how: 'terminated' | 'killed' | null = null;
  if (ending === 'timeout') how = await proc.stop('timeout');
  else if (ending === 'abort') how = await proc.stop('interrupted');
  const exit = await proc.exited;
  {
    await task.finished;
    if (proc.stdout.omitted === 0 && proc.stderr.omitted === 0) {
      try {
        deps.tasks.discardLog(task);
      } catch {
        // Keeping a log by mistake costs a little disk; never a failed command.
      }
    }
  }
  return format(proc, exit, how, timeoutMs, plan, proc.stdout.omitted > 0 || proc.stderr.omitted > 0 ? task.id : null, deps.sandbox);
}

export const createExecuteCommand = (deps: ShellDeps) =>
  defineTool({
    name: 'execute_command',
    facts: { writes: true },
    claudeCodeName: 'Bash',
    description:
      'Run a bash command in the sandbox when no dedicated tool fits. Stdin is closed; stdout and stderr come back ' +
      `(each cut to ${OUTPUT_CAP_BYTES / 1024} KB; task_output has the rest) with the exit code. Processes left behind ` +
      '(`cmd &`) end with the command: use run_in_background for servers.',
    details:
      'Each call is classified read-only, low-risk or high-risk from its parsed command (every part of pipes, ' +
      '&&/||/;, $(…), redirections and sh -c strings; anything unrecognised is high-risk). The sandbox keeps the ' +
      "workspace writable, the rest read-only, secrets' files hidden and the network off; a command it blocks says " +
      'so. Credential-named environment variables are not passed. A non-zero exit code is reported, not raised. The ' +
      'timeout is at most 15 min; with run_in_background it limits the whole task (default 10 min, none with ' +
      'disable_timeout).',
    params,
    risk: 'unknown',
    // [redacted:NAME] placeholders of held secrets become their values (shell-quoted) just before the command runs.
    effects: (args, ectx) => commandEffects(args, ectx, deps.sandbox),
    disclosure: 'private',
    presentation: { title: 'Run a command', icon: 'terminal', result: 'terminal', summary: (args) => oneLine(args.command) },
    // The tool enforces its own timeout (up to 15 min) and then needs the kill grace period to stop the group.
    timeoutMs: MAX_TIMEOUT_MS + KILL_GRACE_MS + 5_000,
    pair: {
      executeName: 'execute_execute_command',
      async propose(args, ctx) {
        const cwd = resolveCommandCwd(args.cwd, ctx.state.cwd);
        const where = args.outside_sandbox || ctx.sandbox === 'off' ? ' outside the sandbox' : args.network ? ' with network access' : '';
        const how = args.run_in_background ? 'Start a background command' : 'Run a command';
        return { description: `${how} in ${visibleCommand(cwd)}${where}`, preview: visibleCommand(args.command) };
      },
    },
    async execute(args, ctx) {
      const cwd = resolveCommandCwd(args.cwd, ctx.state.cwd);
      checkCwd(cwd);
      if (ctx.signal.aborted) throw new ToolError('The run was stopped before the command started; it did not run.', 'aborted');
      const plan = commandPlan(args, ctx, cwd, deps);
      if (args.run_in_background) {
        const task = deps.tasks.startCommand({
          conversationId: ctx.conversationId,
          runId: ctx.runId,
          callId: ctx.callId,
          command: args.command,
          cwd,
          plan,
          background: true,
          title: args.description?.trim() || args.command,
          timeoutMs: args.disable_timeout ? null : (args.timeout ?? backgroundLimits.defaultTimeoutMs),
        });
        const limit = args.disable_timeout ? ' without a time limit' : ` (stopped after ${formatDuration(args.timeout ?? backgroundLimits.defaultTimeoutMs)} if still running)`;
        return {
          output: [
            `Started background task ${task.id}${limit}.`,
            `Its result comes in a new message when it ends. Meanwhile task_output {"id": "${task.id}"} shows its output, wait_tasks waits for it, and cancel_background_jobs {"ids": ["${task.id}"]} stops it.`,
            sandboxLine(plan),
          ].join('\n'),
        };
      }
      const output = await runForeground(args, ctx, cwd, plan, deps);
      // Taint by source: the workspace's own text in a confined command's output is not untrusted content.
      const source = commandOutputSource(args.command, cwd, plan, ctx.state.workspaceRoots, ctx.checkedPaths?.values() ?? []);
      return source ? { output, untrustedSource: source } : { output };
    },
  });

/** A command on one line for tool cards: newlines shown as ⏎, long ones cut. */
export function oneLine(text: string): string {
  return (text.length > 140 ? `${text.slice(0, 139)}…` : text).replace(/\s*\n\s*/g, ' ⏎ ');
}
