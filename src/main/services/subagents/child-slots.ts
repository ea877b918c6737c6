/** The cap on live children per parent: a child past it queues until one ends, or its stop (the signal) drops it. */
import { DeskhandError } from '../../../shared/errors';

export class Slots {
  private live = 0;
  private readonly queue: (() => void)[] = [];
  constructor(readonly cap: number) {}
  async take(signal: AbortSignal): Promise<void> {
    if (this.live < this.cap) {
      this.live++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const go = () => {
        signal.removeEventListener('abort', stop);
        this.live++;
        resolve();
      };
      const stop = () => {
        const i = this.queue.indexOf(go);
        if (i >= 0) this.queue.splice(i, 1);
        reject(new DeskhandError('aborted', 'cancelled while queued'));
      };
      this.queue.push(go);
      signal.addEventListener('abort', stop, { once: true });
    });
  }
  give(): void {
    this.live--;
    this.queue.shift()?.();
  }
}

