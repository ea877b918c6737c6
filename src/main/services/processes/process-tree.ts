/**
 * Ending what Deskhand started: a process group and every descendant carrying its tag, SIGTERM first and SIGKILL
 * after a grace period (the launcher's stop, and the stop of groups recorded by an earlier process).
 */
import { groupMembers, processGroupAlive, signalGroup, signalProcess, taggedProcesses } from './proc-info';

/** Between SIGTERM and SIGKILL: long enough for a command to flush and clean up, short enough to feel responsive. */
export const KILL_GRACE_MS = 3_000;

export type StopHow = 'terminated' | 'killed';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Ends a process group (when `pgid` is given) and every process carrying `tag`: SIGTERM to all, then SIGKILL to
 * whatever is left after `graceMs`. Resolves once nothing is left (or after a bounded wait for the kernel to reap).
 */
export async function stopProcessTree(pgid: number | null, tag: string | null, graceMs: number = KILL_GRACE_MS): Promise<StopHow> {
  const tagged = (): number[] => (tag ? taggedProcesses(tag) : []);
  const signalAll = (signal: NodeJS.Signals): void => {
    if (pgid !== null) signalGroup(pgid, signal);
    for (const pid of tagged()) signalProcess(pid, signal);
  };
  const alive = (): boolean => (pgid !== null && processGroupAlive(pgid)) || tagged().length > 0;
  if (pgid !== null && tag !== null && isSandboxTag(tag)) {
    // The leader is bubblewrap: SIGTERM would end it at once, and with it (pid namespace) everything inside, with no
    // time to clean up. So the command's processes get SIGTERM and bubblewrap only the SIGKILL, if it comes to that.
    for (const pid of new Set([...groupMembers(pgid), ...tagged()])) if (pid !== pgid) signalProcess(pid, 'SIGTERM');
  } else {
    signalAll('SIGTERM');
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(50);
    if (!alive()) return 'terminated';
  }
  // Repeat: a process may fork between one kill and the next (a fork bomb does nothing else).
  for (let i = 0; i < 40 && alive(); i++) {
    signalAll('SIGKILL');
    await sleep(25);
  }
  return 'killed';
}

/** Tags say whether the group leader is bubblewrap (`bw…`) or the shell itself (`sh…`): stops differ (see above). */
export const isSandboxTag = (tag: string): boolean => tag.startsWith('bw');

/** Synchronous last resort (process 'exit'): SIGKILL to a group and its tagged descendants, no waiting. */
export function killNow(pgid: number | undefined, tag: string | null): void {
  if (pgid !== undefined) signalGroup(pgid, 'SIGKILL');
  if (tag) for (const pid of taggedProcesses(tag)) signalProcess(pid, 'SIGKILL');
}
