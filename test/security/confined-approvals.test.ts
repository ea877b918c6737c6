/**
 * Issue 46, "ask only where it protects": the confined inspector lets a sandboxed command (network off, writes only in
 * the workspace) and a built-in workspace write run unasked where the change ledger records the roots, and nothing
 * else. Each row is a real decision of the real tools over a real folder; the must-ask rows hold under `high-risk`.
 * Then taint by source: which command outputs are the workspace's own text and which stay untrusted.
 */
import { mkdirSync, writeFileSync, truncateSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { ledgerRecords } from '../../src/main/services/ledger/recordable';
import { osSandbox } from '../../src/main/services/sandbox';
import { commandOutputSource } from '../../src/main/tools/shell/output-source';
import type { Policy } from '../../src/shared/tools';
import type { SandboxMode } from '../../src/shared/sandbox';
import { tempDir } from '../support/tool-context';
import { builtinTool } from '../support/tools';

const data = tempDir('deskhand-confined-data-');
const ws = tempDir('deskhand-confined-ws-');
const outside = tempDir('deskhand-confined-out-');
const tools: Record<string, ToolDefinition> = {};

beforeAll(() => {
  for (const name of ['execute_command', 'write_file', 'edit_file', 'mkdir', 'rm', 'web_fetch']) tools[name] = builtinTool(name, { dataDir: data });
  mkdirSync(join(ws, 'src'));
  mkdirSync(join(ws, 'node_modules', 'x'), { recursive: true });
  mkdirSync(join(ws, 'build'));
  mkdirSync(join(ws, 'pkg', 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(ws, '.gitignore'), 'build/\n');
  writeFileSync(join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(ws, 'package.json'), '{"scripts":{"test":"node t.js"}}\n');
  writeFileSync(join(ws, 'big.bin'), '');
  truncateSync(join(ws, 'big.bin'), 9 * 1024 * 1024);
});

interface Row {
  tool: string;
  args: Record<string, unknown>;
  expected: 'allow' | 'ask' | 'deny';
  policy?: Policy;
  tainted?: boolean;
  /** false: no ledger in the process (the engine is told nothing); 'roots': a ledger that does not record these roots. */
  recorded?: boolean | 'roots';
  sandbox?: SandboxMode;
  held?: string[];
}

async function decide(row: Row) {
  const ctx = { cwd: ws, workspaceRoots: [ws], dataDir: data, ...(row.sandbox ? { sandbox: row.sandbox } : {}) };
  return decideCall({
    tool: tools[row.tool]!,
    args: row.args,
    policy: row.policy ?? 'read-only',
    tainted: !!row.tainted,
    ctx,
    ...(row.held ? { heldSecrets: new Set(row.held) } : {}),
    ...(row.recorded === false ? {} : { recorded: (w: readonly string[]) => row.recorded !== 'roots' && ledgerRecords([ws], data, w) }),
  });
}

const cmd = (command: string, expected: Row['expected'], extra: Partial<Row> = {}): Row => ({ tool: 'execute_command', expected, ...extra, args: { command, ...(extra.args ?? {}) } });

describe('confined calls run unasked at the default policy; everything else asks as before', () => {
  // Like the sandbox tests: this fails (not skips) where bubblewrap cannot run; confinement needs the sandbox.
  it('the OS sandbox is available here', () => {
    expect(osSandbox.support().available, osSandbox.support().detail).toBe(true);
  });

  const rows: Row[] = [
    // Confined commands: the sandbox (network off, workspace-only writes) and the ledger (rewind) protect.
    cmd('npm test', 'allow'),
    cmd('node t.js', 'allow'),
    cmd('npm test 2>&1 | tail -5', 'allow'),
    cmd('sed -i s/1/2/ src/a.ts', 'allow'),
    cmd('mkdir -p docs && mv notes.md docs/', 'allow'),
    // A package manifest or build file a call names: its scripts run later, so it is not confined (the policy decides).
    cmd('mkdir -p docs && mv package.json docs/', 'ask'),
    cmd("sed -i s/test/x/ package.json", 'ask'),
    cmd('echo x >> Cargo.toml', 'ask'),
    cmd('python3 compare.py old.csv new.csv', 'allow'),
    cmd('git init -q', 'allow'),
    cmd('npm test', 'allow', { policy: 'low-risk' }),
    cmd('npm test', 'allow', { sandbox: 'read-only', recorded: 'roots' }),
    cmd('npm test', 'ask', { sandbox: 'read-only', recorded: false }),
    cmd('npm test', 'ask', { recorded: 'roots' }),
    // The network client cannot connect in the sandbox; once tainted, it asks (taint).
    cmd('git push origin main', 'allow'),
    cmd('git push origin main', 'ask', { tainted: true, policy: 'high-risk' }),
    cmd('curl https://example.com', 'ask', { tainted: true, policy: 'high-risk' }),
    // Not confined, or not recorded: asks.
    cmd('npm test', 'ask', { policy: 'none' }),
    cmd('npm test', 'ask', { recorded: false }),
    cmd('npm test', 'ask', { sandbox: 'off', policy: 'high-risk' }),
    cmd('npm install left-pad', 'ask', { args: { network: true }, policy: 'high-risk' }),
    cmd('git commit -qm x', 'ask', { args: { outside_sandbox: true }, policy: 'high-risk' }),
    cmd('ls', 'ask', { args: { cwd: outside }, policy: 'high-risk' }),
    cmd('echo x > AGENTS.md', 'ask', { policy: 'high-risk' }),
    cmd('echo x >> Makefile', 'ask', { policy: 'high-risk' }),
    cmd('cp src/a.ts .git/hooks/pre-commit', 'ask', { policy: 'high-risk' }),
    cmd('cat ~/.ssh/id_rsa', 'deny', { policy: 'high-risk' }),
    cmd('cat .env', 'ask', { policy: 'high-risk' }),
    cmd(`echo x > ${join(data, 'config.json')}`, 'ask', { policy: 'high-risk' }),
    cmd('echo [redacted:TOKEN] > t.txt', 'ask', { held: ['TOKEN'], policy: 'high-risk' }),
    cmd('sed -i s/a/b/ node_modules/x/i.js', 'ask'),
    cmd('rm -rf build/out', 'ask'),
    cmd('cd build && rm -rf out', 'ask'),
    cmd('rm -rf node_modules', 'ask'),
    cmd('rm -rf src', 'allow'),
    // Built-in file tools: workspace writes the ledger keeps run; the rest asks.
    { tool: 'write_file', args: { path: 'notes.md', content: 'x' }, expected: 'allow' },
    { tool: 'edit_file', args: { path: 'src/a.ts', old_string: '1', new_string: '2' }, expected: 'allow' },
    { tool: 'mkdir', args: { path: 'docs' }, expected: 'allow' },
    { tool: 'rm', args: { path: 'src/a.ts' }, expected: 'allow' },
    { tool: 'rm', args: { path: 'src', recursive: true }, expected: 'allow' },
    { tool: 'rm', args: { path: 'node_modules', recursive: true }, expected: 'ask' },
    { tool: 'rm', args: { path: 'pkg', recursive: true }, expected: 'ask' },
    { tool: 'write_file', args: { path: 'notes.md', content: 'x' }, expected: 'ask', policy: 'none' },
    { tool: 'write_file', args: { path: 'package.json', content: '{}' }, expected: 'ask' },
    { tool: 'edit_file', args: { path: 'sub/pyproject.toml', old_string: '1', new_string: '2' }, expected: 'ask' },
    { tool: 'write_file', args: { path: 'build.rs', content: 'fn main() {}' }, expected: 'ask' },
    { tool: 'write_file', args: { path: 'notes.md', content: 'x' }, expected: 'ask', recorded: false },
    { tool: 'write_file', args: { path: 'node_modules/x/i.js', content: 'x' }, expected: 'ask' },
    { tool: 'write_file', args: { path: 'build/out.js', content: 'x' }, expected: 'ask' },
    { tool: 'write_file', args: { path: 'big.bin', content: 'x' }, expected: 'ask' },
    { tool: 'write_file', args: { path: join(outside, 'x.txt'), content: 'x' }, expected: 'ask', policy: 'high-risk' },
    { tool: 'write_file', args: { path: 'AGENTS.md', content: 'x' }, expected: 'ask', policy: 'high-risk' },
    { tool: 'write_file', args: { path: 'Makefile', content: 'x' }, expected: 'ask', policy: 'high-risk' },
    { tool: 'write_file', args: { path: '.git/hooks/pre-commit', content: 'x' }, expected: 'ask', policy: 'high-risk' },
    { tool: 'write_file', args: { path: '~/.bashrc', content: 'x' }, expected: 'ask', policy: 'high-risk' },
    { tool: 'write_file', args: { path: '.env', content: 'x' }, expected: 'ask', policy: 'high-risk' },
    // Egress is never confined: after untrusted content it asks under every policy.
    { tool: 'web_fetch', args: { url: 'https://example.com/' }, expected: 'ask', tainted: true, policy: 'high-risk' },
  ];
  it.each(rows.map((r) => [`${r.tool} ${JSON.stringify(r.args)} ${r.policy ?? 'read-only'}${r.tainted ? ' tainted' : ''}${r.recorded === false ? ' no ledger' : r.recorded === 'roots' ? ' roots unrecorded' : ''}${r.sandbox ? ` sandbox ${r.sandbox}` : ''}`, r] as const))('%s', async (_name, row) => {
    const d = await decide(row);
    expect(d.decision, d.reasons.join(' | ')).toBe(row.expected);
    const confined = d.inspectors.find((r) => r.inspector === 'confined')!;
    if (row.expected === 'allow' && (row.policy ?? 'read-only') === 'read-only' && row.tool !== 'web_fetch') expect(confined.verdict).toBe('allow');
    if (row.expected === 'allow') expect(d.reasons.join(' ')).toMatch(/needs no card/);
  });

  it('a root the ledger does not record (the home folder) is not confined', async () => {
    expect(ledgerRecords([homedir()], data)).toBe(false);
    expect(ledgerRecords(['/'], data)).toBe(false);
    expect(ledgerRecords([join(ws, 'nope')], data)).toBe(false);
    expect(ledgerRecords([ws], data)).toBe(true);
  });
});

describe('taint by source: whose words a command prints', () => {
  const plan = { kind: 'bubblewrap' as const, network: false };
  const roots = [ws];
  const rows: [string, string | null, Partial<{ plan: typeof plan | { kind: null; network: boolean }; cwd: string }>?][] = [
    ['npm test', null],
    ['npm test 2>&1 | tail -5', null],
    ['node t.js 2>/dev/null', null],
    ['cat src/a.ts', null],
    ['grep -rn a src/', null],
    ["sed -n '1,5p' src/a.ts", null],
    ['git log --oneline', null],
    ['cat ~/Downloads/page.html', 'command output'],
    ['cat downloads/page.html', 'command output'],
    ['cat Downloads/x.txt', 'command output'],
    [`cat ${outside}/x.txt`, 'command output'],
    ['cat ../other/x', 'command output'],
    ['cat /etc/passwd', 'command output'],
    ['cat $HOME/x', 'command output'],
    ['cat `ls`', 'command output'],
    ['cat *.txt', 'command output'],
    ['python3 compare.py ~/Downloads/a.csv', 'command output'],
    ['node fetch.js https://example.com', 'command output'],
    ['npm test', 'command output', { plan: { kind: null, network: false } }],
    ['npm test', 'command output', { plan: { kind: 'bubblewrap', network: true } as never }],
    ['ls', 'command output', { cwd: outside }],
  ];
  it.each(rows)('%s → %s', (command, expected, extra = {}) => {
    expect(commandOutputSource(command, extra.cwd ?? ws, (extra.plan ?? plan) as never, roots, [])).toBe(expected);
  });

  it('a checked path outside the workspace, or untrusted, keeps the output untrusted', () => {
    const check = (root: string | null, resolved: string, untrusted = false) => ({ root, resolved, untrusted, error: undefined }) as never;
    expect(commandOutputSource('cat a', ws, plan, roots, [check(ws, join(ws, 'a'))])).toBeNull();
    expect(commandOutputSource('cat a', ws, plan, roots, [check(null, '/elsewhere/a')])).toBe('command output');
    expect(commandOutputSource('cat a', ws, plan, roots, [check(ws, join(ws, 'downloads', 'a'))])).toBe('command output');
    expect(commandOutputSource('cat a', ws, plan, roots, [check(ws, join(ws, 'a'), true)])).toBe('command output');
  });
});
