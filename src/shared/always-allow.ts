/**
 * What "Always allow" saves for an approval, as every host shows it before saving. Most calls save a rule (the tool
 * runs without asking for calls matching a pattern); a file-tool call that asks only because its path lies outside
 * the workspace roots offers instead to add a folder as a workspace root of its conversation. The request stores that
 * offer in its `always_pattern` under `ROOT_OFFER_PREFIX`, which no rule pattern may start with (the approval engine
 * refuses such rule patterns).
 */
export const ROOT_OFFER_PREFIX = 'workspace-root:';

export function rootOfferPattern(folder: string): string {
  return `${ROOT_OFFER_PREFIX}${folder}`;
}

/** The folder an always-allow adds as a workspace root, or null when it saves a rule (or nothing). */
export function offeredRoot(pattern: string | null | undefined): string | null {
  return pattern && pattern.startsWith(ROOT_OFFER_PREFIX) ? pattern.slice(ROOT_OFFER_PREFIX.length) : null;
}

/** One sentence: exactly what answering "always" saves. */
export function describeAlways(tool: string, pattern: string): string {
  const root = offeredRoot(pattern);
  if (root !== null) return `add ${root} as a workspace root of this conversation (changes inside it no longer ask; the sandbox can write there)`;
  return `save a rule: ${tool} runs without asking, in every conversation, for calls matching ${pattern}`;
}
