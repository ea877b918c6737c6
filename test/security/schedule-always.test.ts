/**
 * Reminders and wake triggers may be always-allowed (issue 46: "reminders and triggers can never be always-allowed"
 * was friction): in a clean run each asks under the default policy with an "always allow" for every call of the tool,
 * and a saved rule clears the next one. A tainted run still cannot schedule its own wake-ups unasked (injected content
 * must not), so a trigger there asks with no rule offered and none applies; a reminder only notifies the person and
 * keeps its rule. No asking card lists "neither sends data out" as a reason.
 */
import { describe, expect, it } from 'vitest';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import { ANY_CALL_PATTERN, type SavedRule } from '../../src/shared/rules';
import type { Policy } from '../../src/shared/tools';
import { tempDir } from '../support/tool-context';
import { builtinTool } from '../support/tools';

const dataDir = tempDir('deskhand-schedule-always-');
const calls = [
  ['add_reminder', { when: '30m', text: 'stretch' }],
  ['add_reminder', { when: 'tomorrow 09:30', text: 'call the dentist' }],
  ['cancel_reminder', { id: 'rem_1' }],
  ['register_trigger', { when: '30m', prompt: 'check the build again' }],
  ['cancel_trigger', { id: 'trg_1' }],
] as const;

const decide = (name: string, args: Record<string, unknown>, o: { tainted?: boolean; rules?: SavedRule[]; policy?: Policy } = {}) =>
  decideCall({ tool: builtinTool(name, { dataDir }), args, policy: o.policy ?? 'read-only', tainted: !!o.tainted, ctx: { cwd: dataDir, workspaceRoots: [dataDir], dataDir }, heldSecrets: new Set(), rules: o.rules ?? [] });

describe('reminders and triggers can be always-allowed', () => {
  it.each(calls)('%s %j: a clean run offers "always allow", and the saved rule clears the next call', async (name, args) => {
    const asked = await decide(name, args);
    expect(asked.decision).toBe('ask');
    expect(asked.rulePattern).toBe(ANY_CALL_PATTERN);
    const rule: SavedRule = { id: 'r1', tool: name, pattern: ANY_CALL_PATTERN };
    const cleared = await decide(name, args, { rules: [rule] });
    expect(cleared.decision).toBe('allow');
    expect(cleared.reasons.join(' ')).toMatch(/matches your always-allow rule "\*"/);
    // Another tool's rule covers nothing here.
    expect((await decide(name, args, { rules: [{ ...rule, tool: 'add_note' }] })).decision).toBe('ask');
  });

  it.each(calls)('%s %j in a tainted run', async (name, args) => {
    const asked = await decide(name, args, { tainted: true });
    const rule: SavedRule = { id: 'r1', tool: name, pattern: ANY_CALL_PATTERN };
    const withRule = await decide(name, args, { tainted: true, rules: [rule] });
    expect(asked.decision).toBe('ask');
    expect(asked.reasons.join(' ')).not.toMatch(/neither sends data out/);
    if (name === 'register_trigger') {
      expect(asked.reasons.join(' ')).toMatch(/cannot schedule the agent to run again later without asking/);
      expect(asked.rulePattern).toBeNull();
      expect(withRule.decision).toBe('ask');
      // Under every policy, high-risk included.
      expect((await decide(name, args, { tainted: true, policy: 'high-risk', rules: [rule] })).decision).toBe('ask');
    } else {
      expect(asked.rulePattern).toBe(ANY_CALL_PATTERN);
      expect(withRule.decision).toBe('allow');
    }
  });
});
