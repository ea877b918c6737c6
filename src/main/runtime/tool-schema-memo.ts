/**
 * Where a process may keep the JSON schemas of built-in tools across runs. A built-in tool's schema is converted from
 * its zod `params` on first use (registry.ts, `entryOf`): ≈ 0.5 ms a tool in a fresh process, ≈ 9 ms of a CLI run's
 * start for the tools of its first request. The schema is a function of the build alone (a built-in tool's params are
 * constants of its code, never of settings or of the conversation: `test/runtime/tool-schema-memo.test.ts` holds every
 * built-in tool to it), so the CLI's CommonJS entry keeps them beside the compile cache, one file per build
 * (host/cli/schema-cache.ts). Tools given as JSON schema (MCP, custom tools) never come here.
 *
 * Without a memo (the app, tests, a build run from source) every schema is converted as before.
 */
import type { ToolDefinition } from './tool';

export interface ToolSchemaMemo {
  /** The schema kept for this tool (the same name and description), as a new object each time; undefined if none. */
  get(tool: ToolDefinition): Record<string, unknown> | undefined;
  /** A schema this process converted, to keep. */
  put(tool: ToolDefinition, schema: Record<string, unknown>): void;
}

let memo: ToolSchemaMemo | null = null;

/** Set once by the entry that owns the memo's storage, before any tool is registered. */
export function useToolSchemaMemo(next: ToolSchemaMemo | null): void {
  memo = next;
}

export function toolSchemaMemo(): ToolSchemaMemo | null {
  return memo;
}
