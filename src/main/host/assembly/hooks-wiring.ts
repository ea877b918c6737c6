/**
 * Lifecycle hooks in every runtime (docs/hooks.md): the hooks service the runtime fires at its call sites, and the
 * one event it fires from here, Notification, when a run asks a person something (an approval, a question). The
 * service is built on the store with the others (runtime/store-services.ts); the conversation is read from the records.
 */
import type { HookService } from '../../services/hooks';
import type { Runtime } from '../../runtime/runtime';
import { PersistentConversationState } from '../../runtime/context/conversation-state';
import { logHookNotes } from '../../runtime/loop/hook-calls';

export function wireHooks(runtime: Pick<Runtime, 'useHooks' | 'onEvent' | 'records'>, hooks: HookService): HookService {
  const records = runtime.records;
  runtime.useHooks(hooks);
  runtime.onEvent((e) => {
    if (e.type !== 'approval.requested' && e.type !== 'input.requested') return;
    const conv = records.isOpen ? records.getConversation(e.conversationId) : undefined;
    const run = records.isOpen ? records.getRun(e.runId) : undefined;
    if (!conv || !run) return;
    const state = new PersistentConversationState(conv.folder, conv.state);
    const message = e.type === 'approval.requested' ? `Deskhand needs your permission: ${e.description}` : `Deskhand is waiting for your input: ${e.description}`;
    const scope = { conversationId: conv.id, runId: run.id, cwd: state.cwd, roots: state.workspaceRoots, policy: run.policy };
    // The run is parked or waiting with its calls open: a failing hook's line goes to Deskhand's stderr.
    void hooks
      .fire('Notification', scope, { message }, { name: e.type === 'approval.requested' ? 'permission_prompt' : 'elicitation_dialog' })
      .then((outcome) => logHookNotes('Notification', outcome))
      .catch(() => undefined);
  });
  return hooks;
}
