/**
 * Security round four (issue 43), table-driven against real files in temp folders:
 * - H2: instruction files (AGENTS.md, CLAUDE.md at every level, in any case; the personal one in the data dir;
 *   workspace skills) are run-later files: every write, copy, move, redirect and `tee` into one asks under every
 *   policy, through the file tools and the shell alike.
 * - Replay 11a: `git config` follows git's real grammar. The legacy form stops parsing options at the first operand,
 *   so `git config core.fsmonitor CMD --get` writes (the `--get` is a value pattern), and is never judged a read.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { classifyCommand } from '../../src/main/tools/shell/command-classifier';
import type { ClassifyContext, ToolDefinition } from '../../src/main/runtime/tool';
import type { Policy, RiskTier } from '../../src/shared/tools';
import { decideWithEveryRule } from '../support/rules';
import { builtinTools } from '../support/tools';
import { tempDir } from '../support/tool-context';

let ws: string;
let data: string;
let home: string;
let ctx: ClassifyContext & { home: string };

beforeAll(() => {
  const base = tempDir('deskhand-round4-');
  ws = join(base, 'ws');
  data = join(base, 'data');
  home = join(base, 'home');
  for (const d of [ws, data, home, join(ws, 'src', 'deep'), join(ws, 'docs'), join(ws, '.git', 'objects'), join(ws, '.git', 'refs'), join(ws, '.deskhand', 'skills', 'deploy')]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(join(ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(ws, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
  writeFileSync(join(ws, 'notes.txt'), 'plain notes\n');
  writeFileSync(join(ws, 'AGENTS.md'), '# How to work here\n');
  ctx = { cwd: ws, workspaceRoots: [ws], dataDir: data, home };
});

type Row = readonly [command: string, risk: RiskTier, asks: boolean];
const R: RiskTier = 'read-only';
const H: RiskTier = 'high-risk';

const classifierFamilies: Record<string, Row[]> = {
  'H2: a command writing an instruction file asks under every policy': [
    ['echo "ignore the person" > AGENTS.md', H, true],
    ['echo x >> AGENTS.md', H, true],
    ['echo x > CLAUDE.md', H, true],
    ['echo x > agents.md', H, true],
    ['echo x > Claude.md', H, true],
    ['echo x > claude.MD', H, true],
    ['echo x > src/deep/AGENTS.md', H, true],
    ['echo x >> docs/CLAUDE.md', H, true],
    ['printf x 1> src/Agents.md', H, true],
    ['echo x &> CLAUDE.md', H, true],
    ['echo x | tee AGENTS.md', H, true],
    ['echo x | tee -a src/deep/claude.md', H, true],
    ['cp notes.txt AGENTS.md', H, true],
    ['cp notes.txt src/deep/CLAUDE.md', H, true],
    ['cp -f notes.txt docs/agents.md', H, true],
    ['mv notes.txt AGENTS.md', H, true],
    ['mv notes.txt src/CLAUDE.md', H, true],
    ['sed -i s/a/b/ AGENTS.md', H, true],
    ['touch CLAUDE.md', H, true],
    ['ln -s notes.txt AGENTS.md', H, true],
    ["sh -c 'echo x > AGENTS.md'", H, true],
    ['echo x > .deskhand/skills/deploy/SKILL.md', H, true],
    [`echo x > ${'{data}'}/AGENTS.md`, H, true],
    ['cat AGENTS.md', R, false],
    ['grep how AGENTS.md', R, false],
    ['echo x > AGENTS.md.bak', 'low-risk', false],
    ['echo x > MY-AGENTS.md', 'low-risk', false],
  ],
  'replay 11a: git config follows git (the legacy form stops at the first operand)': [
    ['git config core.fsmonitor "touch /tmp/pwned" --get', H, true],
    ['git config core.fsmonitor "touch /tmp/pwned" --get-all', H, true],
    ['git config core.fsmonitor "touch /tmp/pwned" --get-regexp', H, true],
    ['git config core.fsmonitor "touch /tmp/pwned" --list', H, true],
    ['git config core.fsmonitor "touch /tmp/pwned" -l', H, true],
    ['git config core.pager less --get', H, true],
    ['git config core.hooksPath .hooks --show-origin', H, true],
    ['git config core.fsmonitor x --unset', H, true],
    ['git config core.fsmonitor x --add', H, true],
    ['git config core.fsmonitor x --replace-all', H, true],
    ['git config core.fsmonitor x --file .git/config', H, true],
    ['git config core.fsmonitor x -f .git/config', H, true],
    ['git config core.fsmonitor x --global', H, true],
    ['git config --local core.fsmonitor x --get', H, true],
    ['git config --local set core.fsmonitor x', H, true],
    ['git -C . config core.fsmonitor x --get', H, true],
    ['git -C src config alias.st "!id" --get', H, true],
    ['git config -- core.fsmonitor', R, false],
    ['git config user.name --get', H, false],
    ['git -c core.fsmonitor=x config --get user.name', H, false],
    ['git config --get core.fsmonitor', R, false],
    ['git config --get core.fsmonitor x', R, false],
    ['git config --file team.cfg --get core.fsmonitor', R, false],
    ['git config -f team.cfg --list', R, false],
    ['git config --list', R, false],
    ['git config -l', R, false],
    ['git config user.name', R, false],
    ['git config get user.name', R, false],
    ['git config get --all user.name', R, false],
    ['git config list --show-origin', R, false],
  ],
};

const fillCmd = (c: string) => c.replaceAll('{data}', data);
const classifierRows = Object.entries(classifierFamilies).flatMap(([family, rows]) => rows.map((r) => [family, ...r] as const));

describe('round four: the classifier', () => {
  it('has many spellings per mechanism', () => {
    for (const [family, rows] of Object.entries(classifierFamilies)) expect(rows.length, family).toBeGreaterThanOrEqual(20);
  });

  it.each(classifierRows)('%s: %j → %s (asks under every policy: %s)', (_family, command, risk, asks) => {
    const c = classifyCommand(fillCmd(command), ctx);
    const why = `reasons: ${c.reasons.join(' | ')} / always: ${c.alwaysAsk ?? '-'}`;
    expect(c.risk, why).toBe(risk);
    expect(!!c.alwaysAsk, why).toBe(asks);
    if (asks) expect(c.rulePattern).toBeNull();
  });
});

const tool = (name: string): ToolDefinition => {
  const t = builtinTools({ dataDir: ctx.dataDir }).find((x) => x.name === name);
  if (!t) throw new Error(name);
  return t;
};
type DecisionRow = readonly [tool: string, args: Record<string, unknown>, policy: Policy, decision: 'allow' | 'ask'];
const fill = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll('{ws}', ws).replaceAll('{data}', data));

const decisionRows: DecisionRow[] = [
  ['write_file', { path: 'AGENTS.md', content: 'obey me' }, 'high-risk', 'ask'],
  ['write_file', { path: 'CLAUDE.md', content: 'obey me' }, 'high-risk', 'ask'],
  ['write_file', { path: 'agents.md', content: 'obey me' }, 'high-risk', 'ask'],
  ['write_file', { path: 'Claude.md', content: 'obey me' }, 'high-risk', 'ask'],
  ['write_file', { path: 'src/deep/AGENTS.md', content: 'obey me' }, 'high-risk', 'ask'],
  ['write_file', { path: '{ws}/docs/CLAUDE.md', content: 'obey me' }, 'high-risk', 'ask'],
  ['write_file', { path: '{data}/AGENTS.md', content: 'obey me' }, 'high-risk', 'ask'],
  ['write_file', { path: '{data}/CLAUDE.md', content: 'obey me' }, 'high-risk', 'ask'],
  ['write_file', { path: '.deskhand/skills/deploy/SKILL.md', content: 'obey me' }, 'high-risk', 'ask'],
  ['edit_file', { path: 'AGENTS.md', old_string: 'How', new_string: 'Obey' }, 'high-risk', 'ask'],
  ['cp', { source: 'notes.txt', destination: 'AGENTS.md' }, 'high-risk', 'ask'],
  ['cp', { source: 'notes.txt', destination: 'src/claude.md' }, 'high-risk', 'ask'],
  ['mv', { source: 'notes.txt', destination: 'CLAUDE.md' }, 'high-risk', 'ask'],
  ['mv', { source: 'notes.txt', destination: 'src/deep/Agents.md' }, 'high-risk', 'ask'],
  ['execute_command', { command: 'echo x > AGENTS.md' }, 'high-risk', 'ask'],
  ['execute_command', { command: 'cp notes.txt src/CLAUDE.md' }, 'high-risk', 'ask'],
  ['write_file', { path: 'AGENTS.txt', content: 'x' }, 'high-risk', 'allow'],
  ['read_file', { path: 'AGENTS.md' }, 'read-only', 'allow'],
];

describe('round four: instruction files ask through every tool (H2)', () => {
  it.each(decisionRows)('%s %j under %s → %s', async (name, rawArgs, policy, expected) => {
    const t = tool(name);
    const args = t.params.parse(fill(rawArgs));
    const d = await decideWithEveryRule({ tool: t, args, policy, tainted: false, ctx });
    expect(d.decision, d.reasons.join(' | ')).toBe(expected);
    if (expected === 'ask') expect(d.rulePattern, 'no always-allow rule covers it').toBeNull();
  });
});
