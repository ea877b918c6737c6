/**
 * execute_command (approval pair `execute_execute_command`): run one bash command in its own process group, with
 * stdin closed, a credential-free environment, head+tail capped output streamed live, and a timeout that stops the
 * whole group (SIGTERM, then SIGKILL 3 s later so a command can finish writing and clean up).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { execa } from 'execa';
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { classifyCommand } from '../../runtime/command-classifier';
import { defineTool, type ToolContext } from '../../runtime/tool';
import { resolvePath } from '../files/paths';
import { childEnv } from './child-env';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const MAX_TIMEOUT_MS = 900_000;
/** Per stream. Half is kept from the start and half from the end: errors usually sit at the end of long output. */
export const OUTPUT_CAP_BYTES = 256 * 1024;
/** Between SIGTERM and SIGKILL: long enough for a command to flush and clean up, short enough to feel responsive. */
export const KILL_GRACE_MS = 3_000;
/** After the shell exits, output still in the pipes arrives within this window; a background job may hold them forever. */
const EXIT_DRAIN_MS = 150;
const SHELL = '/bin/bash';

const params = z.object({
  command: z.string().min(1, { error: 'command is empty; pass the bash command to run' }).describe('The bash command to run (pipes, &&, redirections and heredocs work).'),
  cwd: z.string().optional().describe('Working directory for the command: absolute or relative to the current working directory. Default: the current working directory.'),
  timeout: z
    .number()
    .int({ error: 'timeout must be a whole number of milliseconds' })
    .positive({ error: 'timeout must be a positive number of milliseconds' })
    .max(MAX_TIMEOUT_MS, {
      error: `timeout may be at most ${MAX_TIMEOUT_MS} ms (15 minutes); for longer work use a shorter command with wait_for or run_background_jobs`,
    })
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS}). On timeout the command and every process it started are stopped.`),
});
type Args = z.infer<typeof params>;

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

function resolveCwd(args: Args, base: string): string {
  return args.cwd === undefined || args.cwd.trim() === '' ? base : resolvePath(args.cwd, base);
}

function checkCwd(cwd: string): void {
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    throw new ToolError(`The working directory ${cwd} does not exist. Pass an existing folder as cwd, or omit cwd.`, 'not_found');
  }
  if (!isDir) throw new ToolError(`${cwd} is not a folder. Pass a folder as cwd, or omit cwd.`, 'invalid_args');
}

/** Keeps the first and last `cap / 2` bytes of a stream and counts the rest; never blocks the writer. */
export class HeadTailBuffer {
  private readonly half: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  total = 0;

  constructor(cap: number = OUTPUT_CAP_BYTES) {
    this.half = Math.floor(cap / 2);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.half) {
      const take = Math.min(this.half - this.headBytes, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes > this.half) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - this.half;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        // Copy so the kept slice does not pin the whole original chunk.
        this.tail[0] = Buffer.from(first.subarray(excess));
        this.tailBytes -= excess;
      }
    }
  }

  get omitted(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  toString(): string {
    const head = Buffer.concat(this.head);
    const tail = Buffer.concat(this.tail);
    if (this.omitted === 0) return Buffer.concat([head, tail]).toString('utf8');
    return `${head.subarray(0, utf8Boundary(head)).toString('utf8')}\n[… ${this.omitted} bytes omitted …]\n${tail.subarray(firstCharStart(tail)).toString('utf8')}`;
  }
}

/** Length of `buf` without a trailing incomplete UTF-8 sequence. */
function utf8Boundary(buf: Buffer): number {
  let i = buf.length;
  let back = 0;
  while (i > 0 && back < 4 && (buf[i - 1]! & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i === 0) return buf.length;
  const lead = buf[i - 1]!;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return need > back + 1 ? i - 1 : buf.length;
}

/** Index of the first byte that starts a UTF-8 character. */
function firstCharStart(buf: Buffer): number {
  let i = 0;
  while (i < buf.length && i < 4 && (buf[i]! & 0xc0) === 0x80) i++;
  return i;
}

/** Live output goes to whoever watches the run, up to the cap per stream; the result carries the tail. */
class LiveStream {
  private readonly decoder = new StringDecoder('utf8');
  private sent = 0;
  private paused = false;

  constructor(
    private readonly ctx: ToolContext,
    private readonly stream: 'stdout' | 'stderr',
  ) {}

  write(chunk: Buffer): void {
    if (this.paused) return;
    const room = OUTPUT_CAP_BYTES - this.sent;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.sent += part.length;
    const text = this.decoder.write(part);
    if (text) this.emit(text);
    if (chunk.length > room) {
      this.paused = true;
      this.emit(`\n[… live ${this.stream} paused after ${OUTPUT_CAP_BYTES} bytes; the end will be in the result …]\n`);
    }
  }

  private emit(text: string): void {
    try {
      this.ctx.emitOutput(this.stream, text);
    } catch {
      // A watcher that fails must not stop the command or its output collection.
    }
  }
}

/** Processes still alive (zombies excluded) in process group `pgid`. Linux reads /proc; elsewhere kill(-pgid, 0). */
export function processGroupAlive(pgid: number): boolean {
  if (process.platform === 'linux') {
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      entries = [];
    }
    if (entries.length > 0) {
      for (const entry of entries) {
        if (!/^[0-9]+$/.test(entry)) continue;
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
          // pid (comm) state ppid pgrp …; comm may contain spaces and parentheses, so split after the last ')'.
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
        } catch {
          // The process exited while we looked.
        }
      }
      return false;
    }
  }
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** SIGTERM to the whole group, SIGKILL to whatever is left after the grace period. Resolves when the group is gone. */
async function stopGroup(pgid: number, graceMs: number = KILL_GRACE_MS): Promise<'terminated' | 'killed'> {
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(50);
    if (!processGroupAlive(pgid)) return 'terminated';
  }
  signalGroup(pgid, 'SIGKILL');
  for (let i = 0; i < 40 && processGroupAlive(pgid); i++) await sleep(25);
  return 'killed';
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

interface RunOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stopped: { reason: 'timeout' | 'interrupted'; how: 'terminated' | 'killed' } | null;
  stdout: HeadTailBuffer;
  stderr: HeadTailBuffer;
  durationMs: number;
}

async function run(command: string, cwd: string, timeoutMs: number, ctx: ToolContext): Promise<RunOutcome> {
  const started = performance.now();
  const stdout = new HeadTailBuffer();
  const stderr = new HeadTailBuffer();
  // execa spawns; the lifecycle is ours. Its promise settles only when every pipe closes, and a background job
  // (`server &`) can hold them open forever, so we follow the shell's 'exit' event and leave the promise unawaited.
  const child = execa(SHELL, ['-c', command], {
    cwd,
    env: { ...childEnv(), PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' },
    extendEnv: false,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true, // setsid(): the command leads its own process group, so the whole group can be signalled
    cleanup: false,
    buffer: false,
    reject: false,
    encoding: 'buffer',
    windowsHide: true,
  });
  void Promise.resolve(child).catch(() => undefined);

  let collecting = true;
  const ended = { stdout: child.stdout === null, stderr: child.stderr === null };
  let onEnded: (() => void) | null = null;
  const attach = (name: 'stdout' | 'stderr', stream: Readable | null, sink: HeadTailBuffer): void => {
    if (!stream) return;
    const live = new LiveStream(ctx, name);
    stream.on('error', () => undefined);
    // Always consume: a full pipe would block the writer (`yes`), so after the cap we keep reading and count.
    stream.on('data', (data: Buffer | string) => {
      if (!collecting) return;
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      sink.push(chunk);
      live.write(chunk);
    });
    stream.once('close', () => {
      ended[name] = true;
      onEnded?.();
    });
  };
  attach('stdout', child.stdout, stdout);
  attach('stderr', child.stderr, stderr);

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { error: Error }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ error }));
  });

  let stopping: Promise<'terminated' | 'killed'> | null = null;
  let stopReason: 'timeout' | 'interrupted' | null = null;
  const stop = (reason: 'timeout' | 'interrupted'): void => {
    if (stopping || child.pid === undefined) return;
    stopReason = reason;
    stopping = stopGroup(child.pid);
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = (): void => stop('interrupted');
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  try {
    const result = await exited;
    // The shell is gone: from here on nothing may stop the jobs it left in the background.
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    if ('error' in result) {
      throw new ToolError(`Could not start ${SHELL}: ${result.error.message}`, 'internal');
    }
    // A running stop finishes with the whole group; then the last output gets a moment to arrive. The pipes close
    // at once unless a background job inherited them, so the wait is short either way.
    const how = stopping ? await stopping : null;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        if (ended.stdout && ended.stderr) resolve();
      };
      onEnded = done;
      setTimeout(resolve, EXIT_DRAIN_MS);
      done();
    });
    return {
      code: result.code,
      signal: result.signal,
      stopped: stopReason && how ? { reason: stopReason, how } : null,
      stdout,
      stderr,
      durationMs: performance.now() - started,
    };
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    collecting = false;
    // Background jobs may still hold the pipes: keep draining (so they never block on a full pipe) without keeping
    // Deskhand's event loop alive for them.
    for (const stream of [child.stdout, child.stderr]) {
      const socket = stream as (Readable & { unref?: () => void }) | null;
      socket?.unref?.();
    }
  }
}

function format(o: RunOutcome, timeoutMs: number): string {
  const lines: string[] = [];
  if (o.stopped?.reason === 'timeout') {
    lines.push(`timed out after ${timeoutMs} ms: the command and every process it started were stopped (${o.stopped.how === 'killed' ? 'SIGTERM, then SIGKILL' : 'SIGTERM'})`);
  } else if (o.stopped?.reason === 'interrupted') {
    lines.push(`interrupted: the run was stopped, so the command and every process it started were stopped (${o.stopped.how === 'killed' ? 'SIGTERM, then SIGKILL' : 'SIGTERM'})`);
  }
  lines.push(`exit code: ${o.code ?? `none (killed by ${o.signal ?? 'a signal'})`}`);
  lines.push(`duration: ${formatDuration(o.durationMs)}`);
  const section = (name: string, buf: HeadTailBuffer): void => {
    const text = buf.toString();
    lines.push(`--- ${name} ---`);
    lines.push(text === '' ? '(empty)' : text.replace(/\n$/, ''));
    if (buf.omitted > 0) lines.push(`(${name} was ${buf.total} bytes; the first and last ${OUTPUT_CAP_BYTES / 2} bytes are shown)`);
  };
  section('stdout', o.stdout);
  section('stderr', o.stderr);
  return lines.join('\n');
}

export const executeCommand = defineTool({
  name: 'execute_command',
  description:
    'Run a bash command when no dedicated tool fits. Each call is classified (read-only, low-risk or high-risk) ' +
    'from its parsed command: every part of pipes, &&/||/;, $(…), redirections and sh -c strings counts, and ' +
    'anything unrecognised is high-risk. Stdin is closed (interactive prompts get EOF). Credential-named environment ' +
    `variables are not passed. stdout and stderr are captured separately, each capped at ${OUTPUT_CAP_BYTES / 1024} KB ` +
    '(start and end kept). A non-zero exit code is reported, not raised. The default timeout is 60 s, at most 15 min; ' +
    'on timeout the command and all its child processes are stopped. A job left running in the background (`cmd &`) ' +
    'keeps running after the shell exits. Prefer read_file/grep/find/ls for reading files.',
  params,
  risk: 'unknown',
  classify(args, ctx) {
    let cwd = ctx.cwd;
    try {
      cwd = resolveCwd(args, ctx.cwd);
    } catch {
      return { risk: 'high-risk', reasons: ['the cwd argument could not be resolved'], rulePattern: null };
    }
    return classifyCommand(args.command, { ...ctx, cwd });
  },
  disclosure: 'private',
  egress: false,
  // The tool enforces its own timeout (up to 15 min) and then needs the kill grace period to stop the group.
  timeoutMs: MAX_TIMEOUT_MS + KILL_GRACE_MS + 5_000,
  pair: {
    executeName: 'execute_execute_command',
    async propose(args, ctx) {
      const cwd = resolveCwd(args, ctx.state.cwd);
      return { description: `Run a command in ${visibleCommand(cwd)}`, preview: visibleCommand(args.command) };
    },
  },
  async execute(args, ctx) {
    const cwd = resolveCwd(args, ctx.state.cwd);
    checkCwd(cwd);
    if (ctx.signal.aborted) throw new ToolError('The run was stopped before the command started; it did not run.', 'aborted');
    const timeoutMs = args.timeout ?? DEFAULT_TIMEOUT_MS;
    const outcome = await run(args.command, cwd, timeoutMs, ctx);
    return { output: format(outcome, timeoutMs), untrustedSource: 'command output' };
  },
});
