/**
 * Runs waiting for a person. An answer given in this process wakes its run at once; an answer another process wrote
 * to the same store (`deskhand runs answer` while the app waits) is noticed when that process commits
 * (`Store.onExternalChange`: a file watch confirmed by SQLite's data_version), never by a busy poll.
 */
import type { Store } from '../../services/store/store';

export class AnswerWaiters {
  /** Per run, everything in this process waiting on it (its loop, and calls asking a person mid-call). */
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly store: Store) {}

  /** Wakes the run's waiter if this process has one; returns whether it had. */
  wake(runId: string): boolean {
    const waiters = this.waiters.get(runId);
    if (!waiters?.size) return false;
    for (const waiter of [...waiters]) waiter();
    return true;
  }

  /** Resolves once one of `requestIds` is no longer pending, or `signal` aborts. */
  wait(runId: string, requestIds: readonly string[], signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const answered = () => requestIds.some((id) => this.store.getApproval(id)?.status !== 'pending');
      const done = () => {
        off();
        const set = this.waiters.get(runId);
        set?.delete(done);
        if (set && !set.size) this.waiters.delete(runId);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const off = this.store.onExternalChange(() => {
        if (answered()) done();
      });
      const set = this.waiters.get(runId) ?? new Set();
      set.add(done);
      this.waiters.set(runId, set);
      signal?.addEventListener('abort', done, { once: true });
      // Answered between the caller's check and this subscription: do not wait for another change.
      if (answered() || signal?.aborted) done();
    });
  }
}
