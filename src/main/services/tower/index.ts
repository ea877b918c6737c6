/** Tower (coordinator mode) as tools see it. */
import type { TowerService } from './tower-service';

export type { MissionPlan, TowerCallContext } from './tower-service';
export type Tower = Pick<TowerService, 'init' | 'checkPlan' | 'plan' | 'spawn' | 'merge' | 'teardown' | 'send' | 'inbox' | 'finding' | 'review' | 'mission' | 'status' | 'testsCommandOf'>;

/** Whether a path relative to a worktree is inside a mission's globs (the mission-scope hold reads these). */
export { inScope, relativeTo } from './scope';
