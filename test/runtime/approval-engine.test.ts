import { describe, expect, it } from 'vitest';
import { decideWithEveryRule } from '../support/rules';
import { z } from 'zod';
import { decideCall, canonicalJson, sha256 } from '../../src/main/runtime/decision/approval-engine';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import type { Policy, RiskTier } from '../../src/shared/tools';
import { builtinTool } from '../support/tools';

const ctx = { cwd: '/work/proj', workspaceRoots: ['/work/proj'], dataDir: '/data/deskhand' };
/** A tool of one tier that declares its `path` argument (read for read-only tools, written otherwise). */
const tool = (risk: RiskTier | 'unknown', extra: Partial<ToolDefinition> = {}): ToolDefinition =>
  defineTool({
    name: `t_${risk}`,
    description: 'x',
    params: z.object({ path: z.string().optional() }),
    risk,
    disclosure: 'public',
    effects: (a: { path?: string }) => ({ paths: a.path ? (risk === 'read-only' ? { read: [a.path] } : { write: [a.path] }) : {} }),
    execute: async () => ({ output: '' }),
    ...extra,
  }) as ToolDefinition;

describe('approval engine', () => {
  const table: [Policy, RiskTier, 'allow' | 'ask'][] = [
    ['none', 'read-only', 'ask'], ['none', 'low-risk', 'ask'], ['none', 'high-risk', 'ask'],
    ['read-only', 'read-only', 'allow'], ['read-only', 'low-risk', 'ask'], ['read-only', 'high-risk', 'ask'],
    ['low-risk', 'read-only', 'allow'], ['low-risk', 'low-risk', 'allow'], ['low-risk', 'high-risk', 'ask'],
    ['high-risk', 'read-only', 'allow'], ['high-risk', 'low-risk', 'allow'], ['high-risk', 'high-risk', 'allow'],
  ];
  it.each(table)('policy %s + %s → %s', async (policy, risk, expected) => {
    const d = await decideCall({ tool: tool(risk), args: {}, policy, tainted: false, ctx });
    expect(d.decision).toBe(expected);
    expect(d.risk).toBe(risk);
    expect(d.reasons.length).toBeGreaterThan(0);
  });

  it('treats a failing classifier as high-risk, never a downgrade', async () => {
    const t = tool('unknown', { effects: () => { throw new Error('parse error'); } });
    const d = await decideCall({ tool: t, args: {}, policy: 'low-risk', tainted: false, ctx });
    expect(d).toMatchObject({ risk: 'high-risk', decision: 'ask', rulePattern: null });
    expect(d.reasons[0]).toMatch(/classifier failed/);
  });

  it('an always-allow rule for a path clears only that path; a folder rule clears what is inside the folder', async () => {
    const t = tool('high-risk');
    const exact = [{ id: 'r1', tool: 't_high-risk', pattern: '/work/proj/a.txt' }];
    const a = await decideCall({ tool: t, args: { path: 'a.txt' }, policy: 'read-only', tainted: false, ctx, rules: exact });
    const b = await decideCall({ tool: t, args: { path: 'b.txt' }, policy: 'read-only', tainted: false, ctx, rules: exact });
    expect([a.decision, b.decision]).toEqual(['allow', 'ask']);
    expect(a.ruleIds).toEqual(['r1']);
    const folder = [{ id: 'r2', tool: 't_high-risk', pattern: '/work/proj/src/*' }];
    const inside = await decideCall({ tool: t, args: { path: 'src/deep/x.ts' }, policy: 'read-only', tainted: false, ctx, rules: folder });
    const beside = await decideCall({ tool: t, args: { path: 'srcx/x.ts' }, policy: 'read-only', tainted: false, ctx, rules: folder });
    const otherTool = await decideCall({ tool: tool('low-risk'), args: { path: 'src/x.ts' }, policy: 'read-only', tainted: false, ctx, rules: folder });
    expect([inside.decision, beside.decision, otherTool.decision]).toEqual(['allow', 'ask', 'ask']);
  });

  it('offers the folder of what a file tool touches as its rule', async () => {
    const d = await decideCall({ tool: tool('low-risk'), args: { path: 'src/a.ts' }, policy: 'read-only', tainted: false, ctx });
    expect(d).toMatchObject({ decision: 'ask', rulePattern: '/work/proj/src/*' });
  });

  it("always asks for writes into Deskhand's own data, even under high-risk", async () => {
    const d = await decideWithEveryRule({ tool: tool('high-risk'), args: { path: '/data/deskhand/deskhand.db' }, policy: 'high-risk', tainted: false, ctx });
    expect(d.decision).toBe('ask');
    expect(d.rulePattern).toBeNull();
  });

  it('stops auto-approving egress below high-risk once the run is tainted', async () => {
    const egress = tool('read-only', { effects: () => ({ egress: true }) });
    expect((await decideCall({ tool: egress, args: {}, policy: 'high-risk', tainted: false, ctx })).decision).toBe('allow');
    expect((await decideCall({ tool: egress, args: {}, policy: 'high-risk', tainted: true, ctx })).decision).toBe('ask');
    expect((await decideCall({ tool: tool('read-only'), args: {}, policy: 'read-only', tainted: true, ctx })).decision).toBe('allow');
  });

  it('hashes arguments canonically', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe('{"a":{"c":3,"d":2},"b":1}');
    expect(sha256(canonicalJson({ x: 1, y: 2 }))).toBe(sha256(canonicalJson({ y: 2, x: 1 })));
  });
});

describe('approval engine with the command classifier', () => {
  it("asks for a command writing Deskhand's own data under every policy", async () => {
    const executeCommand = builtinTool('execute_command', { dataDir: ctx.dataDir });
    const d = await decideWithEveryRule({ tool: executeCommand, args: { command: 'echo x > /data/deskhand/config.json' }, policy: 'high-risk', tainted: false, ctx });
    expect(d.decision).toBe('ask');
    expect(d.reasons.join(' ')).toMatch(/own data folder: always asks/);
  });
});
