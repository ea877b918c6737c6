/**
 * "Always allow" rules as data. A rule lets one tool run without asking for calls its pattern covers, within a scope:
 * one conversation, one workspace folder (every conversation in it), or everywhere.
 *
 * Patterns:
 * - commands (`execute_command` and the other shell tools): shell words, `npm test` (exactly that command) or
 *   `git diff *` (that prefix, any further arguments). A rule covers one plain command of literal words; a compound
 *   command, pipeline or redirect is covered only when every other part is something the policy clears on its own.
 * - file tools: a path (`/proj/notes.md`, exactly it) or a folder with `/*` (`/proj/src/*`, anything inside it).
 */
export const RULE_SCOPES = ['conversation', 'workspace', 'everywhere'] as const;
export type RuleScope = (typeof RULE_SCOPES)[number];

export function isRuleScope(v: unknown): v is RuleScope {
  return typeof v === 'string' && (RULE_SCOPES as readonly string[]).includes(v);
}

/**
 * Where a person's "always" applies, as they choose it (issue 46): `task` is this conversation while the run that
 * asked lasts (saved as a conversation rule bound to that run); the rest are the rule scopes. "Once" is a plain
 * approval, no grant.
 */
export const GRANT_SCOPES = ['task', ...RULE_SCOPES] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

export function isGrantScope(v: unknown): v is GrantScope {
  return typeof v === 'string' && (GRANT_SCOPES as readonly string[]).includes(v);
}

/** How long a grant lasts: an hour, until the end of today (local time), or until the person revokes it. */
export const GRANT_LIFETIMES = ['hour', 'today', 'until-revoked'] as const;
export type GrantLifetime = (typeof GRANT_LIFETIMES)[number];

export function isGrantLifetime(v: unknown): v is GrantLifetime {
  return typeof v === 'string' && (GRANT_LIFETIMES as readonly string[]).includes(v);
}

/** When a grant of this lifetime, saved at `now`, ends (ms); null: until revoked. */
export function lifetimeEnd(lifetime: GrantLifetime, now: number): number | null {
  if (lifetime === 'hour') return now + 3_600_000;
  if (lifetime === 'today') {
    const end = new Date(now);
    end.setHours(24, 0, 0, 0);
    return end.getTime();
  }
  return null;
}

/** The pattern of a rule that covers every call of its tool (a tool with nothing finer to match: add_reminder). */
export const ANY_CALL_PATTERN = '*';

/** A rule as the approval engine sees it (already filtered to those that apply to the call's conversation). */
export interface SavedRule {
  id: string;
  tool: string;
  pattern: string;
}

/** A part of a command a rule may cover: its literal words (null when it is not one plain command of literals). */
export interface RulePart {
  text: string;
  words: string[] | null;
  program: string | null;
  /** The part's own risk; parts the policy clears need no rule. */
  risk: 'read-only' | 'low-risk' | 'high-risk';
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** A word as it appears in a pattern: bare when plain, else single-quoted ('…'\''…'). A lone `*` is quoted. */
export function quoteWord(w: string): string {
  if (w !== '' && SAFE_WORD.test(w)) return w;
  return `'${w.replace(/'/g, `'\\''`)}'`;
}

/** Pattern text → words; a trailing bare `*` is returned as `any: true`. Null for a malformed pattern. */
export function splitPattern(pattern: string): { words: string[]; any: boolean } | null {
  const words: string[] = [];
  let i = 0;
  let any = false;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === ' ') {
      i++;
      continue;
    }
    if (any) return null; // `*` only at the end
    let word = '';
    let quoted = false;
    while (i < pattern.length && pattern[i] !== ' ') {
      if (pattern[i] === "'") {
        const end = pattern.indexOf("'", i + 1);
        if (end === -1) return null;
        word += pattern.slice(i + 1, end);
        quoted = true;
        i = end + 1;
      } else if (pattern[i] === '\\' && pattern[i + 1] === "'") {
        word += "'";
        i += 2;
      } else {
        word += pattern[i];
        i++;
      }
    }
    if (!quoted && word === '*') any = true;
    else words.push(word);
  }
  if (words.length === 0) return null;
  return { words, any };
}

export function joinPattern(words: readonly string[], any = false): string {
  return `${words.map(quoteWord).join(' ')}${any ? ' *' : ''}`;
}

/** Does a command pattern cover these words? */
export function commandPatternMatches(pattern: string, words: readonly string[]): boolean {
  const p = splitPattern(pattern);
  if (!p) return false;
  if (p.any ? words.length < p.words.length : words.length !== p.words.length) return false;
  return p.words.every((w, i) => words[i] === w);
}

/** Programs whose first argument names what they do (`npm test`, `git diff`): rules offer `prog sub *` for them. */
const SUBCOMMAND_PROGRAMS = new Set([
  'npm', 'pnpm', 'yarn', 'bun', 'npx', 'git', 'cargo', 'go', 'make', 'docker', 'podman', 'kubectl', 'gradle', 'mvn',
  'dotnet', 'pip', 'pip3', 'poetry', 'uv', 'bundle', 'rake', 'composer', 'mix', 'deno', 'swift', 'terraform', 'helm',
  'pytest', 'jest', 'vitest', 'tsc', 'eslint', 'prettier', 'ruff', 'mypy', 'black', 'just', 'task', 'nx', 'turbo',
]);
/** Script runners whose second word names the script (`npm run build`, `yarn run lint`). */
const RUN_WORDS = new Set(['run', 'run-script', 'exec']);
/** Programs that run arbitrary code from their arguments: only exact rules are offered for them. */
const NEVER_PREFIX = new Set(['sh', 'bash', 'zsh', 'dash', 'fish', 'eval', 'exec', 'sudo', 'doas', 'su', 'env', 'xargs', 'python', 'python3', 'node', 'perl', 'ruby', 'php', 'osascript', 'powershell', 'pwsh', 'cmd', 'ssh', 'rm', 'dd', 'mkfs', 'chmod', 'chown', 'curl', 'wget']);

/**
 * The pattern "always allow" offers for one command part: `prog sub *` (or `npm run script *`) for tools whose first
 * argument names an action, else exactly the command.
 */
export function offerCommandPattern(words: readonly string[]): string {
  const [prog, sub, third] = words;
  if (prog && sub && SUBCOMMAND_PROGRAMS.has(prog) && !NEVER_PREFIX.has(prog) && !sub.startsWith('-')) {
    if (RUN_WORDS.has(sub) && third && !third.startsWith('-')) return joinPattern([prog, sub, third], true);
    if (!RUN_WORDS.has(sub)) return joinPattern([prog, sub], true);
  }
  return joinPattern(words);
}

/** Does a path pattern (`/a/b.txt`, or `/a/*` for a folder) cover every one of these resolved paths? */
export function pathPatternMatches(pattern: string, paths: readonly string[]): boolean {
  if (!paths.length) return false;
  if (pattern.endsWith('/*')) {
    const folder = pattern.slice(0, -1); // keeps the trailing '/'
    return paths.every((p) => p.startsWith(folder) && p.length > folder.length);
  }
  // Legacy and exact rules: the resolved paths joined as the engine offered them.
  return pattern === paths.join(' -> ');
}

/** One sentence for where a rule applies. */
export function describeScope(scope: GrantScope, where: string | null): string {
  if (scope === 'task') return 'in this conversation until this run ends';
  if (scope === 'conversation') return 'in this conversation';
  if (scope === 'workspace') return where ? `in every conversation in ${where}` : 'in this workspace';
  return 'in every conversation';
}
