/**
 * The subagent service as tools see it: an interface (the host injects SubagentService), the profiles that narrow a
 * child's tools and policy, and the pure helpers (result schemas, limits).
 */
import type { SubagentService } from './subagent-service';

export type { SubagentRow, SubagentStatus, BlackboardPost } from '../store/modules/subagents';
export { describeChild } from './describe';
export { steeringText, parseSteering } from './steering';
export type { SpawnInput, MapInput, SubagentCallContext, WaitResult } from './subagent-service';

/** What tools may do with subagents: for their own conversation. */
export type Subagents = Pick<SubagentService, 'spawn' | 'map' | 'list' | 'wait' | 'steer' | 'cancel' | 'post' | 'read' | 'workMinutesLeft' | 'byConversation' | 'pause' | 'resume' | 'isPaused' | 'otherProvider'>;

/** What the subagents' hold reads: a conversation's subagent row (its parent), and a child's tool ceiling when known. */
export type SubagentLookups = Pick<SubagentService, 'byConversation'> & Partial<Pick<SubagentService, 'ceilingCheck'>>;

export { SUBAGENT_TYPES, SUBAGENT_TYPE_NAME, PROFILES, MAX_MAP_CHILDREN, lowerPolicy, compileResultSchema, checkResult } from './profiles';
export type { SubagentType, PolicyName, Profile } from './profiles';
/** The providers a child's own `provider` may name (it must also be configured where it runs). */
export { PROVIDERS as CHILD_PROVIDERS } from '../providers/config';
export type { ChildModel } from './subagent-service';
