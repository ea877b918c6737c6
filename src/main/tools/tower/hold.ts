/**
 * Tower's hold (runtime/decision/hold.ts): a worker's conversation is held to its mission's scope — writes only inside its
 * worktree, matching the mission's globs; any other write is denied by the approval engine, whatever the policy or a
 * saved rule says, not by a prompt. The hold also decides what the model is offered by role: the coordinator's tools
 * only to the coordinating conversation (never to a worker or a subagent), the shared ones only where a Tower session
 * applies (tower_init is offered everywhere else). Registered by the assembly with the tower's own lookups.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Hold, HoldDeclaration } from '../../runtime/decision/hold';
import type { InspectorReport } from '../../runtime/decision/inspector';
import { lazy } from '../../runtime/registry';
import { inScope, relativeTo, type HeldScope, type TowerHoldSources } from '../../services/tower/index';

export type { HeldScope, TowerHoldSources };

export const MISSION_SCOPE_HOLD = 'mission-scope';

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

export function missionScopeHold(sources: TowerHoldSources): Hold<HeldScope> {
  const roles = sources.roles;
  return {
    name: MISSION_SCOPE_HOLD,
    stateOf: ({ conversationId }) => sources.scopeOf(conversationId),
    ...(roles
      ? {
          offer: (turn) => {
            // What this turn's conversation is to Tower: read once per turn, only as far as its tools need.
            const agent = lazy(() => roles.isAgent(turn.conversationId));
            const child = lazy(() => roles.isSubagent(turn.conversationId));
            const session = lazy(() => roles.hasSession(turn.conversationId));
            return (tool) => {
              // Which Tower role the tool is for, as the tool declares it (facts.roles).
              const coordinator = !!tool.facts?.roles?.includes('tower-coordinator');
              const shared = !!tool.facts?.roles?.includes('tower-member');
              if (!coordinator && !shared) return null;
              if (coordinator && (agent() || child())) return 'only the coordinating conversation (the tower) has this tool';
              if (shared && !agent() && !session()) return 'no Tower session here (the coordinator starts one with tower_init)';
              if (coordinator && tool.name !== 'tower_init' && !session()) return 'no Tower session here: start one with tower_init';
              return null;
            };
          },
        }
      : {}),
    inspect({ effects, ctx }, facts, scope): InspectorReport {
      if (!scope) return { inspector: MISSION_SCOPE_HOLD, verdict: 'pass', reasons: [] };
      const writes = [
        ...(effects.paths?.write ?? []).filter((p): p is string => typeof p === 'string' && p !== '').map((p) => resolve(ctx.cwd, p)),
        ...facts.paths.filter((p) => p.access === 'write' && !p.error).map((p) => p.resolved),
      ];
      const roots = [scope.root, real(scope.root)];
      const outside = [...new Set(writes)].filter((abs) => {
        const rel = roots.map((r) => relativeTo(r, abs)).find((x) => x !== null && x !== undefined) ?? null;
        return rel === null || rel === '' || rel === '.git' || rel.startsWith('.git/') || !inScope(rel, scope.globs);
      });
      if (outside.length === 0) return { inspector: MISSION_SCOPE_HOLD, verdict: 'pass', reasons: writes.length ? [`inside mission ${scope.mission}'s scope`] : [] };
      return {
        inspector: MISSION_SCOPE_HOLD,
        verdict: 'deny',
        reasons: [`mission ${scope.mission} may change only ${scope.globs.join(', ')} in its worktree; outside its scope: ${outside.join(', ')}. Ask the tower (tower_send) or file a tower_finding instead.`],
      };
    },
  };
}

/** Tower's declared holds (registered by the assembly: host/assembly/holds.ts): after plan mode's. */
export const holds: readonly HoldDeclaration[] = [{ order: 20, make: ({ tower }) => missionScopeHold(tower) }];
