/**
 * Lifecycle hooks in every runtime (docs/hooks.md): the hooks service the runtime fires at its call sites, and the
 * one event it fires from here, Notification, when a run asks a person something (an approval, a question).
 */
import type { ContentReader } from '../../../shared/content-reader';
import { HookService } from '../../services/hooks';
import type { Store } from '../../services/store/store';
import type { Runtime } from '../../runtime/runtime';
import { PersistentConversationState } from '../../runtime/context/conversation-state';

export function wireHooks(runtime: Pick<Runtime, 'useHooks' | 'onEvent'>, store: Store, dataDir: string, reader: ContentReader): HookService {
  const hooks = new HookService({ dataDir, store, reader });
  runtime.useHooks(hooks);
  runtime.onEvent((e) => {
    if (e.type !== 'approval.requested' && e.type !== 'input.requested') return;
    const conv = store.isOpen ? store.getConversation(e.conversationId) : undefined;
    const run = store.isOpen ? store.getRun(e.runId) : undefined;
    if (!conv || !run) return;
    const state = new PersistentConversationState(conv.folder, conv.state);
    const message = e.type === 'approval.requested' ? `Deskhand needs your permission: ${e.description}` : `Deskhand is waiting for your input: ${e.description}`;
    const scope = { conversationId: conv.id, runId: run.id, cwd: state.cwd, roots: state.workspaceRoots, policy: run.policy };
    void hooks.fire('Notification', scope, { message }, { name: e.type === 'approval.requested' ? 'permission_prompt' : 'elicitation_dialog' }).catch(() => undefined);
  });
  return hooks;
}
