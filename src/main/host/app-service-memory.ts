/**
 * The contract's memory, lessons and goals methods, attached to AppService (kept here so app-service.ts stays small),
 * and the goal loop the app host runs. The person's actions in the UI leave receipts like the CLI's.
 */
import type { MethodResult, ParsedParams } from '../../shared/contract';
import type { MemoryRecordView } from '../../shared/memory-contract';
import type { MemoryRecord } from '../services/memory';
import type { AppRuntime } from './open-runtime';
import { startGoalLoop, type GoalLoopOptions } from './goal-loop';

export interface MemoryGoalHandlers {
  listMemory(p: ParsedParams<'listMemory'>): Promise<MethodResult<'listMemory'>>;
  changeMemory(p: ParsedParams<'changeMemory'>): Promise<MethodResult<'changeMemory'>>;
  setMemoryExtraction(p: ParsedParams<'setMemoryExtraction'>): Promise<MethodResult<'setMemoryExtraction'>>;
  listGoals(p: ParsedParams<'listGoals'>): Promise<MethodResult<'listGoals'>>;
}

declare module './app-service' {
  // The methods below are attached to every AppService in its constructor (attachMemoryAndGoals).
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppService extends MemoryGoalHandlers {}
}

const ACTOR = 'person (Deskhand app)';

export function memoryHandlers(runtime: AppRuntime): MemoryGoalHandlers {
  const { memory, goals } = runtime;
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
      else memory.update(p.id, { topic: p.topic, body: p.body }, { actor: ACTOR });
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

/** Attaches the memory and goal methods to the service and starts its goal loop; returns the loop's stop. */
export function attachMemoryAndGoals(
  service: object,
  runtime: AppRuntime,
  provider: GoalLoopOptions['provider'],
  run: GoalLoopOptions['run'],
  log: { warn(message: string, details?: Record<string, unknown>): void },
): { stop(): Promise<void> } {
  Object.assign(service, memoryHandlers(runtime));
  return startGoalLoop(runtime, provider, run, log);
}
