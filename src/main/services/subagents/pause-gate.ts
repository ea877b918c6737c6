/**
 * Children paused by steer_subagent, in this process: a held child's next model call waits until it is released, or
 * until its stop (the signal) ends the wait at once.
 */
export class PauseGate {
  private readonly held = new Map<string, { promise: Promise<void>; release: () => void }>();

  hold(id: string): void {
    if (this.held.has(id)) return;
    let release!: () => void;
    const promise = new Promise<void>((resolve) => (release = resolve));
    this.held.set(id, { promise, release });
  }

  /** Lets a held child go on; false when it was not held. */
  release(id: string): boolean {
    const hold = this.held.get(id);
    if (!hold) return false;
    this.held.delete(id);
    hold.release();
    return true;
  }

  has(id: string): boolean {
    return this.held.has(id);
  }

  async wait(id: string, signal?: AbortSignal): Promise<void> {
    const hold = this.held.get(id);
    if (!hold || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      signal?.addEventListener('abort', done, { once: true });
      void hold.promise.then(done);
    });
  }
}
