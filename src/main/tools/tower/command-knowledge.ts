import type { Classification, EffectsContext } from '../../runtime/tool';

/**
 * What this family needs to know about commands, for the mission's tests command (the shell family provides it; the
 * host passes it in: families never import each other).
 */
export interface TowerCommandKnowledge {
  classify(command: string, ctx: EffectsContext): Classification;
  withSandbox(base: Classification, ask: { network?: boolean | undefined; outside_sandbox?: boolean | undefined }, ctx: Pick<EffectsContext, 'sandbox'>): Classification;
  visible(command: string): string;
}
