/**
 * When the schedule list may have changed, at once: a tool call ended or a run finished (a reminder or scheduled
 * prompt set, cancelled or fired by the agent), or another process changed the store (a fire with the app closed).
 * Lists load again on these events instead of waiting for their next poll (the Reminders panel said "0 — No
 * reminders" for about 10 s after one was set; issue 52). Which tool changed what is not named here: any call that
 * ended is a reason to look again (one cheap read, coalesced).
 */
import { useEffect } from 'react';
import type { RunEvent } from '../../shared/events';
import { api } from '../api/client';

/** Calls `load` now, on every event that may change the schedule (coalesced to one load per 150 ms), and every `pollMs`. */
export function useScheduleRefresh(load: () => void, pollMs: number, deps: readonly unknown[] = []): void {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        load();
      }, 150);
    };
    load();
    const offs = [
      api().on('run', (e: RunEvent) => {
        if (e.type === 'tool.result' || e.type === 'run.finished') soon();
      }),
      api().on('conversationsChanged', soon),
    ];
    const poll = setInterval(load, pollMs);
    return () => {
      offs.forEach((off) => off());
      clearInterval(poll);
      if (timer) clearTimeout(timer);
    };
  }, deps);
}
