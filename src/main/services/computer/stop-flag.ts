/** The store-level kill switch flag (computer-stops module) as the computer-use service sees it. */
import type { Store } from '../store/store';
import { computerStopsModule } from '../store/modules/computer-stops';

export interface StopFlag {
  /** Records a stop for every process on the data folder. */
  raise(reason: string): void;
  /** The newest stop's time (ms), or null. */
  latest(): number | null;
}

export class StoreStopFlag implements StopFlag {
  private readonly q: ReturnType<typeof computerStopsModule.queries>;
  constructor(store: Store) {
    this.q = store.module(computerStopsModule);
  }
  raise(reason: string): void {
    this.q.raise(reason);
  }
  latest(): number | null {
    return this.q.latest();
  }
}
