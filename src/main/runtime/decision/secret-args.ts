/**
 * Secret placeholders in tool arguments. The model only ever holds `[redacted:NAME]`; the runtime puts the value into
 * the arguments a tool declares as secret-bearing (`ToolDefinition.secretArgs`) just before `execute`, and a
 * placeholder anywhere else is refused. A call carrying a placeholder always asks a person, whose approval shows the
 * placeholder, never the value.
 */
import { ToolError } from '../../../shared/errors';

/** `[redacted:NAME]` as the redactor writes it. */
export const PLACEHOLDER_RE = /\[redacted:([A-Za-z0-9_.:-]{1,64})\]/g;

/** Names a vault secret may have: what `[redacted:NAME]` can carry, starting with a letter. */
export const SECRET_NAME_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export interface PlaceholderUse {
  /** The argument path (`command`, `headers.Authorization`, `items.0`). */
  path: string;
  /** The top-level argument it sits in. */
  arg: string;
  names: string[];
}

/** Every string in `args` that carries a placeholder. */
export function findPlaceholders(args: unknown): PlaceholderUse[] {
  const out: PlaceholderUse[] = [];
  const walk = (value: unknown, path: string[], depth: number): void => {
    if (depth > 32) return;
    if (typeof value === 'string') {
      const names = [...value.matchAll(PLACEHOLDER_RE)].map((m) => m[1]!);
      if (names.length) out.push({ path: path.join('.'), arg: path[0] ?? '', names: [...new Set(names)] });
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, [...path, String(i)], depth + 1));
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k], depth + 1);
    }
  };
  walk(args, [], 0);
  return out;
}

export interface PlaceholderVerdict {
  /** Placeholders in arguments the tool does not declare: the call is refused with this model-readable message. */
  refused: string | null;
  /** Secret names used in declared arguments (the call then always asks). */
  used: string[];
}

/** Where the placeholders of a call sit, judged against the tool's declared secret arguments and the held secrets. */
export function checkPlaceholders(
  tool: { name: string; secretArgs?: readonly string[] },
  args: unknown,
  held?: ReadonlySet<string>,
): PlaceholderVerdict {
  const uses = findPlaceholders(args);
  if (uses.length === 0) return { refused: null, used: [] };
  const declared = new Set(tool.secretArgs ?? []);
  // A declared argument is a string, or a flat string map (http_request's headers: the placeholder sits in a value).
  const inDeclared = (u: PlaceholderUse) => u.path === u.arg || (u.path.startsWith(`${u.arg}.`) && isStringMap(ownValue(args, u.arg)));
  const misplaced = uses.filter((u) => !declared.has(u.arg) || !inDeclared(u));
  if (misplaced.length > 0) {
    const where = misplaced.map((u) => `${u.path || '(arguments)'} (${u.names.map((n) => `[redacted:${n}]`).join(', ')})`).join('; ');
    const allowed = declared.size ? ` ${tool.name} accepts secret placeholders only in: ${[...declared].join(', ')}.` : ` ${tool.name} accepts no secret placeholders.`;
    return {
      refused:
        `Refused: ${where} carries a [redacted:…] placeholder, which stands for a secret Deskhand hid from you. A placeholder ` +
        `is only replaced by its value in arguments a tool declares for secrets, so here it would be used literally (and ` +
        `writing it into a file would replace the real value).${allowed} Leave secret values out of this call, or edit around them.`,
      used: [],
    };
  }
  const used = [...new Set(uses.flatMap((u) => u.names))];
  if (held) {
    const unknown = used.filter((n) => !held.has(n));
    if (unknown.length > 0) {
      return {
        refused:
          `Refused: ${unknown.map((n) => `[redacted:${n}]`).join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not a secret this run holds. ` +
          'Load a saved secret with use_saved_secret (a person approves it), or ask the person for it with ask_user_secret; ' +
          'placeholders that came from redacted output cannot be turned back into values.',
        used: [],
      };
    }
  }
  return { refused: null, used };
}

function ownValue(args: unknown, key: string): unknown {
  return args && typeof args === 'object' && Object.prototype.hasOwnProperty.call(args, key) ? (args as Record<string, unknown>)[key] : undefined;
}

function isStringMap(v: unknown): v is Record<string, string> {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');
}

const PLACEHOLDER_AT = /\[redacted:([A-Za-z0-9_.:-]{1,64})\]/y;

/** Quotes `value` for the shell context a placeholder sits in, so any characters of the secret stay data. */
function shellQuoted(value: string, context: 'none' | 'single' | 'double'): string {
  if (context === 'single') return value.replace(/'/g, `'\\''`);
  if (context === 'double') return value.replace(/[\\$`"]/g, (c) => `\\${c}`);
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Replaces placeholders in a shell command with their values, quoted for where each sits (outside quotes, inside
 * '…' or inside "…"), so a value with spaces, quotes or `$` cannot change what the command does.
 */
export function substituteShell(command: string, values: ReadonlyMap<string, string>): string {
  let out = '';
  let context: 'none' | 'single' | 'double' = 'none';
  for (let i = 0; i < command.length; ) {
    const c = command[i]!;
    if (c === '[' && command.startsWith('[redacted:', i)) {
      PLACEHOLDER_AT.lastIndex = i;
      const m = PLACEHOLDER_AT.exec(command);
      if (m) {
        const value = values.get(m[1]!);
        if (value === undefined) throw new ToolError(`[redacted:${m[1]}] is not a secret this run holds.`);
        out += shellQuoted(value, context);
        i += m[0].length;
        continue;
      }
    }
    if (context === 'none') {
      if (c === '\\' && i + 1 < command.length) {
        out += c + command[i + 1];
        i += 2;
        continue;
      }
      if (c === "'") context = 'single';
      else if (c === '"') context = 'double';
    } else if (context === 'single') {
      if (c === "'") context = 'none';
    } else {
      if (c === '\\' && i + 1 < command.length) {
        out += c + command[i + 1];
        i += 2;
        continue;
      }
      if (c === '"') context = 'none';
    }
    out += c;
    i++;
  }
  return out;
}

/** Replaces placeholders with their values as plain text. */
export function substituteText(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(PLACEHOLDER_RE, (m, name: string) => {
    const value = values.get(name);
    if (value === undefined) throw new ToolError(`${m} is not a secret this run holds.`);
    return value;
  });
}

/** A copy of `args` with the declared secret arguments' placeholders replaced. */
export function substituteSecrets(
  args: unknown,
  tool: { secretArgs?: readonly string[]; secretQuoting?: 'shell' | 'none' },
  values: ReadonlyMap<string, string>,
): unknown {
  if (!args || typeof args !== 'object' || !tool.secretArgs?.length) return args;
  const copy: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  for (const key of tool.secretArgs) {
    const v = Object.prototype.hasOwnProperty.call(copy, key) ? copy[key] : undefined;
    if (isStringMap(v)) {
      copy[key] = Object.fromEntries(Object.entries(v).map(([k, text]) => [k, substituteText(text, values)]));
      continue;
    }
    if (typeof v !== 'string' || !v.includes('[redacted:')) continue;
    copy[key] = tool.secretQuoting === 'shell' ? substituteShell(v, values) : substituteText(v, values);
  }
  return copy;
}
