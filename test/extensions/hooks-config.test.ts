/**
 * Hooks in Claude Code's schema (services/hooks, docs/hooks.md), as tables: how a settings file's `hooks` object is
 * read, how matchers take Deskhand's and Claude Code's tool names, how a hook's exit code and JSON are understood, and
 * the approval engine's fold with a hook's verdict (deny and ask always count; allow never clears what asks).
 */
import { describe, expect, it } from 'vitest';
import { matcherTakes, parseHooks } from '../../src/main/services/hooks/config';
import { readAnswer, type HookResult } from '../../src/main/services/hooks/run-hook';
import { decide } from '../../src/main/runtime/decision/approval-engine';
import type { HookOutcome } from '../../src/shared/lifecycle-hooks';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { z } from 'zod';

describe('parseHooks', () => {
  it('reads Claude Code\'s shape, with the default timeout, and says what it leaves out', () => {
    const parsed = parseHooks(
      {
        model: 'x',
        hooks: {
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'a.sh', timeout: 5 }, { type: 'prompt', prompt: 'judge' }] }],
          Stop: [{ hooks: [{ type: 'command', command: 'b.sh' }] }],
          PermissionRequest: [{ matcher: '', hooks: [{ type: 'command', command: 'c.sh' }] }],
        },
      },
      '/s.json',
      'person',
    );
    expect(parsed.entries.map((e) => [e.event, e.matcher, e.command, e.timeoutS])).toEqual([
      ['PreToolUse', 'Bash', 'a.sh', 5],
      ['Stop', '', 'b.sh', 60],
    ]);
    expect(parsed.skipped.join('\n')).toMatch(/type "prompt"/);
    expect(parsed.skipped.join('\n')).toMatch(/PermissionRequest: not an event Deskhand fires/);
  });

  it.each([
    [{ hooks: { PreToolUse: { matcher: 'x' } } }],
    [{ hooks: { PreToolUse: [{ matcher: 'x', hooks: 'a.sh' }] } }],
    [{ hooks: { PreToolUse: [{ hooks: [{ command: 'a.sh' }] }] } }],
    [{ hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'a.sh', timeout: -1 }] }] } }],
    [[]],
  ])('refuses a wrong shape with a sentence naming the file and the expected shape (%j)', (json) => {
    expect(() => parseHooks(json, '/p/settings.json', 'project', '/p')).toThrow(/\/p\/settings\.json/);
  });

  it('a file without hooks has none', () => {
    expect(parseHooks({ activeProvider: 'openai' }, '/s.json', 'person')).toEqual({ entries: [], skipped: [] });
  });
});

describe('matcherTakes', () => {
  const bash = { name: 'execute_command', claudeName: 'Bash' };
  const mcp = { name: 'mcp__github__create_issue' };
  it.each([
    ['', bash, true],
    ['*', bash, true],
    ['Bash', bash, true],
    ['execute_command', bash, true],
    ['Edit|Bash', bash, true],
    ['Write|Edit', bash, false],
    ['bash', bash, false],
    ['Bas', bash, false],
    ['ash', bash, false],
    ['mcp__github__.*', mcp, true],
    ['mcp__.*__create_issue', mcp, true],
    ['mcp__gitlab__.*', mcp, false],
    ['(', bash, false],
  ] as const)('%j takes %j: %s', (matcher, target, takes) => {
    expect(matcherTakes(matcher, target)).toBe(takes);
  });
});

describe('readAnswer', () => {
  const result = (r: Partial<HookResult>): HookResult => ({ exitCode: 0, stdout: '', stderr: '', timedOut: false, error: null, ...r });
  const json = (o: unknown) => result({ stdout: JSON.stringify(o) });
  it.each([
    ['exit 2: blocks with stderr', result({ exitCode: 2, stderr: 'no\n' }), { block: 'no' }],
    ['exit 2 with nothing said', result({ exitCode: 2 }), { block: 'blocked by hook h' }],
    ['exit 1: a note, not a block', result({ exitCode: 1, stderr: 'oops' }), { block: null, note: 'hook h failed (exit 1): oops; ignored' }],
    ['timed out', result({ exitCode: null, timedOut: true }), { block: null, note: 'hook h timed out and was stopped; ignored' }],
    ['could not start', result({ exitCode: null, error: 'ENOENT' }), { note: 'hook h could not start: ENOENT' }],
    ['decision block', json({ decision: 'block', reason: 'r1' }), { block: 'r1' }],
    ['permissionDecision deny', json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'r2' } }), { block: 'r2' }],
    ['permissionDecision ask', json({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'r3' } }), { permission: 'ask', permissionReason: 'r3' }],
    ['permissionDecision allow', json({ hookSpecificOutput: { permissionDecision: 'allow' } }), { permission: 'allow', block: null }],
    ['old decision approve', json({ decision: 'approve' }), { permission: 'allow' }],
    ['continue false', json({ continue: false, stopReason: 'enough' }), { stop: 'enough' }],
    ['systemMessage', json({ systemMessage: 'hi person' }), { note: 'hi person' }],
    ['additionalContext', json({ hookSpecificOutput: { additionalContext: 'ctx' } }), { context: 'ctx' }],
    ['plain stdout of PreToolUse is no context', result({ stdout: 'hello' }), { context: null }],
    ['JSON that does not parse is plain text', result({ stdout: '{nope' }), { block: null, context: null }],
  ] as const)('%s', (_what, r, expected) => {
    expect(readAnswer(r, 'PreToolUse', 'h')).toMatchObject(expected);
  });

  it('plain stdout is context for UserPromptSubmit and SessionStart only', () => {
    expect(readAnswer(result({ stdout: 'branch main\n' }), 'UserPromptSubmit', 'h').context).toBe('branch main');
    expect(readAnswer(result({ stdout: 'branch main\n' }), 'SessionStart', 'h').context).toBe('branch main');
    expect(readAnswer(result({ stdout: 'branch main\n' }), 'PostToolUse', 'h').context).toBeNull();
  });
});

describe('a PreToolUse hook in the approval engine\'s fold', () => {
  const tool = (risk: 'read-only' | 'high-risk'): ToolDefinition => ({ name: 't', description: 'd', params: z.object({}), risk, disclosure: 'public', execute: async () => ({ output: '' }) }) as unknown as ToolDefinition;
  const outcome = (o: Partial<HookOutcome>): HookOutcome => ({ block: null, permission: null, context: [], stop: null, notes: [], ran: ['h'], ...o });
  const run = (risk: 'read-only' | 'high-risk', policy: 'read-only' | 'high-risk', hook: HookOutcome | null, extra: { tainted?: boolean; egress?: boolean } = {}) =>
    decide({ tool: tool(risk), args: {}, effects: extra.egress ? { egress: true } : {}, policy, tainted: !!extra.tainted, ctx: { cwd: '/w', workspaceRoots: ['/w'], dataDir: '/d' }, hook }).decision;

  it.each([
    ['no hook: the policy clears', 'read-only', 'read-only', null, {}, 'allow'],
    ['deny beats a policy that clears', 'read-only', 'high-risk', outcome({ block: 'no' }), {}, 'deny'],
    ['ask beats a policy that clears', 'read-only', 'high-risk', outcome({ permission: { decision: 'ask', reasons: ['?'] } }), {}, 'ask'],
    ['allow clears what only the policy did not clear (as a rule would)', 'high-risk', 'read-only', outcome({ permission: { decision: 'allow', reasons: ['ok'] } }), {}, 'allow'],
    ['allow never clears taint', 'read-only', 'high-risk', outcome({ permission: { decision: 'allow', reasons: ['ok'] } }), { tainted: true, egress: true }, 'ask'],
    ['notes alone change nothing', 'high-risk', 'read-only', outcome({ notes: ['timed out'] }), {}, 'ask'],
  ] as const)('%s', (_what, risk, policy, hook, extra, expected) => {
    expect(run(risk, policy, hook, extra)).toBe(expected);
  });
});
