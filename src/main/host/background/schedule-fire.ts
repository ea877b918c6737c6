/**
 * host/background/ — work the host runs on its own on an open runtime: scheduled fires (this file) and the ticker,
 * task wake-ups, the goal loop, resuming a parked run after the last answer. It imports host/assembly/ and the
 * layers below the host; never host/app/, host/web/ or host/cli/ (they start it).
 * Lint (HOST_GROUPS in eslint.config.js) and scripts/check-cycles.mjs hold this; docs/architecture.md, "The host".
 */
/**
 * How the host wakes a trigger's conversation — the one part of firing that differs between hosts. The firing itself
 * (claim, advance and arm, ring or wake, record, recover) is the schedule service's (services/scheduler/fire.ts);
 * `fireSchedule` and `recoverClaims` here give it the host's waker: the runtime the host holds (or one opened on the
 * first fire that must start a run, as `deskhand fire` does, so a reminder rings without it) and the provider of the
 * conversation's last run.
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

export interface FireDeps {
  /**
   * The runtime a trigger's run is driven on: the one the host holds, or a function that opens it on the first fire
   * that must start a run (`deskhand fire`: a reminder rings with the store and the notifier alone).
   */
  runtime: AppRuntime | (() => Promise<AppRuntime>);
  /** What a notification and the fire's record are redacted with (default: the runtime's redactor; needed when the runtime is opened lazily). */
  redactor?: { redact(text: string): string };
  schedules: ScheduleService;
  notifier: Notifier;
  /** The provider a woken run uses: from the conversation's last run, keys from the keyring or environment. */
  provider: (lastRun: { provider: string; model: string; base_url: string | null } | undefined) => Promise<ProviderConfig> | ProviderConfig;
  /** `os` (deskhand fire), `ticker`, `now` (run now), `recover`. */
  via: string;
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Wakes conversations on the host's runtime, headless, with the provider of each conversation's last run. */
export function runtimeWaker(runtime: FireDeps['runtime'], provider: FireDeps['provider'], onEvent?: (event: RunEvent) => void): Waker {
  return {
    async wake(conversationId, message, { signal, onRunStarted }) {
      const rt = typeof runtime === 'function' ? await runtime() : runtime;
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

function contextOf(deps: FireDeps): FireContext {
  const redactor = deps.redactor ?? (typeof deps.runtime !== 'function' ? deps.runtime.redactor : null);
  if (!redactor) throw new Error('FireDeps: a runtime opened on demand needs a redactor of its own');
  return {
    notifier: deps.notifier,
    redactor,
    waker: runtimeWaker(deps.runtime, deps.provider, deps.onEvent),
    via: deps.via,
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.now ? { now: deps.now } : {}),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
  };
}

/** Claims and runs the due fire of `scheduleId` with this host's waker. `force`: run now, whatever its next time. */
export async function fireSchedule(scheduleId: string, deps: FireDeps, opts: { force?: boolean } = {}): Promise<FireOutcome> {
  return fireInService(deps.schedules, scheduleId, contextOf(deps), opts);
}

/**
 * "Run now" (the app's Run now, the tray's, `deskhand schedule run`): the one entry point, on the runtime the host
 * holds, with its schedules and its notifier unless the caller shows notifications its own way.
 */
export async function runScheduleNow(
  runtime: AppRuntime,
  scheduleId: string,
  opts: Pick<FireDeps, 'provider'> & Partial<Pick<FireDeps, 'notifier' | 'onEvent' | 'signal'>>,
): Promise<FireOutcome> {
  return fireSchedule(scheduleId, { runtime, schedules: runtime.schedules, notifier: opts.notifier ?? runtime.notifier, provider: opts.provider, via: 'now', ...(opts.onEvent ? { onEvent: opts.onEvent } : {}), ...(opts.signal ? { signal: opts.signal } : {}) }, { force: true });
}

/** Finishes claims a crashed process left (see services/scheduler/fire.ts). */
export async function recoverClaims(deps: FireDeps): Promise<FireOutcome[]> {
  return recoverInService(deps.schedules, contextOf(deps));
}
