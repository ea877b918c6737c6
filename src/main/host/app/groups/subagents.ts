/**
 * The contract's subagent methods for AppService (kept out of app-service.ts): a conversation's tree of children with
 * status, spend and approvals; its own place when it is a child; steering and cancelling from the UI (the same
 * service calls steer_subagent and cancel use). Changes reach every UI as `subagentsChanged`, coalesced.
 */
import type { ContractHandlers, MethodResult, ParsedParams } from '../../../../shared/contract';
import type { HandlerGroup } from '../handler-groups';
import type { SUBAGENT_METHOD_NAMES, SubagentView } from '../../../../shared/contract/subagents';
import { DeskhandError } from '../../../../shared/errors';
import type { SubagentRow } from '../../../services/subagents';
import type { AppRuntime } from '../../assembly/open-runtime';

/** How often a tree's UI hears of changes at most (a child's usage events come per step). */
const EVENT_MS = 200;

export function subagentView(row: SubagentRow, pending: number, depth: number, parentSubagentId: string | null): SubagentView {
  // A parked child (its run parked on a person, its parent's call with it) shows as waiting, like a child that waits here.
  const status = row.status === 'parked' || (row.status === 'running' && pending > 0) ? 'waiting' : row.status;
  return {
    id: row.id,
    conversationId: row.conversation_id,
    parentConversationId: row.parent_conversation_id,
    parentSubagentId,
    depth,
    type: row.type,
    description: row.description,
    status,
    error: row.error,
    background: row.background === 1,
    tainted: row.tainted === 1,
    pendingApprovals: pending,
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    costUSD: row.cost_usd,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** The views of a tree's rows: depth and parent child from the conversation links, approvals per child conversation. */
export function treeViews(runtime: AppRuntime, rows: readonly SubagentRow[]): SubagentView[] {
  const pending = runtime.records.pendingApprovalCounts();
  const byConversation = new Map(rows.map((r) => [r.conversation_id, r]));
  const depthOf = (r: SubagentRow): number => {
    let d = 0;
    for (let p = byConversation.get(r.parent_conversation_id); p && d < 8; p = byConversation.get(p.parent_conversation_id)) d++;
    return d;
  };
  return rows.map((r) => subagentView(r, pending.get(r.conversation_id) ?? 0, depthOf(r), byConversation.get(r.parent_conversation_id)?.id ?? null));
}

export function subagentHandlers(runtime: AppRuntime): Pick<ContractHandlers, (typeof SUBAGENT_METHOD_NAMES)[number]> {
  const service = runtime.subagents;
  const need = (id: string): SubagentRow => {
    const row = service.get(id);
    if (!row) throw new DeskhandError('not_found', `No subagent ${id}.`);
    return row;
  };
  const one = (row: SubagentRow) => ({ subagent: subagentView(row, runtime.records.pendingApprovalCounts().get(row.conversation_id) ?? 0, 0, null) });
  return {
    async listSubagents(p: ParsedParams<'listSubagents'>): Promise<MethodResult<'listSubagents'>> {
      if (!runtime.records.getConversation(p.conversationId)) throw new DeskhandError('not_found', `No conversation ${p.conversationId}.`);
      // A child a dead process left running is ended before it is shown (crash recovery).
      service.recoverOrphans(p.conversationId);
      const subagents = treeViews(runtime, service.tree(p.conversationId));
      const me = service.byConversation(p.conversationId);
      const self = me ? { ...one(me).subagent, parentTitle: runtime.records.getConversation(me.parent_conversation_id)?.title ?? me.parent_conversation_id } : null;
      return { subagents, self };
    },
    async steerSubagent(p: ParsedParams<'steerSubagent'>): Promise<MethodResult<'steerSubagent'>> {
      const row = need(p.subagentId);
      service.steer(row.parent_conversation_id, row.id, p.message, 'person');
      return one(service.get(row.id)!);
    },
    async cancelSubagent(p: ParsedParams<'cancelSubagent'>): Promise<MethodResult<'cancelSubagent'>> {
      const row = need(p.subagentId);
      return one(await service.cancel(row.id, 'cancelled by the person from the subagent tree'));
    },
  };
}

/** The subagent methods (a handler group, handler-groups.ts), and `subagentsChanged` (coalesced per tree). */
export const subagentGroup: HandlerGroup<(typeof SUBAGENT_METHOD_NAMES)[number]> = ({ runtime, emit, onShutdown }) => {
  const pending = new Map<string, string>();
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    for (const [conversationId, root] of pending) emit({ event: 'subagentsChanged', payload: { conversationId, rootConversationId: root } });
    pending.clear();
  };
  const off = runtime.subagents.onChange((row) => {
    pending.set(row.parent_conversation_id, row.root_conversation_id);
    if (!timer) (timer = setTimeout(flush, EVENT_MS)).unref();
  });
  onShutdown(() => {
    off();
    if (timer) clearTimeout(timer);
  });
  return subagentHandlers(runtime);
};
