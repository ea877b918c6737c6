/**
 * Lifecycle hooks as the runtime sees them (Claude Code's hook schema, docs/hooks.md): the events, what one firing
 * is given and what it comes back with. The implementation is a service (services/hooks, it starts processes through
 * the launcher); the runtime calls it at one place per event. Pure types, here so the runtime and the service share
 * them without either importing the other.
 */

export const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'Notification', 'PreCompact', 'SessionStart', 'SessionEnd'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Where a firing happens: the conversation, its run, its folder and roots (a project hook runs sandboxed in them). */
export interface HookScope {
  conversationId: string;
  runId: string;
  cwd: string;
  /** The conversation's workspace roots: a project hook is found in them and may write only there. */
  roots: readonly string[];
  /** The conversation's policy (Claude Code's `permission_mode`, in Deskhand's words). */
  policy: string;
}

/** What a matcher is tested against: Deskhand's tool name and, for tools Claude Code has too, its name there. */
export interface HookTarget {
  /** The tool name (PreToolUse, PostToolUse) or the event's own matcher value (PreCompact's trigger, SessionStart's source). */
  name: string;
  /** Claude Code's name for the same tool (`Bash` for execute_command), so matchers written for it work unchanged. */
  claudeName?: string;
}

/** Text a hook adds for the model (additionalContext, stdout of UserPromptSubmit and SessionStart; PreCompact's stdout: the summary's instructions). */
export interface HookContext {
  text: string;
  /** Where it came from, as the model is told (`hook PreToolUse: ./check.sh`). */
  source: string;
  /** The person's own hook (settings.json in the data folder, an enabled plugin's): its text is trusted. */
  trusted: boolean;
}

/** What the hooks of one firing decided, folded: the strictest wins (deny, then ask, then allow). */
export interface HookOutcome {
  /** Exit code 2, `decision: "block"` or `permissionDecision: "deny"`: the reason the model (or person) is given. */
  block: string | null;
  /** PreToolUse: `permissionDecision` ask or allow (deny is `block`), with the reasons. */
  permission: { decision: 'ask' | 'allow'; reasons: string[] } | null;
  context: HookContext[];
  /** `continue: false`: the run stops, with this reason. */
  stop: string | null;
  /** Lines for the transcript: a hook that failed, timed out or was skipped, a `systemMessage`. */
  notes: string[];
  /** Every hook that fired, by its source line (for the decision's reasons and tests). */
  ran: string[];
}

/** The hooks a runtime fires (a host without any fires none). */
export interface LifecycleHooks {
  /**
   * Runs every hook of `event` whose matcher takes `target` (all of them for events without matchers), in parallel,
   * each with `input` (Claude Code's fields; the service adds the common ones) on its stdin. Null when none matched.
   * Never throws: a failing hook is a note.
   */
  fire(event: HookEventName, scope: HookScope, input: Record<string, unknown>, target?: HookTarget, signal?: AbortSignal): Promise<HookOutcome | null>;
}
