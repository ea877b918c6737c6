/**
 * Item 5 of issue 52: no machine words shown to people. Rule ids and request ids never appear in a call's reasons
 * (new ones are written without them, stored ones are cleaned); "the run is tainted, but this call neither sends data
 * out…" is no reason to ask; the disabled Always-allow of a single call does not talk about parts; file rules do not
 * mention "other parts of a command"; a notification says what to do in words, without an id; the Reminders list says
 * who rings a reminder, not "at job 7"; a denial's reason is a sentence of its own.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import type { RiskTier } from '../../src/shared/tools';
import { reasonInWords, reasonsInWords } from '../../src/shared/reason-words';
import { describeAlways, isCommandPattern } from '../../src/shared/always-allow';
import { parkedNotice } from '../../src/main/host/background/schedule-fire';
import { heldBy } from '../../src/main/host/app/groups/schedule';

const DECISION_CARD = '../../src/renderer/components/requests/DecisionCard.tsx';
const { noAlwaysText } = (await import(/* @vite-ignore */ DECISION_CARD)) as { noAlwaysText(args: unknown): string };

const ID = '3f2a9c1e-7b4d-4e8a-9c21-0a1b2c3d4e5f';
const ID2 = '0b1c2d3e-4f50-4617-8899-aabbccddeeff';
const ctx = { cwd: '/work/proj', workspaceRoots: ['/work/proj'], dataDir: '/data/deskhand' };
const tool = (risk: RiskTier): ToolDefinition =>
  defineTool({
    name: `t_${risk}`,
    description: 'x',
    params: z.object({ path: z.string().optional() }),
    risk,
    disclosure: 'public',
    effects: (a: { path?: string }) => ({ paths: a.path ? { write: [a.path] } : {} }),
    execute: async () => ({ output: '' }),
  }) as ToolDefinition;
const MACHINE = /[0-9a-f]{8}-[0-9a-f]{4}-|apr_|\bjob \d/;

describe('reasons in words', () => {
  it.each([
    [`/work/proj/a.txt matches always-allow rule ${ID} (/work/proj/a.txt)`, '/work/proj/a.txt matches always-allow rule "/work/proj/a.txt"'],
    [`npm test matches always-allow rules ${ID} (npm test *), ${ID2} (npm run *)`, 'npm test matches always-allow rules "npm test *", "npm run *"'],
    [`waiting for approval apr_${ID}`, 'waiting for approval'],
    [`answered in request (apr_${ID}) by you`, 'answered in request by you'],
    ['policy "read-only" does not clear high-risk', 'policy "read-only" does not clear high-risk'],
  ])('%s', (stored, shown) => {
    expect(reasonInWords(stored)).toBe(shown);
    expect(reasonInWords(stored)).not.toMatch(MACHINE);
  });

  it('a rule that clears a call is named by its pattern, never its id (the id stays in ruleIds)', async () => {
    const rules = [{ id: ID, tool: 't_high-risk', pattern: '/work/proj/a.txt' }];
    const d = await decideCall({ tool: tool('high-risk'), args: { path: 'a.txt' }, policy: 'read-only', tainted: false, ctx, rules });
    expect(d.decision).toBe('allow');
    expect(d.ruleIds).toEqual([ID]);
    expect(reasonsInWords(d.reasons)).toBe(d.reasons.join('; '));
    expect(d.reasons.join(' ')).toContain('matches your always-allow rule "/work/proj/a.txt"');
    expect(d.reasons.join(' ')).not.toContain(ID);
  });

  it('"tainted, but this call sends nothing out" is no reason to ask (it still explains an allow)', async () => {
    const asks = await decideCall({ tool: tool('high-risk'), args: { path: 'a.txt' }, policy: 'read-only', tainted: true, ctx });
    expect(asks.decision).toBe('ask');
    expect(asks.reasons.join(' ')).not.toMatch(/neither sends data out/);
    expect(asks.reasons.join(' ')).toMatch(/does not clear high-risk/);
    // The inspector's own report keeps it: `policy explain` lists every verdict.
    expect(asks.inspectors.find((r) => r.inspector === 'taint')!.reasons.join(' ')).toMatch(/neither sends data out/);
    const allowed = await decideCall({ tool: tool('high-risk'), args: { path: 'a.txt' }, policy: 'high-risk', tainted: true, ctx });
    expect(allowed.decision).toBe('allow');
    expect(allowed.reasons.join(' ')).toMatch(/neither sends data out/);
  });
});

describe('always allow, in words that fit the call', () => {
  it.each([
    ['/work/proj/src/*', false],
    ['/work/proj/a.txt', false],
    ['C:\\proj\\a.txt', false],
    ['app:zenity', false],
    ['peer:ana', false],
    ['npm test *', true],
    ['git status', true],
  ])('%s: a command pattern? %s', (pattern, command) => {
    expect(isCommandPattern(pattern)).toBe(command);
    expect(describeAlways('some_tool', pattern).includes('other parts of a command')).toBe(command && !pattern.startsWith('peer:'));
  });

  it('a single call without "always" is not told to run its parts separately', () => {
    expect(noAlwaysText({ path: '/etc/hosts', content: 'x' })).not.toMatch(/part/);
    expect(noAlwaysText({ url: 'https://example.com' })).toMatch(/reason no saved rule may cover/);
    expect(noAlwaysText({ command: 'rm -rf build && curl https://x' })).toMatch(/more than one of its parts/);
  });
});

describe('notifications and the Reminders list', () => {
  it('a parked scheduled prompt says what to do, with no id', () => {
    const body = parkedNotice({ kind: 'approval', tool: 'write_file', risk: 'high-risk' });
    expect(body).toMatch(/^Approve or deny: write_file \(high-risk\)\. Open Deskhand to decide\./);
    expect(body).toContain('`deskhand runs list`');
    expect(body).not.toMatch(/apr_|runs approve apr/);
    expect(parkedNotice({ kind: 'question', tool: 'ask_user', risk: 'read-only' })).toMatch(/^Answer: .*Open Deskhand to answer\..*deskhand runs answer/);
  });

  it.each([
    [{ status: 'active', os_job: '7', os_backend: 'at', os_note: null }, 'Rings even when Deskhand is closed (the system scheduler, at)'],
    [{ status: 'active', os_job: null, os_backend: null, os_note: null }, 'Rings only while Deskhand runs'],
    [
      { status: 'active', os_job: null, os_backend: null, os_note: 'atd is not running (no pid file); the in-app ticker fires it while Deskhand runs.' },
      'Rings only while Deskhand runs: atd is not running (no pid file)',
    ],
    [{ status: 'paused', os_job: '7', os_backend: 'at', os_note: null }, 'paused'],
  ] as const)('who rings it: %j', (row, words) => {
    expect(heldBy(row as never)).toBe(words);
    expect(heldBy(row as never)).not.toMatch(MACHINE);
  });
});

describe('a finished edit as a diff (issue 52 item 9)', () => {
  it('a replacement in the arguments becomes a unified diff; other arguments give none', async () => {
    const { replacementDiff } = await import('../../src/shared/line-diff');
    const { parseUnifiedDiff } = await import('../../src/shared/unified-diff');
    const diff = replacementDiff({ path: 'notes.txt', old_string: 'a\nb\nc', new_string: 'a\nB\nc' })!;
    const rows = parseUnifiedDiff(diff);
    expect(rows.filter((r) => r.kind === 'del').map((r) => r.text)).toEqual(['b']);
    expect(rows.filter((r) => r.kind === 'add').map((r) => r.text)).toEqual(['B']);
    expect(diff).toContain('--- a/notes.txt');
    expect(replacementDiff({ path: 'x', content: 'y' })).toBeNull();
    expect(replacementDiff(null)).toBeNull();
  });
});
