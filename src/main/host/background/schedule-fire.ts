/**
 * host/background/ — work the host runs on its own on an open runtime: scheduled fires (this file) and the ticker,
 * task wake-ups, the goal loop, resuming a parked run after the last answer. It imports host/assembly/ and the
 * layers below the host; never host/app/, host/web/ or host/cli/ (they start it).
 * Lint (HOST_GROUPS in eslint.config.js) and scripts/check-cycles.mjs hold this; docs/architecture.md, "The host".
 */
/**
 * The one fire entry point of the hosts (issue 44, "scheduling in one room"). The firing itself (claim, advance and
 * arm, ring or wake, record, recover) is the schedule service's (services/scheduler/fire.ts); `scheduleFire` gives it
 * what differs between hosts — how a trigger's conversation wakes: the runtime the host holds (or one opened on the
 * first fire that must start a run, as `deskhand fire` does, so a reminder rings without it) and the provider of the
 * conversation's last run. The ticker, `deskhand fire`, `schedule doctor` and "Run now" (`runScheduleNow`) all fire
 * through it; no host builds the fire's context itself (test/lint/schedule-room.test.ts).
 */
import type { RunEvent } from '../../../shared/events';
import type { ProviderConfig } from '../../services/providers/providers';
import type { ScheduleService } from '../../services/scheduler/schedules';
import type { Notifier } from '../../services/notify';
import {
  fireSchedule as fireInService,
  recoverClaims as recoverInService,
  type FireContext,
  type FireOutcome,
  type Waker,
} from '../../services/scheduler/fire';
import type { AppRuntime } from '../assembly/open-runtime';

export { EARLY_WAIT_MS, claimer, fireMessage, parkedNotice, staleClaims, type FireOutcome } from '../../services/scheduler/fire';

/**
 * Where a fire runs: the runtime the host holds, or (`deskhand fire`: a reminder rings with the store and the notifier
 * alone) the schedules, notifier and redactor it has and a function that opens the runtime on the first fire that
 * must start a run.
 */
export type FireHost =
  | AppRuntime
  | {
      schedules: ScheduleService;
      notifier: Notifier;
      /** What a notification and the fire's record are redacted with (the runtime's, once it is opened). */
      redactor: { redact(text: string): string };
      open: () => Promise<AppRuntime>;
    };

/** The provider a woken run uses: from the conversation's last run, keys from the keyring or environment. */
export type FireProvider = (lastRun: { provider: string; model: string; base_url: string | null } | undefined) => Promise<ProviderConfig> | ProviderConfig;

export interface FireOptions {
  /** `os` (deskhand fire), `ticker`, `now` (run now), `recover`. */
  via: string;
  provider: FireProvider;
  /** Default: the host's (the runtime's one notifier). */
  notifier?: Notifier;
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** What a host fires with: the due fire of a schedule (`force`: now, whatever its next time), and claims a crashed process left. */
export interface ScheduleFire {
  readonly schedules: ScheduleService;
  fire(scheduleId: string, opts?: { force?: boolean }): Promise<FireOutcome>;
  recover(): Promise<FireOutcome[]>;
}

const isRuntime = (host: FireHost): host is AppRuntime => !('open' in host && typeof host.open === 'function');

/** Wakes conversations on the host's runtime, headless, with the provider of each conversation's last run. */
function runtimeWaker(runtime: () => Promise<AppRuntime>, provider: FireProvider, onEvent?: (event: RunEvent) => void): Waker {
  return {
    async wake(conversationId, message, { signal, onRunStarted }) {
      const rt = await runtime();
      if (!rt.records.getConversation(conversationId)) return null;
      const config = await provider(rt.records.latestRunForConversation(conversationId));
      const outcome = await rt.wake(conversationId, message, {
        provider: config,
        interactive: false,
        ...(signal ? { signal } : {}),
        onEvent: (e) => {
          if (e.type === 'run.started') onRunStarted(e.runId);
          onEvent?.(e);
        },
      });
      const first = outcome.status === 'parked' && outcome.approvalIds[0] ? rt.records.getApproval(outcome.approvalIds[0]) : undefined;
      return { status: outcome.status, runId: outcome.runId, error: outcome.error, approvalIds: outcome.approvalIds, waiting: first ? { id: first.id, kind: first.kind, tool: first.tool, risk: first.risk } : null };
    },
  };
}

/** The one fire entry point: the schedule service's fire and recovery with this host's waker. */
export function scheduleFire(host: FireHost, opts: FireOptions): ScheduleFire {
  const runtime = isRuntime(host) ? () => Promise.resolve(host) : host.open;
  const ctx: FireContext = {
    notifier: opts.notifier ?? host.notifier,
    redactor: host.redactor,
    waker: runtimeWaker(runtime, opts.provider, opts.onEvent),
    via: opts.via,
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.sleep ? { sleep: opts.sleep } : {}),
  };
  return {
    schedules: host.schedules,
    fire: (scheduleId, o = {}) => fireInService(host.schedules, scheduleId, ctx, o),
    recover: () => recoverInService(host.schedules, ctx),
  };
}

/**
 * "Run now" (the app's Run now, the tray's, `deskhand schedule run`): on the runtime the host holds, with its
 * schedules and its notifier unless the caller shows notifications its own way.
 */
export async function runScheduleNow(
  runtime: AppRuntime,
  scheduleId: string,
  opts: Pick<FireOptions, 'provider'> & Partial<Pick<FireOptions, 'notifier' | 'onEvent' | 'signal'>>,
): Promise<FireOutcome> {
  return scheduleFire(runtime, { ...opts, via: 'now' }).fire(scheduleId, { force: true });
}
