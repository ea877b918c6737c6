/**
 * Wires the subagent service into the runtime: the runner that runs a child's turns through the same loop (with its
 * parent's provider), the registry filter that holds each child to its ceiling, and the step hook that hands a child
 * its steering messages before its next model call.
 */
import { DeskhandError } from '../../shared/errors';
import type { Runtime } from '../runtime/runtime';
import { PersistentConversationState } from '../runtime/conversation-state';
import { enabledFamiliesOf } from '../runtime/tool-families';
import type { ProviderConfig } from '../services/providers/providers';
import type { RunRow } from '../services/store/store';
import type { SubagentRunner, SubagentService } from '../services/subagents/subagent-service';
import { inheritedCeiling, inheritedPlanFilter } from './subagent-ceilings';
import { steeringText, type PolicyName } from '../services/subagents/index';

export interface SubagentWiring {
  /** The provider for a child whose parent run is not driven by this process (from the parent run's row). */
  provider?(parentRun: RunRow): ProviderConfig | Promise<ProviderConfig>;
}

export function wireSubagents(runtime: Runtime, subagents: SubagentService, wiring: SubagentWiring = {}): () => void {
  const { store, registry } = runtime;
  const runner: SubagentRunner = {
    parent(runId) {
      const run = store.getRun(runId);
      const conv = run && store.getConversation(run.conversation_id);
      if (!run || !conv) return null;
      const state = new PersistentConversationState(conv.folder, conv.state);
      const set = registry.toolSet({ conversationId: conv.id, policy: run.policy, revealed: state.revealedTools, slots: state.slots, enabled: enabledFamiliesOf(state.slots) });
      return {
        conversationId: conv.id,
        folder: conv.folder,
        cwd: state.cwd,
        roots: [...state.workspaceRoots],
        sandbox: conv.sandbox,
        policy: run.policy as PolicyName,
        tainted: run.tainted === 1 || conv.tainted === 1,
        tools: set.specs.map((s) => ({ name: registry.lookup(s.name)?.name ?? s.name, risk: registry.lookup(s.name)?.risk ?? 'unknown' })),
      };
    },
    createChild(input) {
      const conv = runtime.createConversation({ folder: input.folder, policy: input.policy, title: input.title, sandbox: input.sandbox as never });
      const state = new PersistentConversationState(input.folder, '{}');
      state.cwd = input.cwd;
      state.workspaceRoots = [...input.roots];
      store.updateConversation(conv.id, { state: state.serialize(), ...(input.tainted ? { tainted: 1 } : {}) });
      return conv.id;
    },
    async run(conversationId, message, opts) {
      const parentRun = opts.parentRunId ? store.getRun(opts.parentRunId) : undefined;
      const live = opts.parentRunId ? runtime.liveRunOptions(opts.parentRunId) : undefined;
      const provider = live?.provider ?? (parentRun && wiring.provider ? await wiring.provider(parentRun) : undefined);
      if (!provider) throw new DeskhandError('conflict', 'The parent run is not running in this process, so its model is unknown.');
      const outcome = await runtime.sendMessage(conversationId, message, {
        provider,
        // A child waits for its approvals (they surface in the parent's conversation) instead of parking.
        interactive: true,
        signal: opts.signal,
        onEvent: (e) => {
          if (e.type === 'usage') opts.onUsage(e.usage.inputTokens, e.usage.outputTokens);
        },
      });
      return { status: outcome.status, ...(outcome.error ? { error: outcome.error } : {}) };
    },
    lastText(conversationId) {
      const last = store.listMessages(conversationId).filter((m) => m.role === 'assistant').at(-1);
      if (!last) return '';
      const content = JSON.parse(last.content) as unknown;
      if (typeof content === 'string') return content;
      return (content as { type?: string; text?: string }[]).filter((p) => p.type === 'text').map((p) => p.text ?? '').join('');
    },
    tainted(conversationId) {
      return store.getConversation(conversationId)?.tainted === 1;
    },
  };
  subagents.attach(runner);
  const offFilter = registry.addFilter('subagent-ceiling', (turn) => subagents.ceilingCheck(turn.conversationId));
  // A child is held to its ancestors' current ceilings at every step (plan mode, policy, taint): subagent-ceilings.ts.
  const offCeiling = runtime.addCeilingLookup((conversationId) => inheritedCeiling(store, subagents, conversationId));
  const offPlan = registry.addFilter('subagent-plan-mode', (turn) => inheritedPlanFilter(store, subagents, turn.conversationId));
  // A child starts with its ceiling loaded (what its parent had loaded): the families of those tools are enabled.
  const offEnabler = registry.addEnabler('subagent-ceiling', (turn) => {
    const ceiling = subagents.ceilingOf(turn.conversationId);
    return ceiling ? [...new Set([...ceiling].map((n) => registry.familyOf(n)).filter((f): f is string => !!f))] : [];
  });
  const offHook = runtime.addStepHook((run, conv) => {
    for (const { message, from } of subagents.takeSteering(conv.id)) store.addMessage(conv.id, run.id, 'user', steeringText(from, message));
  });
  return () => {
    offFilter();
    offCeiling();
    offPlan();
    offEnabler();
    offHook();
  };
}
