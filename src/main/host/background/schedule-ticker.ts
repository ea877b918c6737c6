/**
 * The in-app ticker: while Deskhand runs (desktop app, `deskhand web`), it fires what no OS job holds (no `at`, the
 * job could not be installed) and what the OS missed (a job still not run well after its time), and finishes claims
 * a crashed process left. Every fire is claimed in the store first, so the ticker and an OS job never both fire one.
 */
import { errorMessage } from '../../../shared/errors';
import { scheduleFire, type FireHost, type FireOptions, type FireOutcome } from './schedule-fire';

/** How long an OS job gets past its time before the ticker fires the schedule itself. */
export const OS_GRACE_MS = 90_000;

export class ScheduleTicker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly controller = new AbortController();

  constructor(
    /** Where it fires and with what (the provider; the notifier unless the host's): no `via` (`ticker`), no signal (its own). */
    private readonly host: FireHost,
    private readonly fireOpts: Omit<FireOptions, 'via' | 'signal'>,
    private readonly opts: { intervalMs?: number; onFire?: (o: FireOutcome) => void; onError?: (err: unknown) => void } = {},
  ) {}

  start(): this {
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), this.opts.intervalMs ?? 15_000);
      this.timer.unref?.();
      void this.tick();
    }
    return this;
  }

  /** One pass (tests call it directly); passes never overlap. */
  tick(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<void> {
    const fire = scheduleFire(this.host, { ...this.fireOpts, via: 'ticker', signal: this.controller.signal });
    try {
      for (const o of await fire.recover()) this.opts.onFire?.(o);
      const now = (this.fireOpts.now ?? Date.now)();
      for (const row of fire.schedules.rows.due(now)) {
        if (this.controller.signal.aborted) return;
        if (row.os_job && now - row.next_at! < OS_GRACE_MS) continue;
        const outcome = await fire.fire(row.id);
        if (outcome.status !== 'taken' && outcome.status !== 'nothing') this.opts.onFire?.(outcome);
      }
    } catch (err) {
      this.opts.onError?.(err);
      if (!this.opts.onError) process.stderr.write(`deskhand: schedule ticker: ${errorMessage(err)}\n`);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.controller.abort();
    await this.running;
  }
}
