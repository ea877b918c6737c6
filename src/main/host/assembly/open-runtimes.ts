/**
 * The runtimes this process opened and has not closed yet. `openRuntime` adds each; `AppRuntime.close` removes it;
 * a host's exit path (the CLI's `main`) closes whatever a command left open. Kept apart from open-runtime.ts so the
 * CLI's dispatcher can hold the exit path without loading the runtime (docs/performance.md, "CLI start").
 */
interface Closable {
  close(): Promise<void>;
}

const OPEN = new Set<Closable>();

export function trackOpen(runtime: Closable): void {
  OPEN.add(runtime);
}

export function forgetOpen(runtime: Closable): void {
  OPEN.delete(runtime);
}

/** Closes every runtime this process opened (the CLI's exit path, whatever the command forgot). */
export async function closeOpenRuntimes(): Promise<void> {
  await Promise.allSettled([...OPEN].map((r) => r.close()));
}
