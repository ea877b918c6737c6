/**
 * The mission-scope inspector: a conversation held to a scope (a Tower worker: its worktree and its mission's globs)
 * may write only paths inside that worktree that match the globs. Any other write is denied — by the approval engine,
 * whatever the policy or a saved rule says, not by a prompt. Hosts register where scopes come from on their runtime
 * (`Runtime.addScopeLookup`); the pipeline looks the conversation's scope up once per step and passes it in the
 * decision's input, as it does plan mode.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Facts, Inspector, InspectorReport } from './inspector';
import { inScope, relativeTo } from '../services/tower/scope';

export type { HeldScope, ScopeLookup } from './inspector';

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

export const missionScopeInspector: Inspector = {
  name: 'mission-scope',
  inspect({ effects, ctx, missionScope: scope }, facts: Facts): InspectorReport {
    if (!scope) return { inspector: 'mission-scope', verdict: 'pass', reasons: [] };
    const writes = [
      ...(effects.paths?.write ?? []).filter((p): p is string => typeof p === 'string' && p !== '').map((p) => resolve(ctx.cwd, p)),
      ...facts.paths.filter((p) => p.access === 'write' && !p.error).map((p) => p.resolved),
    ];
    const roots = [scope.root, real(scope.root)];
    const outside = [...new Set(writes)].filter((abs) => {
      const rel = roots.map((r) => relativeTo(r, abs)).find((x) => x !== null && x !== undefined) ?? null;
      return rel === null || rel === '' || rel === '.git' || rel.startsWith('.git/') || !inScope(rel, scope.globs);
    });
    if (outside.length === 0) return { inspector: 'mission-scope', verdict: 'pass', reasons: writes.length ? [`inside mission ${scope.mission}'s scope`] : [] };
    return {
      inspector: 'mission-scope',
      verdict: 'deny',
      reasons: [`mission ${scope.mission} may change only ${scope.globs.join(', ')} in its worktree; outside its scope: ${outside.join(', ')}. Ask the tower (tower_send) or file a tower_finding instead.`],
    };
  },
};
