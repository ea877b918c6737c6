/**
 * A host's last resort on exit. Every service closes what it opened (AppRuntime.close), so a host's process ends on
 * its own once its work is done; if something still holds the event loop after a deadline (a service that did not
 * close, a socket nobody ended), the host says in one line what was still open and exits anyway: an unattended
 * command or a stopped `deskhand web` never hangs. The timer is unref'd: it never keeps the process alive itself.
 * Imports nothing heavy (the CLI's entry loads it).
 */

export interface ExitDeadline {
  cancel(): void;
}

/** After `ms`, if the process is still here: `deskhand: <what> still open after N ms: …; exiting now.` then exit. */
export function exitDeadline(opts: { ms: number; what: string; code: number; pending?: () => string[]; write?: (line: string) => void }): ExitDeadline {
  const timer = setTimeout(() => {
    const open = [...(opts.pending?.() ?? []).map((p) => `${p} (closing)`), ...openHandles()];
    (opts.write ?? ((l) => void process.stderr.write(l)))(`deskhand: ${opts.what}; still open after ${opts.ms} ms: ${open.join(', ') || 'nothing visible (a native handle)'}; exiting now.\n`);
    process.exit(opts.code);
  }, opts.ms);
  timer.unref();
  return { cancel: () => clearTimeout(timer) };
}

/** `ms` from `DESKHAND_EXIT_DEADLINE_MS` when set (tests under load lengthen it), else the default. */
export function deadlineMs(fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.DESKHAND_EXIT_DEADLINE_MS);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

type Handle = {
  constructor?: { name?: string };
  fd?: number;
  _handle?: { fd?: number };
  pid?: number;
  spawnfile?: string;
  stdio?: unknown[];
  hasRef?: () => boolean;
  remoteAddress?: string;
  remotePort?: number;
  address?: () => unknown;
};

/** What keeps the event loop alive, in words: child processes (and their pipes), sockets (not stdio), servers, timers. */
export function openHandles(): string[] {
  const handles = (process as unknown as { _getActiveHandles?: () => Handle[] })._getActiveHandles?.() ?? [];
  const pipeOf = new Map<unknown, number>();
  for (const h of handles) if (h.constructor?.name === 'ChildProcess') for (const p of h.stdio ?? []) if (p) pipeOf.set(p, h.pid ?? -1);
  const out: string[] = [];
  for (const h of handles) {
    if (typeof h.hasRef === 'function' && !h.hasRef()) continue;
    const kind = h.constructor?.name ?? 'handle';
    const fd = h._handle?.fd ?? h.fd;
    if (fd !== undefined && fd >= 0 && fd <= 2) continue; // stdin, stdout, stderr
    if (kind === 'ChildProcess') out.push(`child process ${h.pid ?? '?'} (${h.spawnfile ?? '?'})`);
    else if (pipeOf.has(h)) out.push(`a pipe of child process ${pipeOf.get(h)}`);
    else if (kind === 'Socket') out.push(h.remoteAddress ? `socket to ${h.remoteAddress}:${h.remotePort ?? ''}` : `local socket (fd ${fd ?? '?'}, such as a D-Bus connection)`);
    else if (kind === 'Server') out.push(`server ${JSON.stringify(h.address?.() ?? null)}`);
    else out.push(kind);
  }
  // Timers are not handles: the resource list counts the ones that keep the loop alive (unref'd ones, this, are not).
  const timers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
  if (timers) out.push(`${timers} timer${timers === 1 ? '' : 's'}`);
  return out;
}

/**
 * Resolves at the first Ctrl-C or SIGTERM (or when `also` settles: an editor closing the connection); a second
 * Ctrl-C after that exits at once with 130, waiting for nothing. The long-running hosts' "run until stopped".
 */
export function untilStopSignal(also?: Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.once('SIGINT', () => process.exit(130));
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (also) void also.then(stop, stop);
  });
}
