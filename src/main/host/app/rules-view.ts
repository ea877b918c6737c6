/** Always-allow rules as people see them: Settings → Rules, `deskhand rules list | rm`. */
import type { RuleView } from '../../../shared/contract';
import { describePattern } from '../../../shared/always-allow';
import { DeskhandError } from '../../../shared/errors';
import { describeScope } from '../../../shared/rules';
import { type Records } from '../../runtime/records';

export function ruleViews(store: Records, now = Date.now()): RuleView[] {
  return store.rules.list().map((r) => {
    const conv = r.scope === 'conversation' && r.scope_value ? store.getConversation(r.scope_value) : undefined;
    // A task's grant ends with its run: once the run is over it is listed as expired (it matches nothing anyway).
    const run = r.run_id ? store.getRun(r.run_id) : undefined;
    const taskOver = !!r.run_id && (!run || (run.status !== 'running' && run.status !== 'parked'));
    const where = r.scope === 'conversation' ? `in the conversation “${conv?.title ?? r.scope_value}”` : describeScope(r.scope, r.scope_value);
    return {
      id: r.id,
      tool: r.tool,
      pattern: r.pattern,
      covers: describePattern(r.pattern),
      scope: r.run_id ? 'task' : r.scope,
      expiresAt: r.expires_at,
      expired: taskOver || (r.expires_at !== null && r.expires_at <= now),
      where: r.run_id ? `${where}, while run ${r.run_id} lasts` : where,
      conversationTitle: conv?.title ?? null,
      source: r.source,
      matchCount: r.match_count,
      lastMatchedAt: r.last_matched_at,
      createdAt: r.created_at,
    };
  });
}

/** Removes a rule; an id that is not saved is a 'not_found' error naming where to look. */
export function revokeRule(store: Records, id: string): void {
  if (!store.rules.remove(id)) throw new DeskhandError('not_found', `No rule ${id}. See Settings → Rules or \`deskhand rules list\`.`);
}
