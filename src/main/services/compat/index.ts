/**
 * Claude Code compatibility, per folder (docs/extending.md "Claude Code compatibility"): whether Deskhand reads a
 * workspace root's `.claude/commands/`, `.claude/agents/` and `.claude/settings.json` hooks besides its own
 * `.deskhand/` ones. Off by default; the person turns it on for one folder (`deskhand compat on --cwd DIR`, Settings →
 * Plugins, the contract's `setClaudeCompat`). Kept in the store (module project-pins, kind `claude-compat`, the
 * folder's real path), so every process on the data folder — the app, `deskhand run`, `web`, `acp` — sees the same.
 * Turning it on trusts nothing: `.claude/` commands and agents still reach the model as the project's untrusted text,
 * and `.claude/settings.json` hooks still run only once pinned (`deskhand hooks trust`).
 */
import { existsSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Store } from '../store/store';
import { projectPinsModule } from '../store/modules/project-pins';

export const CLAUDE_COMPAT_KIND = 'claude-compat';

/** Whether `.claude/` is read in a workspace root. */
export type CompatCheck = (root: string) => boolean;

/** Nothing from `.claude/` (a catalog built without the store: tests, hosts that never turn it on). */
export const COMPAT_OFF: CompatCheck = () => false;

/** A folder as compatibility keys it: its real path when it exists (a link and its target are one folder). */
export function compatKey(folder: string): string {
  const abs = resolve(folder);
  try {
    return realpathSync(abs);
  } catch {
    return abs;
  }
}

/** What a folder's `.claude/` holds that compatibility reads (`.claude/commands`, `.claude/agents`, `.claude/settings.json`). */
export const claudeParts = (folder: string): string[] => ['commands', 'agents', 'settings.json'].filter((p) => existsSync(join(folder, '.claude', p))).map((p) => `.claude/${p}`);

export class ClaudeCompat {
  constructor(private readonly store: Pick<Store, 'module' | 'isOpen'>) {}

  private get pins() {
    return this.store.module(projectPinsModule);
  }

  isOn(folder: string): boolean {
    return this.store.isOpen && this.pins.pinned(CLAUDE_COMPAT_KIND, compatKey(folder)) !== null;
  }

  /** Turns it on or off for a folder; returns whether anything changed. */
  set(folder: string, on: boolean): boolean {
    const key = compatKey(folder);
    if (on) {
      const was = this.pins.pinned(CLAUDE_COMPAT_KIND, key) !== null;
      this.pins.pin(CLAUDE_COMPAT_KIND, key, '');
      return !was;
    }
    return this.pins.unpin(CLAUDE_COMPAT_KIND, key);
  }

  /** Every folder it is on for. */
  folders(): string[] {
    return this.pins.list(CLAUDE_COMPAT_KIND).map((r) => r.path);
  }

  /** The check the catalogs take. */
  readonly check: CompatCheck = (root) => this.isOn(root);
}
