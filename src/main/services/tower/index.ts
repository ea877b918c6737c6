/** Tower (coordinator mode) as tools see it. */
import type { TowerService } from './tower-service';

export type { MissionPlan, TowerCallContext } from './tower-service';
export type Tower = Pick<TowerService, 'init' | 'checkPlan' | 'plan' | 'spawn' | 'merge' | 'teardown' | 'send' | 'inbox' | 'finding' | 'review' | 'mission' | 'status' | 'testsCommandOf'>;

/** Whether a path relative to a worktree is inside a mission's globs (the mission-scope hold reads these). */
export { inScope, relativeTo } from './scope';

/** A conversation held to a mission's scope: its worktree, its mission's globs, the mission's id. */
export interface HeldScope {
  root: string;
  globs: readonly string[];
  mission: string;
}

/** What Tower's hold reads, from the tower's store rows (and the subagents', for who is a child). */
export interface TowerHoldSources {
  scopeOf(conversationId: string): HeldScope | null;
  /** For the role filter; absent: a host that only judges calls (`policy explain`) offers nothing. */
  roles?: {
    isAgent(conversationId: string): boolean;
    isSubagent(conversationId: string): boolean;
    hasSession(conversationId: string): boolean;
  };
}
