/**
 * Strict arguments, for every tool (built-in, MCP, custom) in one place: an argument the tool's schema does not name
 * is refused with the names it does take and the closest one (`read_file {sinceByte: 6}` → "did you mean
 * since_byte?"), instead of being dropped silently so the model believes it was used. Checked against the schema the
 * model is sent (registry.ts `modelSchema`, which says `additionalProperties: false` on every object that lists its
 * properties and allows nothing else), along the schema's own structure only: the walk is as deep as the schema, never
 * as deep as the arguments.
 */

export interface UnknownArgument {
  /** Where the object sits (`''` for the top level, `options` / `items.0` below). */
  at: string;
  name: string;
  valid: string[];
  closest: string | null;
}

const MAX_DEPTH = 12;

/** The unknown arguments of `args` by `schema` (at most `limit`), top level first. */
export function unknownArguments(schema: Record<string, unknown>, args: unknown, limit = 10): UnknownArgument[] {
  const out: UnknownArgument[] = [];
  walk(schema, args, '', 0, out, limit);
  return out;
}

function walk(schema: unknown, value: unknown, at: string, depth: number, out: UnknownArgument[], limit: number): void {
  if (depth > MAX_DEPTH || out.length >= limit || !schema || typeof schema !== 'object') return;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(value)) {
    if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) {
      for (let i = 0; i < value.length && i < 1000 && out.length < limit; i++) walk(s.items, value[i], join(at, String(i)), depth + 1, out, limit);
    }
    return;
  }
  if (!value || typeof value !== 'object') return;
  const allowed = allowedKeys(s);
  if (!allowed) return;
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (out.length >= limit) return;
    if (allowed.names.has(key)) continue;
    const valid = [...allowed.names];
    out.push({ at, name: key, valid, closest: closestName(key, valid) });
  }
  // Into the properties this object names (a branch's properties when it is a union of objects).
  for (const [key, sub] of Object.entries(allowed.props)) {
    if (key in obj) walk(sub, obj[key], join(at, key), depth + 1, out, limit);
  }
}

/**
 * The names an object schema allows, or null when it allows any (no properties listed, additionalProperties or
 * patternProperties allowing more, a `$ref` this walk does not follow, a union with a branch that allows any).
 */
function allowedKeys(s: Record<string, unknown>): { names: Set<string>; props: Record<string, unknown> } | null {
  const branches = (['anyOf', 'oneOf', 'allOf'] as const).flatMap((k) => (Array.isArray(s[k]) ? (s[k] as unknown[]) : []));
  const own = s.properties && typeof s.properties === 'object' && !Array.isArray(s.properties) ? (s.properties as Record<string, unknown>) : null;
  if ('$ref' in s || s.patternProperties) return null;
  if (own && s.additionalProperties !== false) return null;
  if (!own && branches.length === 0) return null;
  const names = new Set<string>(own ? Object.keys(own) : []);
  const props: Record<string, unknown> = { ...(own ?? {}) };
  for (const b of branches) {
    if (!b || typeof b !== 'object') return null;
    const inner = allowedKeys(b as Record<string, unknown>);
    if (!inner) return null;
    for (const n of inner.names) names.add(n);
    Object.assign(props, inner.props);
  }
  return { names, props };
}

const join = (at: string, key: string): string => (at ? `${at}.${key}` : key);

/** The valid name a misspelling most likely meant: same letters ignoring case, `_` and `-`, else the nearest by edits. */
export function closestName(name: string, valid: readonly string[]): string | null {
  const norm = (n: string) => n.toLowerCase().replace(/[_-]/g, '');
  const same = valid.find((v) => norm(v) === norm(name));
  if (same) return same;
  let best: string | null = null;
  let bestScore = Infinity;
  for (const v of valid) {
    const d = editDistance(norm(name), norm(v));
    if (d < bestScore) [best, bestScore] = [v, d];
  }
  return best !== null && bestScore <= Math.max(1, Math.floor(norm(name).length / 3)) ? best : null;
}

export function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The model-readable message for unknown arguments of `tool`. */
export function unknownArgumentsMessage(tool: string, unknown: readonly UnknownArgument[]): string {
  const lines = unknown.map((u) => {
    const where = u.at ? ` in ${u.at}` : '';
    const hint = u.closest ? ` Did you mean "${u.closest}"?` : '';
    const valid = u.valid.length ? `Valid${where ? ' there' : ''}: ${u.valid.join(', ')}.` : `${where ? 'That object takes' : `${tool} takes`} no arguments.`;
    return `- unknown argument "${u.name.slice(0, 80)}"${where}.${hint} ${valid}`;
  });
  return `Invalid arguments for ${tool}:\n${lines.join('\n')}\n${tool} takes only the arguments its schema names; fix them and call ${tool} again.`;
}
