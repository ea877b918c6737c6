/**
 * The confined inspector (issue 46): a card protects nothing for a call whose every effect stays inside the workspace
 * and can be taken back, so at every policy but `none` such a call runs unasked. Two shapes qualify:
 * - a command the OS sandbox confines (network off, writes only in the workspace roots: `Classification.confined`),
 *   in a conversation whose roots the change ledger records (docs/rewind.md): what it changes can be rewound;
 * - a built-in tool whose only declared effects are reads and writes of paths inside the workspace roots, where the
 *   ledger keeps what each write replaces (not inside `.git`, an ignored folder, or over a file above 8 MiB).
 * Anything else — URLs, hosts, network, egress, apps, screens, wake-ups, a secret placeholder, a path outside the
 * roots, a run-later file, a sensitive path, a package manifest or build file whose scripts run later (package.json,
 * Cargo.toml…: named by the call; a command can still change one without naming it, which the ledger records) — is not confined; those have inspectors of their own that ask (and an
 * explicit ask always wins over this allow). Each reason says why the call was let through.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import type { Inspector, InspectorReport } from './inspector';
import { packageScriptMatch } from '../../../shared/sensitive-paths';
import { PEER_CEILING_HOLD } from './peer-ceiling';

const pass = (reasons: string[] = []): InspectorReport => ({ inspector: 'confined', verdict: 'pass', reasons });

export const confinedInspector: Inspector = {
  name: 'confined',
  inspect({ tool, effects: e, policy, recorded, ctx, held }, facts): InspectorReport {
    // Nothing says what is recorded (no ledger in this process, or DESKHAND_CONFINED=ask): nothing is confined.
    if (policy === 'none' || !recorded) return pass();
    // A peer's conversation is driven by another person's agent: the card is this person's consent, not a safety net.
    if (held?.[PEER_CEILING_HOLD]) return pass(["a peer drives this conversation: its changes are this person's to approve, reversible or not"]);
    if (e.urls?.length || e.hosts?.length || e.egress || e.apps?.length || e.screens?.length || e.wakesLater) return pass();
    const writes = facts.paths.filter((p) => p.access === 'write');
    if (writes.some((p) => p.error || !p.root || p.alwaysAsk)) return pass();
    const resolved = writes.map((p) => p.resolved);
    if (e.processes) {
      const confined = e.assessment?.confined;
      if (!confined) return pass();
      if (confined.mode === 'read-only') {
        return { inspector: 'confined', verdict: 'allow', reasons: ['the sandbox confines it (network off, the workspace read-only): it can change nothing, so it needs no card'] };
      }
      // The words a command names inside the roots (`rm -rf build`, `cd node_modules && …`) must be kept too.
      const cwd = facts.paths.find((p) => p.raw && !p.error)?.resolved ?? ctx.cwd;
      const named = (e.assessment?.ruleParts ?? [])
        .flatMap((part) => part.words?.slice(1) ?? [])
        .filter((w) => w !== '' && !w.startsWith('-'))
        .map((w) => resolve(cwd, w))
        .filter((abs) => ctx.workspaceRoots.some((r) => !relative(resolve(r), abs).startsWith('..') && !isAbsolute(relative(resolve(r), abs))));
      const manifest = [...resolved, ...named].map(packageScriptMatch).find(Boolean);
      if (manifest) return pass([`it names ${manifest}, whose scripts run later: a change to it is not one the change list simply takes back`]);
      if (!recorded([...resolved, ...named])) {
        return pass(['it runs in the sandbox, but the change ledger does not record this workspace (or keep what it names), so its changes could not be taken back']);
      }
      return {
        inspector: 'confined',
        verdict: 'allow',
        reasons: ['the sandbox confines it (network off, writes only inside the workspace) and the change ledger records every change it makes there (rewind takes it back), so it needs no card'],
      };
    }
    // A file tool: built in, only paths declared, at least one write, each inside the roots.
    if ((tool.kind ?? 'builtin') !== 'builtin' || e.network || e.assessment?.network || !writes.length) return pass();
    const manifest = resolved.map(packageScriptMatch).find(Boolean);
    if (manifest) return pass([`it writes ${manifest}, whose scripts run later: a change to it is not one the change list simply takes back`]);
    if (!recorded(resolved)) return pass(['it writes only inside the workspace, but the change ledger would not keep what it replaces, so it could not be taken back']);
    return {
      inspector: 'confined',
      verdict: 'allow',
      reasons: ['it writes only inside the workspace, and the change ledger keeps what it replaces (rewind takes it back), so it needs no card'],
    };
  },
};
