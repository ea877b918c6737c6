/**
 * A package loaded on its first use instead of at import (a run's start need not compile what only some calls use):
 * `require` from node_modules, resolved from the build's own folder. For services whose folder may not name where the
 * build lives (the scheduler's, test/lint/schedule-room.test.ts).
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export function lazyPackage<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(name) as T);
}
