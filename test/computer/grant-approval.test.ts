/**
 * Granted apps: the grant as the approval (issue 34 item 14). The engine's decision for computer calls against the
 * person's app grants, as a table: a time-limited grant of the capability a call uses clears it under every policy but
 * "none" (tainted runs included: the call reaches only the granted app), while a grant until revoked, a missing or
 * expired capability, another app, a revoked app, a saved-secret placeholder or policy "none" still ask or refuse.
 * Where a rule could apply, "always allow" offers one for that app alone, and a saved one clears only within a grant.
 */
import { describe, expect, it } from 'vitest';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import type { SavedRule } from '../../src/shared/rules';
import type { Policy } from '../../src/shared/tools';
import { ComputerUseService } from '../../src/main/services/computer/computer-use';
import { StoreGrantBook } from '../../src/main/services/computer/grant-book';
import { MissingOperator } from '../../src/main/services/computer/operators';
import { appGrantsModule } from '../../src/main/services/store/modules/app-grants';
import { Store } from '../../src/main/services/store/store';
import { createComputerFamily } from '../../src/main/tools/computer';
import { tempDir } from '../support/tool-context';

type Setup = (g: StoreGrantBook) => void;
interface Row {
  name: string;
  setup: Setup;
  tool: 'computer_input' | 'computer_pointer' | 'computer_foreground' | 'computer_observe';
  args: Record<string, unknown>;
  policy?: Policy;
  tainted?: boolean;
  held?: string[];
  decision: 'allow' | 'ask' | 'deny';
  reason: RegExp;
}

const NOW = Date.parse('2026-12-02T06:00:00Z');
const timed = (caps: ('observe' | 'pointer' | 'input' | 'foreground')[], minutes = 10): Setup => (g) => g.grant('zenity', caps, minutes);

const rows: Row[] = [
  { name: 'typing into an app granted input for 10 minutes', setup: timed(['observe', 'input']), tool: 'computer_input', args: { app: 'zenity', text: 'Ada' }, decision: 'allow', reason: /"zenity" is granted input until 06:10 UTC \(a time-limited grant\): the grant is the approval/ },
  { name: 'a key press in it', setup: timed(['input']), tool: 'computer_input', args: { app: 'zenity', key: 'Enter' }, decision: 'allow', reason: /the grant is the approval/ },
  { name: 'the same in a tainted run (it read the app)', setup: timed(['observe', 'input']), tool: 'computer_input', args: { app: 'zenity', text: 'Ada' }, tainted: true, decision: 'allow', reason: /the grant is the approval/ },
  { name: 'a click with pointer granted for an hour', setup: timed(['pointer'], 60), tool: 'computer_pointer', args: { app: 'zenity', x: 5, y: 5, action: 'click' }, decision: 'allow', reason: /granted pointer until 07:00 UTC/ },
  { name: 'under policy low-risk', setup: timed(['input']), tool: 'computer_input', args: { app: 'zenity', text: 'x' }, policy: 'low-risk', decision: 'allow', reason: /the grant is the approval/ },
  { name: 'policy "none" clears nothing, grants included', setup: timed(['input']), tool: 'computer_input', args: { app: 'zenity', text: 'x' }, policy: 'none', decision: 'ask', reason: /./ },
  { name: 'input granted until revoked still asks per call', setup: (g) => g.grant('zenity', ['input'], null), tool: 'computer_input', args: { app: 'zenity', text: 'x' }, decision: 'ask', reason: /policy "read-only" does not clear high-risk/ },
  { name: 'until revoked, tainted: asks because of the taint', setup: (g) => g.grant('zenity', ['input'], null), tool: 'computer_input', args: { app: 'zenity', text: 'x' }, tainted: true, decision: 'ask', reason: /untrusted content/ },
  { name: 'only observe granted: typing asks', setup: timed(['observe']), tool: 'computer_input', args: { app: 'zenity', text: 'x' }, decision: 'ask', reason: /has not granted input on "zenity": always asks/ },
  { name: 'input granted for another app', setup: (g) => g.grant('gedit', ['input'], 10), tool: 'computer_input', args: { app: 'zenity', text: 'x' }, decision: 'ask', reason: /has not granted input on "zenity"/ },
  { name: 'a grant that expired', setup: (g) => g.grant('zenity', ['input'], 1), tool: 'computer_input', args: { app: 'zenity', text: 'x' }, decision: 'ask', reason: /has not granted input/ },
  { name: 'a revoked app is refused', setup: (g) => (g.grant('zenity', ['input'], 10), g.revoke('zenity')), tool: 'computer_input', args: { app: 'zenity', text: 'x' }, decision: 'deny', reason: /revoked "zenity"/ },
  { name: 'a saved secret typed into it still asks', setup: timed(['input']), tool: 'computer_input', args: { app: 'zenity', text: '[redacted:PIN]' }, held: ['PIN'], decision: 'ask', reason: /every use of a secret is approved by a person/ },
  { name: 'bringing it to the front with foreground granted', setup: timed(['foreground']), tool: 'computer_foreground', args: { app: 'zenity' }, decision: 'allow', reason: /granted foreground/ },
  { name: 'observing stays a plain read under its grant', setup: (g) => g.grant('zenity', ['observe'], null), tool: 'computer_observe', args: { app: 'zenity' }, decision: 'allow', reason: /policy "read-only" clears read-only/ },
];

function world() {
  let now = NOW;
  const dir = tempDir('deskhand-data-');
  const store = new Store(dir);
  const grants = new StoreGrantBook(store.module(appGrantsModule), () => now);
  const computer = new ComputerUseService({ operator: new MissingOperator('test', 'no desktop'), grants, dataDir: dir });
  const tools = createComputerFamily({ computer }).tools as ToolDefinition[];
  const decide = (tool: string, args: unknown, o: { policy?: Policy; tainted?: boolean; held?: string[]; rules?: SavedRule[] } = {}) =>
    decideCall({
      tool: tools.find((t) => t.name === tool)!,
      args,
      policy: o.policy ?? 'read-only',
      tainted: !!o.tainted,
      ctx: { cwd: dir, workspaceRoots: [dir], dataDir: dir },
      grants,
      heldSecrets: new Set(o.held ?? []),
      rules: o.rules ?? [],
      // The person is present (an interactive run of theirs); nobody present: test/computer/grant-presence.test.ts.
      personPresent: true,
    });
  return { store, grants, decide, later: (ms: number) => (now += ms) };
}

describe('granted apps: the grant as the approval', () => {
  it.each(rows)('$name → $decision', async (row) => {
    const w = world();
    row.setup(w.grants);
    if (row.name === 'a grant that expired') w.later(60_001);
    const d = await w.decide(row.tool, row.args, { policy: row.policy, tainted: row.tainted, held: row.held });
    expect(d.decision).toBe(row.decision);
    expect(d.reasons.join('\n')).toMatch(row.reason);
    w.store.close();
  });

  it('"always allow" offers a rule for the one granted app; a saved rule clears it only while the grant lasts', async () => {
    const w = world();
    w.grants.grant('zenity', ['input'], null);
    const asked = await w.decide('computer_input', { app: 'zenity', text: 'x' });
    expect(asked.decision).toBe('ask');
    expect(asked.rulePattern).toBe('app:zenity');
    const rule: SavedRule = { id: 'rule_1', tool: 'computer_input', pattern: 'app:zenity' };
    expect((await w.decide('computer_input', { app: 'zenity', text: 'y' }, { rules: [rule] })).decision).toBe('allow');
    // The rule names zenity only: another granted app still asks.
    w.grants.grant('gedit', ['input'], null);
    expect((await w.decide('computer_input', { app: 'gedit', text: 'y' }, { rules: [rule] })).decision).toBe('ask');
    // Revoked: refused, and the rule cannot clear it.
    w.grants.revoke('zenity');
    const refused = await w.decide('computer_input', { app: 'zenity', text: 'y' }, { rules: [rule] });
    expect(refused.decision).toBe('deny');
    expect(refused.rulePattern).toBeNull();
    // Not granted at all: an explicit ask, and no rule is offered for it.
    const missing = await w.decide('computer_input', { app: 'xterm', text: 'y' });
    expect(missing.rulePattern).toBeNull();
    w.store.close();
  });
});
