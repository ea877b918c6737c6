/**
 * Ripgrep for find and grep: the bundled binary from @vscode/ripgrep (unpacked from the asar archive in a packaged
 * app), falling back to `rg` on PATH. Output is streamed line by line and the process is killed as soon as the caller
 * has enough, or when the call is aborted.
 */
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { ToolError } from '../../../shared/errors';
import { launchHostProgram } from '../../services/processes';

let located: Promise<string> | undefined;

async function locate(): Promise<string> {
  try {
    const mod = (await import('@vscode/ripgrep')) as { rgPath: string };
    const path = mod.rgPath.replace(/([\\/])app\.asar([\\/])/, '$1app.asar.unpacked$2');
    if (existsSync(path)) return path;
  } catch {
    // The platform package is missing (unsupported platform or a trimmed install): use rg from PATH.
  }
  return process.platform === 'win32' ? 'rg.exe' : 'rg';
}

/** Set by tests to run another ripgrep (a missing one, to exercise the system grep fallback). */
export const ripgrepOverride: { path: string | null } = { path: null };

/** The ripgrep executable to run (resolved once). */
export function ripgrepPath(): Promise<string> {
  if (ripgrepOverride.path !== null) return Promise.resolve(ripgrepOverride.path);
  located ??= locate();
  return located;
}

/**
 * rg starts nothing of its own (Deskhand never passes --pre or --search-zip), so stopping it needs no process group:
 * it stays in Deskhand's. A group of its own means a session of its own (setsid), and on Linux a new session is a new
 * scheduling autogroup, which on a loaded machine cost each search about 15% of its wall time (issue 54).
 */
export const RG_OWN_GROUP = false;

/** Flags every Deskhand rg call starts with: no user config, no colour, no surprises from the environment. */
export const RG_BASE_ARGS: readonly string[] = ['--no-config', '--color=never', '--no-messages'];

export interface RgResult {
  code: number | null;
  stderr: string;
  /** True when the caller stopped early (the process was killed on purpose). */
  stopped: boolean;
}

/**
 * Runs rg, handing complete stdout lines to `onLines` chunk by chunk. Return `false` from `onLines` to stop: rg is
 * killed and no more lines are delivered. Throws a ToolError when rg cannot be started or the call is aborted.
 */
export async function runRg(
  args: readonly string[],
  opts: {
    cwd: string;
    signal: AbortSignal;
    /** Complete lines, chunk by chunk. */
    onLines?: (lines: string[]) => boolean | void;
    /** Raw stdout bytes as they arrive (no decoding or line splitting; cheapest). Used instead of onLines when given. */
    onChunk?: (chunk: Buffer) => boolean | void;
  },
): Promise<RgResult> {
  const bin = await ripgrepPath();
  if (opts.signal.aborted) throw new ToolError('Stopped before finishing (the call was cancelled or timed out).', 'aborted');
  return new Promise<RgResult>((resolve, reject) => {
    // A fixed program (Deskhand's ripgrep with the flags it builds) on the host, through the launcher.
    const launched = launchHostProgram({ program: bin, args, cwd: opts.cwd, ownGroup: RG_OWN_GROUP });
    const child = launched.child as typeof launched.child & { stdout: Readable; stderr: Readable };
    let rest = '';
    let stopped = false;
    let stderr = '';
    let settled = false;

    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      child.stdout.removeAllListeners('data');
      child.stdout.destroy();
      launched.killNow();
    };
    const onAbort = (): void => stop();
    opts.signal.addEventListener('abort', onAbort, { once: true });

    const { onChunk, onLines } = opts;
    if (onChunk) {
      child.stdout.on('data', (chunk: Buffer) => {
        if (onChunk(chunk) === false) stop();
      });
    } else {
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        const text = rest + chunk;
        const last = text.lastIndexOf('\n');
        if (last === -1) {
          rest = text;
          return;
        }
        rest = text.slice(last + 1);
        if (onLines?.(text.slice(0, last).split('\n')) === false) stop();
      });
    }
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 16_384) stderr += chunk;
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      opts.signal.removeEventListener('abort', onAbort);
      // Missing or not executable: grep falls back to the system grep on `rgUnusable`.
      const unusable = err.code === 'ENOENT' || err.code === 'EACCES' || err.code === 'ENOEXEC';
      reject(
        err.code === 'ENOENT'
          ? new ToolError('ripgrep (rg) is not available on this machine, so find cannot run. Use ls to look around instead.', 'internal', { rgUnusable: true, reason: 'it is not installed' })
          : new ToolError(`Could not start ripgrep: ${err.message}`, 'internal', unusable ? { rgUnusable: true, reason: `it cannot be run: ${err.code}` } : undefined),
      );
    });
    child.on('close', (code) => {
      if (settled) return;
      settled = true;
      opts.signal.removeEventListener('abort', onAbort);
      if (!stopped && rest !== '') {
        if (onLines?.([rest]) === false) stopped = true;
      }
      if (opts.signal.aborted) {
        reject(new ToolError('Stopped before finishing (the call was cancelled or timed out).', 'aborted'));
        return;
      }
      resolve({ code, stderr, stopped });
    });
  });
}

/** The first meaningful line of rg's stderr, for error messages. */
export function rgErrorLine(stderr: string): string {
  return (
    stderr
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}
