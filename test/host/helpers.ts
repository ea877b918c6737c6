/** A real app service over a real store, runtime, built-in tools and the scripted model server. */
import { spawnSync } from 'node:child_process';
import type { ContractEvent } from '../../src/shared/contract';
import { AppService, type Logger } from '../../src/main/host/app/app-service';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { MemorySecretStoreForTests } from '../../src/main/services/vault/secret-store';
import { Vault } from '../../src/main/services/vault/vault';
import type { ProviderConfig } from '../../src/main/services/providers/providers';

export class RecordingLogger implements Logger {
  readonly lines: { message: string; details?: Record<string, unknown> }[] = [];
  warn(message: string, details?: Record<string, unknown>): void {
    this.lines.push({ message, ...(details ? { details } : {}) });
  }
  text(): string {
    return this.lines.map((l) => `${l.message} ${JSON.stringify(l.details ?? {})}`).join('\n');
  }
}

export interface Harness {
  service: AppService;
  runtime: AppRuntime;
  store: Store;
  log: RecordingLogger;
  secrets: MemorySecretStoreForTests;
  events: ContractEvent[];
  waitFor<T>(pick: (e: ContractEvent) => T | undefined | false, timeoutMs?: number): Promise<T>;
  close(): void;
}

export function openHarness(opts: {
  dataDir: string;
  override?: ProviderConfig | null;
  env?: NodeJS.ProcessEnv;
  secrets?: MemorySecretStoreForTests;
  /** Give the runtime a vault (saved secrets) over the same in-memory secret store. */
  vault?: boolean;
}): Harness {
  const store = new Store(opts.dataDir);
  const secrets = opts.secrets ?? new MemorySecretStoreForTests();
  // Every family over real background tasks, as the hosts assemble them.
  const runtime = createAppRuntime({
    store,
    dataDir: opts.dataDir,
    retryBaseMs: 10,
    idleTimeoutMs: 5000,
    vault: opts.vault ? new Vault(secrets, store) : null,
  });
  runtime.recoverInterrupted();
  const log = new RecordingLogger();
  const service = new AppService({
    runtime,
    secrets,
    dataDir: opts.dataDir,
    kind: 'web',
    providerOverride: opts.override ?? null,
    env: opts.env ?? {},
    log,
  });
  const events: ContractEvent[] = [];
  const waiters = new Set<() => void>();
  service.onEvent((e) => {
    events.push(e);
    for (const w of [...waiters]) w();
  });
  let seen = 0;
  return {
    service,
    runtime,
    store,
    log,
    secrets,
    events,
    /** Resolves with the first event (not yet consumed by an earlier waitFor) that `pick` maps to a value. */
    waitFor<T>(pick: (e: ContractEvent) => T | undefined | false, timeoutMs = 10_000): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const check = () => {
          for (let i = seen; i < events.length; i++) {
            const v = pick(events[i]!);
            if (v !== undefined && v !== false) {
              seen = i + 1;
              waiters.delete(check);
              clearTimeout(timer);
              resolve(v);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for an event; saw: ${events.map((e) => (e.event === 'run' ? e.payload.type : e.event)).join(', ')}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      store.close();
    },
  };
}

/** A process id that no longer exists (its process ran and exited), to stand in for a host that died. */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid!;
}
