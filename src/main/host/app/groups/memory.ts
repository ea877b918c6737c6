/**
 * The contract's memory, lessons and goals methods and the goal loop the app host runs. The person's actions in the UI leave receipts like the CLI's.
 */
import type { MemoryRecordView } from '../../../../shared/contract/memory';
import type { MemoryRecord } from '../../../services/memory';
import type { HandlerGroup } from '../handler-groups';
import { startGoalLoop, type GoalLoopOptions } from '../../background/goal-loop';

type MemoryGoalMethods = 'listMemory' | 'changeMemory' | 'setMemoryExtraction' | 'listGoals';

const ACTOR = 'person (Deskhand app)';

/**
 * The memory, lessons and goals methods (a handler group, handler-groups.ts); also starts the goal loop the app host
 * runs, stopped when the service shuts down.
 */
export const memoryGroup =
  (provider: GoalLoopOptions['provider'], run: GoalLoopOptions['run']): HandlerGroup<MemoryGoalMethods> =>
  ({ runtime, log, onShutdown }) => {
  const { memory, goals } = runtime;
  // The runtime's notifier connects on its first notification, so a host whose goals never stop opens no D-Bus connection for it.
  const loop = startGoalLoop(runtime, provider, run, log, runtime.notifier);
  onShutdown(async () => {
    await loop.stop();
  });
  const view = (r: MemoryRecord): MemoryRecordView => ({
    id: r.id,
    kind: r.kind,
    scope: r.scope,
    scopeKey: r.scope_key,
    topic: r.topic,
    body: r.body,
    quote: r.quote,
    status: r.status,
    source: r.source,
    updatedAt: r.updated_at,
    receipts: memory.receipts(r.id).map((x) => ({ id: x.id, action: x.action, actor: x.actor, diff: x.diff, at: x.created_at })),
  });
  const all = () => ({ records: memory.list().map(view), extraction: memory.extractionEnabled() });
  return {
    async listMemory() {
      return all();
    },
    async changeMemory(p) {
      if (p.action === 'accept') memory.accept(p.id, ACTOR);
      else if (p.action === 'reject') memory.reject(p.id, ACTOR);
      else if (p.action === 'delete') memory.remove(p.id, { actor: ACTOR });
      else memory.update(p.id, { topic: p.topic, body: p.body }, { actor: ACTOR, byPerson: true });
      return all();
    },
    async setMemoryExtraction(p) {
      memory.setExtraction(p.on);
      return all();
    },
    async listGoals(p) {
      const list = goals.list().filter((g) => !p.conversationId || g.conversationId === p.conversationId);
      return { goals: list };
    },
  };
}
