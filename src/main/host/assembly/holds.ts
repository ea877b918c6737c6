/**
 * The holds every host registers on its decision book (runtime/decision/hold.ts), after the plan family's (assemble.ts):
 * Tower's mission scope (tools/tower/hold.ts), a peer's ceiling (tools/peers/hold.ts) and a subagent's inherited
 * ceilings (subagent-ceilings.ts), each read from the runtime's records (runtime/records.ts). The app's services (host-services.ts) and the
 * short path of `policy explain` (explain-host.ts) both register them here, so a call is judged the same either way.
 */
import type { DecisionBook } from '../../runtime/decision/decision-book';
import type { Records } from '../../runtime/records';
import type { SubagentService } from '../../services/subagents/subagent-service';
import { peerCeilingOf } from '../../services/peers/index';
import { missionScopeHold, type TowerHoldSources } from '../../tools/tower/hold';
import { peerCeilingHold } from '../../tools/peers/hold';
import { subagentCeilingHold } from './subagent-ceilings';

export interface HoldSources {
  records: Records;
  tower: TowerHoldSources;
  subagents: Pick<SubagentService, 'byConversation'> & Partial<Pick<SubagentService, 'ceilingCheck'>>;
}

/** Registers the hosts' holds, in the order their inspectors run; returns their removal. */
export function registerHolds(book: DecisionBook, { records, tower, subagents }: HoldSources): () => void {
  const offs = [
    book.addHold(missionScopeHold(tower)),
    book.addHold(peerCeilingHold((id) => peerCeilingOf(records, id))),
    book.addHold(subagentCeilingHold(records, subagents)),
  ];
  return () => offs.forEach((off) => off());
}
