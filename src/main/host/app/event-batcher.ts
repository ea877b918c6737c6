/**
 * Collects contract events and hands them to a transport in batches, one per turn of the event loop. Consecutive text
 * deltas (and tool output chunks) of the same run are merged, so a 50,000-token stream costs a few hundred messages
 * instead of 50,000, without adding latency beyond the current tick.
 */
import type { ContractEvent } from '../../../shared/contract';

export class EventBatcher {
  private queue: ContractEvent[] = [];
  private scheduled = false;
  private closed = false;

  constructor(private readonly flush: (events: ContractEvent[]) => void) {}

  push(event: ContractEvent): void {
    if (this.closed) return;
    const last = this.queue[this.queue.length - 1];
    if (last?.event === 'run' && event.event === 'run') {
      const a = last.payload;
      const b = event.payload;
      if (a.type === 'text' && b.type === 'text' && a.runId === b.runId) {
        this.queue[this.queue.length - 1] = { event: 'run', payload: { ...a, delta: a.delta + b.delta } };
        return;
      }
      if (a.type === 'tool.output' && b.type === 'tool.output' && a.runId === b.runId && a.callId === b.callId && a.stream === b.stream) {
        this.queue[this.queue.length - 1] = { event: 'run', payload: { ...a, chunk: a.chunk + b.chunk } };
        return;
      }
    }
    this.queue.push(event);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
  }

  close(): void {
    this.closed = true;
    this.queue = [];
  }

  private drain(): void {
    this.scheduled = false;
    if (this.closed || this.queue.length === 0) return;
    const events = this.queue;
    this.queue = [];
    this.flush(events);
  }
}
