/** The profiles that narrow a child's tools and policy, and the pure helpers over a child's result (schemas, checks). */
import { z } from 'zod';

/** A subagent type as a spawn names it: a built-in, an agent definition's name, or a plugin's `plugin:name`. */
export const SUBAGENT_TYPE_NAME = /^[A-Za-z0-9][\w.-]{0,63}(?::[A-Za-z0-9][\w-]{0,63})?$/;

export const SUBAGENT_TYPES = ['coder', 'explore', 'general', 'researcher'] as const;
export type SubagentType = (typeof SUBAGENT_TYPES)[number];

/** Spec II: one map_subagents call runs at most 128 children (new and resumed together). */
export const MAX_MAP_CHILDREN = 128;

const POLICY_RANK = { none: 0, 'read-only': 1, 'low-risk': 2, 'high-risk': 3 } as const;
export type PolicyName = keyof typeof POLICY_RANK;

/** A type's profile: the highest policy it may have and which of its parent's tools it keeps. */
export interface Profile {
  maxPolicy: PolicyName;
  keeps(tool: { name: string; risk: string }): boolean;
  describe: string;
  /** The persona's standing brief, put before the task in the child's first message (Spec I personas). */
  brief?: string;
}

export const PROFILES: Record<SubagentType, Profile> = {
  coder: { maxPolicy: 'high-risk', keeps: () => true, describe: 'its parent\'s tools and policy' },
  general: { maxPolicy: 'high-risk', keeps: () => true, describe: 'its parent\'s tools and policy' },
  explore: {
    maxPolicy: 'read-only',
    keeps: (t) => t.risk === 'read-only',
    describe: 'only read-only tools, at most the read-only policy',
  },
  // Spec I's researcher: finds things out and reports with sources; changes nothing (read-only tools, web included).
  researcher: {
    maxPolicy: 'read-only',
    keeps: (t) => t.risk === 'read-only',
    describe: 'a researcher: read-only tools (files, search, the web), at most the read-only policy; answers with sources',
    brief:
      'You are a researcher. Find out what the task asks by reading files and searching (web_search, web_fetch where you have them); change nothing. ' +
      'Answer with your findings first, then the sources you used (file paths with line numbers, URLs), and say plainly what you could not confirm.',
  },
};

export function lowerPolicy(a: PolicyName, b: PolicyName): PolicyName {
  return POLICY_RANK[a] <= POLICY_RANK[b] ? a : b;
}

/** A result schema (JSON Schema) as a validator; a schema that cannot be compiled is a message the model can act on. */
export function compileResultSchema(schema: unknown): z.ZodType {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new Error('result_schema must be a JSON Schema object, e.g. {"type":"object","properties":{…},"required":[…]}.');
  if (JSON.stringify(schema).length > 20_000) throw new Error('result_schema is over 20 000 characters; keep the handoff small.');
  try {
    return z.fromJSONSchema(schema as never);
  } catch (err) {
    throw new Error(`result_schema is not a JSON Schema Deskhand can check: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The JSON in a child's final answer (the whole text, or a ```json block), validated; errors in words. */
export function checkResult(text: string, validator: z.ZodType): { ok: true; value: unknown } | { ok: false; error: string } {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n```/.exec(text);
  const candidate = (fenced ? fenced[1]! : text).trim();
  let value: unknown;
  try {
    value = JSON.parse(candidate);
  } catch {
    return { ok: false, error: 'the answer is not JSON (reply with only the JSON value, no prose)' };
  }
  const parsed = validator.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    error: parsed.error.issues
      .slice(0, 8)
      .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
      .join('; '),
  };
}
