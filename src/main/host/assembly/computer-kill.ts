/**
 * The kill switch's reach into runs: every run a host drives gets a signal that the computer-use kill switch can
 * abort. The run is learned from its events; when the switch fires, the runs that were using the computer stop at
 * once (a running one through its signal, a parked one is stopped in the store).
 */
import type { RunOptions } from '../../runtime/runtime';
import type { ComputerUse } from '../../services/computer/index';

interface Live {
  runId: string | null;
  controller: AbortController;
}

export class KillableRuns {
  private readonly live = new Set<Live>();

  /** Wraps options for one drive of a run; call `release` when the drive returns. */
  wrap<O extends RunOptions>(options: O): { options: O; release: () => void } {
    const entry: Live = { runId: null, controller: new AbortController() };
    const outer = options.signal;
    const forward = () => entry.controller.abort(outer?.reason);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    this.live.add(entry);
    const wrapped: O = {
      ...options,
      signal: entry.controller.signal,
      onEvent: (e) => {
        const id = (e as { runId?: string }).runId;
        if (!entry.runId && id) entry.runId = id;
        options.onEvent?.(e);
      },
    };
    return {
      options: wrapped,
      release: () => {
        outer?.removeEventListener('abort', forward);
        this.live.delete(entry);
      },
    };
  }

  /** Aborts the live drives of these runs; returns the runs that were not live here (parked ones, elsewhere). */
  abort(runIds: readonly string[]): string[] {
    const hit = new Set<string>();
    for (const e of this.live) {
      if (e.runId && runIds.includes(e.runId)) {
        e.controller.abort(new Error('computer use was stopped with the kill switch'));
        hit.add(e.runId);
      }
    }
    return runIds.filter((id) => !hit.has(id));
  }
}

/** Wires the switch: live runs abort; runs parked on a request are stopped as the person would stop them. */
export function wireKillSwitch(computer: ComputerUse, runs: KillableRuns, stopParked: (runId: string) => void): () => void {
  return computer.onKill((runIds) => {
    for (const id of runs.abort(runIds)) {
      try {
        stopParked(id);
      } catch {
        // not parked (finished, or running in another process, which refuses further computer calls itself)
      }
    }
  });
}
