/** Presence from the store: runs running or parked, with their recent writing calls (`runs` and `tool_calls`). */
import type { Store } from '../store/store';
import { runOwnerAlive } from '../processes/proc-info';
import type { PresenceRun, PresenceService } from './index';

export class StorePresence implements PresenceService {
  /** `writes`: whether a tool changes the person's files or starts their work (its `facts.writes`, from the registry). */
  constructor(
    private readonly store: Store,
    private readonly writes: (tool: string) => boolean,
  ) {}

  activeRuns(windowMs: number): PresenceRun[] {
    const since = Date.now() - windowMs;
    const out: PresenceRun[] = [];
    for (const status of ['running', 'parked'] as const) {
      for (const run of this.store.runsWithStatus(status)) {
        const conv = this.store.getConversation(run.conversation_id);
        if (!conv) continue;
        const writes = this.store
          .toolCallsForRun(run.id)
          .filter((c) => this.writes(c.tool) && (c.finished_at === null || c.finished_at >= since) && c.decision !== 'deny')
          .map((c) => {
            let path: string | null = null;
            try {
              const args = JSON.parse(c.args) as Record<string, unknown>;
              const p = args.path ?? args.destination ?? args.command;
              path = typeof p === 'string' ? p.slice(0, 300) : null;
            } catch {
              // arguments that were not JSON name no path
            }
            return { tool: c.tool, path, status: c.status, at: c.finished_at ?? c.created_at };
          });
        out.push({
          runId: run.id,
          conversationId: conv.id,
          title: conv.title,
          folder: conv.folder,
          status,
          ownerAlive: runOwnerAlive(run),
          ownerPid: run.owner_pid,
          writes,
        });
      }
    }
    return out;
  }
}
