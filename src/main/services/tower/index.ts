/** Tower (coordinator mode) as tools see it. */
import type { TowerService } from './tower-service';

export type { MissionPlan, TowerCallContext } from './tower-service';
export type Tower = Pick<TowerService, 'init' | 'checkPlan' | 'plan' | 'spawn' | 'merge' | 'teardown' | 'send' | 'inbox' | 'finding' | 'review' | 'mission' | 'status' | 'testsCommandOf'>;

/** Only the tower (the coordinating conversation) has these. */
export const TOWER_COORDINATOR_TOOLS: readonly string[] = ['tower_init', 'tower_plan', 'tower_spawn', 'tower_merge', 'tower_teardown'];
/** Every agent of a Tower session has these. */
export const TOWER_SHARED_TOOLS: readonly string[] = ['tower_send', 'tower_inbox', 'tower_finding', 'tower_review', 'tower_mission', 'tower_status'];

/** Whether a path relative to a worktree is inside a mission's globs (the mission-scope hold reads these). */
export { inScope, relativeTo } from './scope';
