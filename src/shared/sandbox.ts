/** Sandbox modes for commands, per conversation. Pure TypeScript (the UI shows and changes the mode). */

/**
 * - `workspace-write` (default): commands run in the OS sandbox with the workspace roots writable, the rest of the
 *   file system read-only, secrets hidden and the network off.
 * - `read-only`: the same sandbox with the workspace read-only too.
 * - `off`: commands run without the OS sandbox, so every command asks a person first.
 */
export const SANDBOX_MODES = ['workspace-write', 'read-only', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
export const DEFAULT_SANDBOX_MODE: SandboxMode = 'workspace-write';

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === 'string' && (SANDBOX_MODES as readonly string[]).includes(value);
}
