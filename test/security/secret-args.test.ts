/**
 * Secret placeholders, table-driven: where `[redacted:NAME]` may appear (only in a tool's declared secret arguments,
 * only for secrets the run holds), that such a call always asks under every policy, and that the value is put into a
 * shell command quoted for where it sits, so no character of a secret changes what the command does.
 */
import { decideWithEveryRule } from '../support/rules';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkPlaceholders, substituteSecrets, substituteShell } from '../../src/main/runtime/decision/secret-args';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { writeFileTool } from '../../src/main/tools/files/write-file';
import type { Policy } from '../../src/shared/tools';
import { builtinTool } from '../support/tools';

const held = new Set(['TOKEN', 'DB_PASS']);
const tool = (secretArgs?: string[]): { name: string; secretArgs?: string[] } => ({ name: 't', ...(secretArgs ? { secretArgs } : {}) });

type Row = readonly [what: string, secretArgs: string[] | undefined, args: unknown, verdict: 'none' | 'use' | 'refuse'];
const placement: Row[] = [
  ['no placeholder anywhere', ['command'], { command: 'ls' }, 'none'],
  ['placeholder in the declared argument', ['command'], { command: 'curl -H "x: [redacted:TOKEN]"' }, 'use'],
  ['two held placeholders', ['command'], { command: 'a [redacted:TOKEN] [redacted:DB_PASS]' }, 'use'],
  ['placeholder in an undeclared argument', ['command'], { command: 'ls', cwd: '[redacted:TOKEN]' }, 'refuse'],
  ['tool declares nothing', undefined, { content: 'x=[redacted:TOKEN]' }, 'refuse'],
  ['nested inside an object', ['command'], { command: 'ls', env: { A: '[redacted:TOKEN]' } }, 'refuse'],
  ['nested inside an array', ['command'], { command: 'ls', list: ['[redacted:TOKEN]'] }, 'refuse'],
  ['placeholder for a secret the run does not hold', ['command'], { command: 'echo [redacted:OTHER]' }, 'refuse'],
  ['placeholder from redacted output (a shape)', ['command'], { command: 'echo [redacted:github-token]' }, 'refuse'],
  ['text that only looks similar', ['command'], { command: 'echo [redacted] [redacted:] redacted:TOKEN' }, 'none'],
];

describe('placeholders: where they may appear', () => {
  it.each(placement)('%s', (_what, secretArgs, args, verdict) => {
    const v = checkPlaceholders(tool(secretArgs), args, held);
    const got = v.refused ? 'refuse' : v.used.length ? 'use' : 'none';
    expect(got, v.refused ?? '').toBe(verdict);
    if (v.refused) expect(v.refused).toMatch(/redacted/);
  });
});

const echoTool = defineTool({
  name: 'echo_secret',
  description: 'test tool with a secret argument',
  params: z.object({ text: z.string(), note: z.string().optional() }),
  risk: 'read-only',
  disclosure: 'public',
  effects: () => ({ secretArgs: ['text'] }),
  execute: async () => ({ output: '' }),
}) as ToolDefinition;

type DecideRow = readonly [what: string, tool: ToolDefinition, args: Record<string, unknown>, policy: Policy, decision: 'allow' | 'ask' | 'deny'];
const ctx = { cwd: '/tmp', workspaceRoots: ['/tmp'], dataDir: '/nonexistent/deskhand-data' };
const executeCommand = builtinTool('execute_command', { dataDir: ctx.dataDir });
const decisions: DecideRow[] = [
  ['read-only tool, no secret, read-only policy', echoTool, { text: 'hi' }, 'read-only', 'allow'],
  ['read-only tool with a held secret, high-risk policy', echoTool, { text: '[redacted:TOKEN]' }, 'high-risk', 'ask'],
  ['read-only tool with a held secret, read-only policy', echoTool, { text: '[redacted:TOKEN]' }, 'read-only', 'ask'],
  ['placeholder outside the secret argument', echoTool, { text: 'x', note: '[redacted:TOKEN]' }, 'high-risk', 'deny'],
  ['placeholder for an unheld secret', echoTool, { text: '[redacted:NOPE]' }, 'high-risk', 'deny'],
  ['execute_command with a held secret, high-risk policy', executeCommand, { command: 'echo [redacted:TOKEN]' }, 'high-risk', 'ask'],
  ['execute_command with an unheld secret', executeCommand, { command: 'echo [redacted:NOPE]' }, 'high-risk', 'deny'],
  ['execute_command with a placeholder in cwd', executeCommand, { command: 'ls', cwd: '[redacted:TOKEN]' }, 'high-risk', 'deny'],
  ['write_file writing a placeholder into a file', writeFileTool as ToolDefinition, { path: '/tmp/x.env', content: 'KEY=[redacted:TOKEN]' }, 'high-risk', 'deny'],
];

describe('placeholders: decisions', () => {
  it.each(decisions)('%s → %s', async (_what, t, args, policy, expected) => {
    const d = await decideWithEveryRule({ tool: t, args: t.params.parse(args), policy, tainted: false, ctx, heldSecrets: held });
    expect(d.decision, d.reasons.join(' | ')).toBe(expected);
    if (expected === 'ask') {
      expect(d.rulePattern).toBeNull();
      expect(d.reasons.join(' ')).toMatch(/\[redacted:TOKEN\].*always asks/);
    }
  });
});

// Values that would change a command if pasted raw.
const nasty = ['plain', 'with space', "it's", 'say "hi"', 'dollar $HOME and $(id) and `id`', 'back\\slash', 'semi;colon && rm -rf /', 'new\nline', '!bang', '*glob?', "'; echo pwned; '"];
type ShellRow = readonly [what: string, template: string];
const contexts: ShellRow[] = [
  ['bare word', 'printf %s [redacted:V]'],
  ['inside double quotes', 'printf %s "[redacted:V]"'],
  ['inside single quotes', "printf %s '[redacted:V]'"],
  ['glued to text in double quotes', 'printf %s "pre-[redacted:V]-post"'],
  ['glued to text in single quotes', "printf %s 'pre-[redacted:V]-post'"],
];

describe('shell substitution keeps every value data', () => {
  const rows = nasty.flatMap((value) => contexts.map(([what, template]) => [value, what, template] as const));
  it.each(rows)('%j %s', (value, _what, template) => {
    const command = substituteShell(template, new Map([['V', value]]));
    const out = execFileSync('/bin/bash', ['-c', command], { encoding: 'utf8' });
    const expected = template.includes('pre-') ? `pre-${value}-post` : value;
    expect(out).toBe(expected);
  });

  it('substitutes only declared arguments', () => {
    const args = { command: 'echo [redacted:TOKEN]', cwd: 'x' };
    expect(substituteSecrets(args, { secretArgs: ['command'], secretQuoting: 'shell' }, new Map([['TOKEN', 'v a l']]))).toEqual({ command: "echo 'v a l'", cwd: 'x' });
    expect(substituteSecrets(args, {}, new Map([['TOKEN', 'v']]))).toBe(args);
  });
});
