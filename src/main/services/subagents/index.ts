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
export type Subagents = Pick<SubagentService, 'spawn' | 'map' | 'list' | 'wait' | 'steer' | 'cancel' | 'post' | 'read' | 'workMinutesLeft' | 'byConversation'>;

export { SUBAGENT_TYPES, PARENT_ONLY_TOOLS, PROFILES, lowerPolicy, compileResultSchema, checkResult } from './profiles';
export type { SubagentType, PolicyName, Profile } from './profiles';
