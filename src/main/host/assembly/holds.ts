/**
 * Every hold a feature declares, registered on a decision book (runtime/decision/hold.ts): each family that holds a
 * conversation declares its holds in its own folder (`tools/<family>/hold.ts` exports `holds`: a factory over the
 * `HoldContext` and its `order`), and this file registers them all in one loop, by `order` — plan mode (10), Tower's
 * mission scope (20), a peer's ceiling (30), a subagent's inherited ceilings (40). No hold is named here: the build
 * collects every `tools/*\/hold.ts` (Vite's `import.meta.glob`, in the app's build and in the tests alike). The app's
 * services (host-services.ts) and the short path of `policy explain` (explain-host.ts) both register them here, over
 * the same context, so a call is judged the same either way.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ImportGlobFunction } from 'vite/types/importGlob.d.ts';
import type { DecisionBook } from '../../runtime/decision/decision-book';
import type { HoldContext, HoldDeclaration, HoldModule } from '../../runtime/decision/hold';

declare global {
  interface ImportMeta {
    glob: ImportGlobFunction;
  }
}

/** Every family's hold module, by path (collected at build time; a new `tools/<family>/hold.ts` is picked up). */
export const HOLD_MODULES: readonly HoldModule[] = Object.values(globbed() ?? sourceHoldModules());

/** The build's (and vitest's) collection: Vite replaces this call with the modules themselves. */
function globbed(): Record<string, HoldModule> | null {
  try {
    return import.meta.glob<HoldModule>('../../tools/*/hold.ts', { eager: true });
  } catch {
    // Not under Vite (the benches run the sources with tsx, where `import.meta.glob` does not exist).
    return null;
  }
}

/** The same collection from the source tree, for code run from source without Vite (tsx): Deskhand's own files. */
function sourceHoldModules(): Record<string, HoldModule> {
  const tools = fileURLToPath(new URL('../../tools/', import.meta.url));
  const load = createRequire(import.meta.url);
  const out: Record<string, HoldModule> = {};
  for (const family of readdirSync(tools).sort()) {
    const file = join(tools, family, 'hold.ts');
    if (existsSync(file)) out[file] = load(file) as HoldModule;
  }
  return out;
}

/** Every declaration of the modules, lowest `order` first (ties: the modules' order, then the module's own). */
export function declaredHolds(modules: readonly HoldModule[]): HoldDeclaration[] {
  return modules.flatMap((m) => m.holds ?? []).sort((a, b) => a.order - b.order);
}

/**
 * Registers every declared hold (the families', and `extra` modules a host adds) over the context, in their order;
 * returns their removal.
 */
export function registerHolds(book: DecisionBook, ctx: HoldContext, extra: readonly HoldModule[] = []): () => void {
  const offs = declaredHolds([...HOLD_MODULES, ...extra]).map((d) => book.addHold(d.make(ctx)));
  return () => offs.forEach((off) => off());
}
