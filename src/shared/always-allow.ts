/**
 * What "Always allow" saves for an approval, as every host shows it before saving. Most calls save a rule (the tool
 * runs without asking for calls matching a pattern); a file-tool call that asks only because its path lies outside
 * the workspace roots offers instead to add a folder as a workspace root of its conversation. The request stores that
 * offer in its `always_pattern` under `ROOT_OFFER_PREFIX`, which no rule pattern may start with (the approval engine
 * refuses such rule patterns).
 */
import { ANY_CALL_PATTERN, describeScope, type GrantLifetime, type GrantScope } from './rules';
import { PEER_RULE_PREFIX } from './peers';

export const ROOT_OFFER_PREFIX = 'workspace-root:';

/** A rule pattern for computer use in one granted app (`app:zenity`): it applies only while the app's grant lasts. */
export const APP_RULE_PREFIX = 'app:';

export function rootOfferPattern(folder: string): string {
  return `${ROOT_OFFER_PREFIX}${folder}`;
}

/** The folder an always-allow adds as a workspace root, or null when it saves a rule (or nothing). */
export function offeredRoot(pattern: string | null | undefined): string | null {
  return pattern && pattern.startsWith(ROOT_OFFER_PREFIX) ? pattern.slice(ROOT_OFFER_PREFIX.length) : null;
}

/** Whether a rule pattern is one for commands (`npm test *`), not a path, a peer or an app: only those have parts. */
export function isCommandPattern(pattern: string): boolean {
  if (pattern === ANY_CALL_PATTERN) return false;
  if (pattern.startsWith(PEER_RULE_PREFIX) || pattern.startsWith(APP_RULE_PREFIX) || pattern.startsWith(ROOT_OFFER_PREFIX)) return false;
  return !(pattern.endsWith('/*') || pattern.startsWith('/') || /^[A-Za-z]:\\/.test(pattern));
}

/** What a rule pattern covers, in words: `npm test *` → "npm test, with any arguments". */
export function describePattern(pattern: string): string {
  if (pattern === ANY_CALL_PATTERN) return 'every call of this tool';
  if (pattern.startsWith(PEER_RULE_PREFIX)) return `messages to peer ${pattern.slice(PEER_RULE_PREFIX.length)} in this conversation (until its content mixes with other untrusted content)`;
  if (pattern.startsWith(APP_RULE_PREFIX)) return `the app ${pattern.slice(APP_RULE_PREFIX.length)}, while its grant lasts`;
  if (pattern.endsWith('/*')) return `anything in ${pattern.slice(0, -2)}/`;
  if (pattern.endsWith(' *')) return `\`${pattern.slice(0, -2)}\` with any further arguments`;
  return pattern.startsWith('/') || /^[A-Za-z]:\\/.test(pattern) ? pattern : `exactly \`${pattern}\``;
}

/** One sentence: exactly what answering "always" saves, in the scope chosen (default: this conversation). */
export function describeAlways(tool: string, pattern: string, scope: GrantScope = 'conversation', where: string | null = null, lifetime: GrantLifetime = 'until-revoked'): string {
  const root = offeredRoot(pattern);
  if (root !== null) return `add ${root} as a workspace root of this conversation (changes inside it no longer ask; the sandbox can write there)`;
  if (pattern.startsWith(PEER_RULE_PREFIX)) {
    const peer = pattern.slice(PEER_RULE_PREFIX.length);
    return `allow peer ${peer} for this conversation: ${tool} to ${peer} runs without asking here, while the only untrusted content the conversation read is ${peer}'s own answers`;
  }
  const parts = isCommandPattern(pattern) ? ' (other parts of a command still need the policy to clear them)' : '';
  const until = scope === 'task' || lifetime === 'until-revoked' ? '' : lifetime === 'hour' ? ' for an hour' : ' until the end of today';
  return `save a rule: ${tool} runs without asking ${describeScope(scope, where)}${until}, for ${describePattern(pattern)}${parts}`;
}
