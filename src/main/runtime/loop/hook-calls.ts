/**
 * Where the runtime fires lifecycle hooks (docs/hooks.md), each event's one call site made short: the scope a
 * firing gets, and what its outcome becomes for the model (text appended to a result or a message, untrusted unless
 * every hook that said it is the person's own). Hooks run through `RuntimeCore.hooks` (the host's HookService).
 */
import { DeskhandError } from '../../../shared/errors';
import type { HookContext, HookEventName, HookOutcome, HookScope, HookTarget } from '../../../shared/lifecycle-hooks';
import type { ConversationRow, RunRow } from '../../services/store/store';
import { subagentsModule } from '../../services/store/modules/subagents';
import { contextModule } from '../../services/store/modules/context';
import { PersistentConversationState } from '../context/conversation-state';
import type { RunOptions, RuntimeCore } from '../core';
import type { ToolDefinition } from '../tool';
import type { PolicyDecision } from '../decision/approval-engine';
import { wrapUntrusted } from '../context/untrusted';
import { withholdUntrusted } from '../decision/taint-scope';

export function hookScope(run: Pick<RunRow, 'id' | 'policy'>, conv: Pick<ConversationRow, 'id' | 'folder' | 'state'>): HookScope {
  const state = new PersistentConversationState(conv.folder, conv.state);
  return { conversationId: conv.id, runId: run.id, cwd: state.cwd, roots: state.workspaceRoots, policy: run.policy };
}

export function toolTarget(tool: Pick<ToolDefinition, 'name' | 'claudeCodeName'>): HookTarget {
  return { name: tool.name, ...(tool.claudeCodeName ? { claudeName: tool.claudeCodeName } : {}) };
}

/** Fires an event's hooks; null when the runtime has none or none matched. */
export function fireHooks(core: RuntimeCore, event: HookEventName, run: Pick<RunRow, 'id' | 'policy'>, conv: ConversationRow, input: Record<string, unknown>, target?: HookTarget, signal?: AbortSignal): Promise<HookOutcome | null> {
  if (!core.hooks) return Promise.resolve(null);
  return core.hooks.fire(event, hookScope(run, conv), input, target, signal);
}

/** Text for the model from hooks: the person's own as it is, a project's inside an untrusted envelope. */
export function contextText(parts: readonly HookContext[]): { text: string; untrusted: string | null } {
  let untrusted: string | null = null;
  const text = parts
    .map((c) => {
      if (c.trusted) return `[${c.source}]\n${c.text}`;
      untrusted ??= c.source;
      return wrapUntrusted(c.source, c.text);
    })
    .join('\n\n');
  return { text, untrusted };
}

/**
 * PostToolUse: what the hooks add to the call's output for the model (a block's reason, additionalContext, failures
 * as one line each), or null. `untrusted` names a project hook whose words it carries (the run becomes tainted).
 */
export function postToolText(outcome: HookOutcome | null): { text: string; untrusted: string | null } | null {
  if (!outcome) return null;
  const parts: HookContext[] = [...outcome.context];
  const trusted = outcome.ran.every((r) => !r.startsWith('project '));
  if (outcome.block) parts.push({ text: outcome.block, source: 'PostToolUse hook feedback', trusted });
  // A note can carry a hook's own words (its stderr, its systemMessage): a project hook's go inside the envelope.
  let notes = outcome.notes.map((n) => `(${n})`);
  if (!trusted && notes.length) {
    parts.push({ text: notes.join('\n'), source: 'PostToolUse hook notes', trusted: false });
    notes = [];
  }
  if (!parts.length && !notes.length) return null;
  const { text, untrusted } = contextText(parts);
  return { text: [text, ...notes].filter(Boolean).join('\n'), untrusted };
}

/**
 * PreToolUse, for a call the engine refused: the result the model reads. The hooks' words (a block's reason, a
 * permissionDecisionReason, a systemMessage or a failing hook's stderr) are the person's own text when every hook that
 * fired is theirs, and go inside the untrusted envelope when a project's fired (`untrusted` names it: the run becomes
 * tainted). The decision's reasons (the card, `policy explain`) stay as they are.
 */
export function deniedText(decision: Pick<PolicyDecision, 'reasons' | 'inspectors'>, hook: HookOutcome | null): { text: string; untrusted: string | null } {
  const plain = { text: `Denied by policy: ${decision.reasons.join('; ')}`, untrusted: null };
  const said = new Set(decision.inspectors.find((r) => r.inspector === 'hooks')?.reasons ?? []);
  const fromHooks = decision.reasons.filter((r) => said.has(r));
  if (!hook || !fromHooks.length || hook.ran.every((r) => !r.startsWith('project '))) return plain;
  const others = decision.reasons.filter((r) => !said.has(r));
  const { text, untrusted } = contextText([{ text: fromHooks.join('\n'), source: 'PreToolUse hook reason', trusted: false }]);
  return { text: `Denied by policy${others.length ? `: ${others.join('; ')}` : ''} (what the PreToolUse hooks said follows):\n${text}`, untrusted };
}

/**
 * UserPromptSubmit and SessionStart, before a message starts a run: throws (the message is not sent) when a hook
 * blocks it, else returns the context to add to the message (with a line for each hook that failed).
 */
export async function promptHooks(core: RuntimeCore, conv: ConversationRow, policy: RunRow['policy'], prompt: string, runId: string): Promise<{ text: string; untrusted: string | null } | null> {
  if (!core.hooks) return null;
  const run = { id: runId, policy };
  const first = core.store.countMessages(conv.id) === 0;
  const outcomes = [await fireHooks(core, 'SessionStart', run, conv, { source: first ? 'startup' : 'resume' }, { name: first ? 'startup' : 'resume' }), await fireHooks(core, 'UserPromptSubmit', run, conv, { prompt })];
  const context: HookContext[] = [];
  for (const [i, o] of outcomes.entries()) {
    if (!o) continue;
    if (o.block) throw new DeskhandError('denied', `The message was not sent: ${o.block}`);
    if (o.stop) throw new DeskhandError('denied', `The message was not sent: ${o.stop}`);
    context.push(...o.context);
    // A hook that failed, timed out or could not start leaves its line with the message (a project's as untrusted).
    if (o.notes.length) context.push({ text: o.notes.map((n) => `(${n})`).join('\n'), source: `${i === 0 ? 'SessionStart' : 'UserPromptSubmit'} hooks`, trusted: o.ran.every((r) => !r.startsWith('project ')) });
  }
  return context.length ? contextText(context) : null;
}

/**
 * A firing's notes (a `systemMessage`, a hook that failed, timed out or could not start) for the person: kept in the
 * transcript labelled as the event's hooks', never sent to the model (Claude Code shows such lines to the user only),
 * so they neither look like the person's words nor reach the model.
 */
function hookNote(core: RuntimeCore, run: Pick<RunRow, 'id'>, conversationId: string, event: HookEventName, outcome: HookOutcome | null, options: Pick<RunOptions, 'onEvent'> | undefined): void {
  if (!outcome?.notes.length) return;
  const text = core.redactor.redact(outcome.notes.join('\n'));
  core.store.module(contextModule).addHookMessage({ conversationId, runId: run.id, event, messageId: null, text });
  // Live, for the hosts: the CLI prints it on stderr, ACP sends it marked as the hooks' (never as the model's text).
  core.emit(options, { type: 'hook.note', runId: run.id, conversationId, event, text, toModel: false });
}

/** Where a hook's line goes when there is no transcript to hold it (SessionEnd, Notification): Deskhand's stderr. */
export function logHookNotes(event: HookEventName, outcome: HookOutcome | null): void {
  if (outcome?.notes.length) process.stderr.write(`deskhand: ${event} hooks: ${outcome.notes.join('; ')}\n`);
}

/** How many times one run's Stop hooks may send it back to work before the run ends anyway. */
export const MAX_STOP_BLOCKS = 5;

/**
 * Stop (or SubagentStop for a subagent's run), when the model is done. A hook that blocks the stop (`decision:
 * "block"` with its reason, or exit 2 with stderr) sends the model back to work: its reason is the next user-role
 * message the model reads (`[Stop hook]`, a project's inside the envelope), recorded as the hook's so the transcript
 * never shows it as the person's. Returns whether the run goes on. The firing's notes are the person's only.
 */
export async function stopHooks(core: RuntimeCore, run: RunRow, conv: ConversationRow, blockedBefore: number, options?: Pick<RunOptions, 'signal' | 'onEvent'>): Promise<boolean> {
  if (!core.hooks) return false;
  const event: HookEventName = core.store.module(subagentsModule).byConversation(conv.id) ? 'SubagentStop' : 'Stop';
  const outcome = await fireHooks(core, event, run, conv, { stop_hook_active: blockedBefore > 0 }, undefined, options?.signal);
  hookNote(core, run, conv.id, event, outcome, options);
  if (!outcome?.block || outcome.stop || blockedBefore >= MAX_STOP_BLOCKS) return false;
  const { text, untrusted } = contextText([{ text: outcome.block, source: `${event} hook`, trusted: outcome.ran.every((r) => !r.startsWith('project ')) }]);
  // A project hook's words are untrusted content the run now reads.
  if (untrusted) core.store.updateRun(run.id, { tainted: 1 });
  core.store.transaction(() => {
    const messageId = core.store.addMessage(conv.id, run.id, 'user', text);
    core.store.module(contextModule).addHookMessage({ conversationId: conv.id, runId: run.id, event, messageId, text: '' });
  });
  // As the transcript shows it: the reason without the `[Stop hook]` line the model reads it under.
  core.emit(options, { type: 'hook.note', runId: run.id, conversationId: conv.id, event, text: text.startsWith(`[${event} hook]\n`) ? text.slice(event.length + 8) : text, toModel: true });
  return true;
}

/**
 * SessionEnd, when a message's run ends (finished, parked, failed or stopped): its `reason` is the run's status. The
 * session is over (a parked run's calls are open): a failing hook's line goes to Deskhand's stderr.
 */
export async function sessionEndHooks(core: RuntimeCore, outcome: { runId: string; conversationId: string; status: string }): Promise<void> {
  if (!core.hooks) return;
  const run = core.store.getRun(outcome.runId);
  const conv = core.store.getConversation(outcome.conversationId);
  if (!run || !conv) return;
  logHookNotes('SessionEnd', await fireHooks(core, 'SessionEnd', run, conv, { reason: outcome.status }));
}

/**
 * PreCompact, before the older history is summarized (`trigger`: manual for summarize_context, else auto). What the
 * hooks print (plain stdout) are custom instructions for the summary, as in Claude Code: returned for the summary
 * request (`[source]` first). A project hook's are withheld (a note says so), as every untrusted word is from the
 * summarizer: the summary becomes the model's trusted view. The firing's notes are the person's only.
 */
export async function preCompactHooks(core: RuntimeCore, conversationId: string, runId: string | null, trigger: 'manual' | 'auto', focus: string | undefined, options?: Pick<RunOptions, 'onEvent'>): Promise<string | null> {
  if (!core.hooks || !runId) return null;
  const run = core.store.getRun(runId);
  const conv = core.store.getConversation(conversationId);
  if (!run || !conv) return null;
  const outcome = await fireHooks(core, 'PreCompact', run, conv, { trigger, custom_instructions: focus ?? '' }, { name: trigger });
  hookNote(core, run, conversationId, 'PreCompact', outcome, options);
  if (!outcome?.context.length) return null;
  // The summary holds no untrusted words (taint-scope.ts): a project hook's instructions are withheld, with a note.
  return withholdUntrusted(contextText(outcome.context).text);
}
