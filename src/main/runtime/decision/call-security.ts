/**
 * Small pieces of the security path the runtime applies to every call and every sink, kept here so runtime.ts stays
 * the loop: sanitizing text and events, the secrets a run holds, and the untrusted source of a read.
 */
import type { RunEvent } from '../../../shared/events';
import type { ToolCallRow } from '../../services/store/store';
import { neutralize, neutralizeCharacters } from '../context/neutralize';
import type { PathCheck } from './path-guard';
import type { Redactor } from '../context/redaction';
import type { ToolDefinition } from '../tool';

/** Tool output and error text: neutralized (escapes, bidi, zero-width, approval look-alikes), then redacted. */
export function sanitizeOutput(text: string, redactor: Redactor): string {
  return redactor.redact(neutralize(text));
}

/** Text that is not tool output (model text, messages): controls made visible, then redacted. */
export function sanitizeText(text: string, redactor: Redactor): string {
  return redactor.redact(neutralizeCharacters(text));
}

/** Every string inside `value`, redacted (objects and arrays copied). */
export function deepRedact<T>(value: T, redactor: Redactor, depth = 0): T {
  if (typeof value === 'string') return redactor.redact(value) as T;
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => deepRedact(v, redactor, depth + 1)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = deepRedact(v, redactor, depth + 1);
  return out as T;
}

/**
 * An event as every listener may see it: strings redacted (streamed text and output were redacted by their stream
 * redactors already, and pass through unchanged).
 */
export function sanitizeEvent(event: RunEvent, redactor: Redactor): RunEvent {
  if (event.type === 'text' || event.type === 'thinking' || event.type === 'tool.output' || event.type === 'usage' || event.type === 'run.started') return event;
  return deepRedact(event, redactor);
}

/** The secrets a run holds: names loaded by its finished ask_user_secret / use_saved_secret calls. */
export function heldSecretNames(calls: readonly Pick<ToolCallRow, 'tool' | 'args' | 'status' | 'is_error'>[], lookup: (name: string) => ToolDefinition | undefined): Set<string> {
  const held = new Set<string>();
  for (const c of calls) {
    if (c.status !== 'done' || c.is_error) continue;
    const tool = lookup(c.tool);
    if (!tool?.holdsSecret) continue;
    try {
      const name = tool.holdsSecret(JSON.parse(c.args) as never);
      if (name) held.add(name);
    } catch {
      // arguments that do not parse hold nothing
    }
  }
  return held;
}

/** The untrusted source of a call that read outside the workspace, or null. */
export function untrustedReadSource(paths: readonly PathCheck[]): string | null {
  const outside = paths.filter((p) => p.untrusted && !p.raw);
  if (outside.length === 0) return null;
  return `file outside the workspace: ${outside.map((p) => p.resolved).join(', ')}`;
}

export function parsePathChecks(json: string | null | undefined): PathCheck[] {
  if (!json) return [];
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? (value as PathCheck[]) : [];
  } catch {
    return [];
  }
}
