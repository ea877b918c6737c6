/**
 * Path containment, table-driven, against real files in temp folders: symlinks (inside, outside, dangling, chained,
 * loops, `..` after a link), hard links, a second workspace root, Deskhand's data dir, and sensitive paths under a
 * fake home. Then the approval engine over the real file tools, and the open-then-verify defences against a path
 * swapped between the check and the use.
 */
import { decideWithEveryRule } from '../support/rules';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { linkSync, mkdirSync, renameSync, symlinkSync, writeFileSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PathGuard, openVerified, recheckPaths, type GuardContext, type PathAccess, type SensitiveKind } from '../../src/main/runtime/decision/path-guard';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { createFileFamily } from '../../src/main/tools/files';
import { classifyCommand } from '../../src/main/tools/shell/command-classifier';
import { atomicWriteFile } from '../../src/main/tools/files/atomic-write';
import type { Policy } from '../../src/shared/tools';
import { makeContext, tempDir } from '../support/tool-context';

let ws: string;
let ws2: string;
let out: string;
let data: string;
let home: string;
let ctx: GuardContext;

beforeAll(() => {
  const base = tempDir('deskhand-guard-');
  ws = join(base, 'ws');
  ws2 = join(base, 'ws2');
  out = join(base, 'out');
  data = join(base, 'data');
  home = join(base, 'home');
  for (const d of [ws, ws2, out, data, home, join(ws, 'sub'), join(ws, '.git', 'hooks'), join(ws, '.git', 'objects'), join(home, '.ssh'), join(home, '.aws'), join(home, '.config', 'gcloud'), join(home, '.kube'), join(home, '.docker'), join(home, '.config', 'fish')]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(join(ws, 'file.txt'), 'x');
  writeFileSync(join(ws, 'sub', 'inner.txt'), 'x');
  writeFileSync(join(ws2, 'other.txt'), 'x');
  writeFileSync(join(out, 'secret.txt'), 'outside');
  writeFileSync(join(out, 'victim.txt'), 'x');
  writeFileSync(join(ws, '.git', 'config'), '[core]');
  writeFileSync(join(ws, '.git', 'hooks', 'pre-commit'), '#!/bin/sh');
  writeFileSync(join(ws, '.bashrc'), '');
  writeFileSync(join(ws, '.env'), 'API_KEY=x');
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'key');
  writeFileSync(join(data, 'deskhand.db'), '');
  symlinkSync(join(ws, 'sub'), join(ws, 'link-in'));
  symlinkSync(out, join(ws, 'link-out'));
  symlinkSync(join(out, 'secret.txt'), join(ws, 'link-file-out'));
  symlinkSync(join(ws, 'file.txt'), join(ws, 'link-file-in'));
  symlinkSync(join(out, 'missing', 'x'), join(ws, 'dangling'));
  symlinkSync('..', join(ws, 'sub', 'up'));
  symlinkSync(join(ws, 'link-out'), join(ws, 'chain'));
  symlinkSync(join(ws, 'loop-b'), join(ws, 'loop-a'));
  symlinkSync(join(ws, 'loop-a'), join(ws, 'loop-b'));
  symlinkSync(join(home, '.ssh', 'id_rsa'), join(ws, 'innocent.txt'));
  symlinkSync(join(data, 'deskhand.db'), join(ws, 'db-link'));
  linkSync(join(out, 'victim.txt'), join(ws, 'hard.txt'));
  ctx = { cwd: ws, workspaceRoots: [ws, ws2], dataDir: data, home };
});

interface Expect {
  inside: boolean;
  risk: 'read-only' | 'low-risk' | 'high-risk';
  ask?: boolean;
  sensitive?: SensitiveKind;
  untrusted?: boolean;
  resolvesTo?: (dirs: { ws: string; out: string; home: string; data: string }) => string;
}
type Row = readonly [what: string, input: string, access: PathAccess, expected: Expect];

const containment: Row[] = [
  ['plain file inside, read', 'file.txt', 'read', { inside: true, risk: 'read-only' }],
  ['plain file inside, write', 'file.txt', 'write', { inside: true, risk: 'low-risk' }],
  ['new file inside, write', 'sub/new.txt', 'write', { inside: true, risk: 'low-risk' }],
  ['nested new folders inside', 'a/b/c/d.txt', 'write', { inside: true, risk: 'low-risk' }],
  ['the workspace root itself', '.', 'read', { inside: true, risk: 'read-only' }],
  ['absolute path inside', '{ws}/sub/inner.txt', 'read', { inside: true, risk: 'read-only' }],
  ['second workspace root', '{ws2}/other.txt', 'read', { inside: true, risk: 'read-only' }],
  ['second workspace root, write', '{ws2}/new.txt', 'write', { inside: true, risk: 'low-risk' }],
  ['.. leaves the workspace', '../out/secret.txt', 'read', { inside: false, risk: 'low-risk', untrusted: true }],
  ['.. leaves the workspace, write (asks under every policy)', '../out/new.txt', 'write', { inside: false, risk: 'high-risk', ask: true }],
  ['absolute path outside', '{out}/secret.txt', 'read', { inside: false, risk: 'low-risk', untrusted: true }],
  ['/etc/passwd', '/etc/passwd', 'read', { inside: false, risk: 'low-risk', untrusted: true }],
  ['/etc/passwd, write', '/etc/passwd', 'write', { inside: false, risk: 'high-risk', ask: true }],
  ['dot segments that stay inside', 'sub/../file.txt', 'read', { inside: true, risk: 'read-only' }],
  ['link to a folder inside', 'link-in/inner.txt', 'read', { inside: true, risk: 'read-only', resolvesTo: (d) => join(d.ws, 'sub', 'inner.txt') }],
  ['link to a folder inside, write through it', 'link-in/new.txt', 'write', { inside: true, risk: 'high-risk', ask: true }],
  ['link to a folder outside, read', 'link-out/secret.txt', 'read', { inside: false, risk: 'low-risk', untrusted: true, resolvesTo: (d) => join(d.out, 'secret.txt') }],
  ['link to a folder outside, write', 'link-out/new.txt', 'write', { inside: false, risk: 'high-risk', ask: true }],
  ['link to a file outside, read', 'link-file-out', 'read', { inside: false, risk: 'low-risk', untrusted: true }],
  ['link to a file outside, write', 'link-file-out', 'write', { inside: false, risk: 'high-risk', ask: true }],
  ['link to a file inside, read', 'link-file-in', 'read', { inside: true, risk: 'read-only' }],
  ['link to a file inside, write through it', 'link-file-in', 'write', { inside: true, risk: 'high-risk', ask: true }],
  ['dangling link, write lands where it points', 'dangling', 'write', { inside: false, risk: 'high-risk', ask: true, resolvesTo: (d) => join(d.out, 'missing', 'x') }],
  ['dangling link, read', 'dangling', 'read', { inside: false, risk: 'low-risk', untrusted: true }],
  ['chained links end outside', 'chain/secret.txt', 'read', { inside: false, risk: 'low-risk', untrusted: true, resolvesTo: (d) => join(d.out, 'secret.txt') }],
  ['link loop', 'loop-a', 'read', { inside: false, risk: 'high-risk', ask: true }],
  ['link to .. goes to the parent of the link folder', 'sub/up/file.txt', 'read', { inside: true, risk: 'read-only', resolvesTo: (d) => join(d.ws, 'file.txt') }],
  ['hard-linked file, read', 'hard.txt', 'read', { inside: true, risk: 'read-only' }],
  ['hard-linked file, write', 'hard.txt', 'write', { inside: true, risk: 'high-risk', ask: true }],
  ['git objects, write', '.git/objects/x', 'write', { inside: true, risk: 'high-risk' }],
  ['innocent-looking link to an SSH key', 'innocent.txt', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['link into the data dir', 'db-link', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'deskhand-data' }],
  ['~ expands to home', '~/notes.txt', 'read', { inside: false, risk: 'low-risk', untrusted: true }],
  ['empty path is refused', '   ', 'read', { inside: false, risk: 'read-only' }],
];

const sensitive: Row[] = [
  ['~/.ssh/id_rsa', '~/.ssh/id_rsa', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['~/.ssh/authorized_keys write', '~/.ssh/authorized_keys', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'credentials' }],
  ['~/.ssh folder', '~/.ssh', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['~/.aws/credentials', '~/.aws/credentials', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['~/.config/gcloud', '~/.config/gcloud/credentials.db', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['~/.kube/config', '~/.kube/config', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['~/.docker/config.json', '~/.docker/config.json', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['~/.netrc', '~/.netrc', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['~/.npmrc', '~/.npmrc', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'credentials' }],
  ['~/.git-credentials', '~/.git-credentials', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['~/.gnupg', '~/.gnupg/private-keys-v1.d/x.key', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['a private key in the workspace', 'deploy/id_ed25519', 'read', { inside: true, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
  ['~/.bashrc', '~/.bashrc', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'startup' }],
  ['~/.profile', '~/.profile', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'startup' }],
  ['~/.zshrc', '~/.zshrc', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'startup' }],
  ['~/.zshenv', '~/.zshenv', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'startup' }],
  ['fish config', '~/.config/fish/config.fish', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'startup' }],
  ['autostart entry', '~/.config/autostart/x.desktop', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'startup' }],
  ['systemd user unit', '~/.config/systemd/user/x.service', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'startup' }],
  ['/etc/profile.d', '/etc/profile.d/x.sh', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'startup' }],
  ['.bashrc in the workspace', '.bashrc', 'write', { inside: true, risk: 'high-risk', ask: true, sensitive: 'startup' }],
  ['.envrc (direnv runs it)', '.envrc', 'write', { inside: true, risk: 'high-risk', ask: true, sensitive: 'startup' }],
  ['git hook', '.git/hooks/pre-commit', 'write', { inside: true, risk: 'high-risk', ask: true, sensitive: 'vcs' }],
  ['git hook, read', '.git/hooks/pre-commit', 'read', { inside: true, risk: 'low-risk', ask: true, sensitive: 'vcs' }],
  ['git config', '.git/config', 'write', { inside: true, risk: 'high-risk', ask: true, sensitive: 'vcs' }],
  ['git config of a submodule', '.git/modules/lib/config', 'write', { inside: true, risk: 'high-risk', ask: true, sensitive: 'vcs' }],
  ['git attributes', '.git/info/attributes', 'write', { inside: true, risk: 'high-risk', ask: true, sensitive: 'vcs' }],
  ['husky hook', '.husky/pre-commit', 'write', { inside: true, risk: 'high-risk', ask: true, sensitive: 'vcs' }],
  ['global git config', '~/.gitconfig', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'vcs' }],
  ['Deskhand data', '{data}/deskhand.db', 'read', { inside: false, risk: 'low-risk', ask: true, sensitive: 'deskhand-data' }],
  ['Deskhand config', '{data}/settings.json', 'write', { inside: false, risk: 'high-risk', ask: true, sensitive: 'deskhand-data' }],
  ['an ordinary dotfile is not sensitive', '.editorconfig', 'write', { inside: true, risk: 'low-risk' }],
  ['.gitignore is not sensitive', '.gitignore', 'write', { inside: true, risk: 'low-risk' }],
  ['a file named config outside .git is not sensitive', 'config', 'write', { inside: true, risk: 'low-risk' }],
  ['.env asks (the sandbox hides it too)', '.env', 'read', { inside: true, risk: 'low-risk', ask: true, sensitive: 'credentials' }],
];

const fill = (s: string) => s.replaceAll('{ws}', ws).replaceAll('{ws2}', ws2).replaceAll('{out}', out).replaceAll('{data}', data);

describe.each([
  ['containment', containment],
  ['sensitive paths', sensitive],
] as const)('path guard: %s', (_family, rows) => {
  it.each(rows)('%s: %s (%s)', (_what, input, access, expected) => {
    const check = new PathGuard(ctx).check(fill(input), access);
    expect(check.root !== null, check.summary).toBe(expected.inside);
    expect(check.risk, check.summary).toBe(expected.risk);
    expect(check.alwaysAsk !== null, check.summary).toBe(!!expected.ask);
    expect(check.sensitive?.kind ?? null, check.summary).toBe(expected.sensitive ?? null);
    if (expected.untrusted !== undefined) expect(check.untrusted).toBe(expected.untrusted);
    if (expected.resolvesTo) expect(check.resolved).toBe(expected.resolvesTo({ ws, out, home, data }));
    expect(check.summary.length).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The approval engine over the real file tools: every file tool declares its paths.

/** The file family as the host builds it, over this suite's data dir (set in beforeAll). */
const fileTools = (): ToolDefinition[] => createFileFamily({ dataDir: data, secrets: new SecretRedactor() }).tools;

const tool = (name: string): ToolDefinition => {
  const t = fileTools().find((x) => x.name === name);
  if (!t) throw new Error(name);
  return t;
};

type DecisionRow = readonly [tool: string, args: Record<string, unknown>, policy: Policy, decision: 'allow' | 'ask' | 'deny'];
const decisions: DecisionRow[] = [
  ['read_file', { path: 'file.txt' }, 'read-only', 'allow'],
  ['read_file', { path: 'link-in/inner.txt' }, 'read-only', 'allow'],
  ['read_file', { path: 'link-file-out' }, 'read-only', 'ask'],
  ['read_file', { path: 'link-file-out' }, 'low-risk', 'allow'],
  ['read_file', { path: '{out}/secret.txt' }, 'read-only', 'ask'],
  ['read_file', { path: '/etc/hostname' }, 'low-risk', 'allow'],
  ['read_file', { path: '~/.ssh/id_rsa' }, 'high-risk', 'ask'],
  ['read_file', { path: '{data}/deskhand.db' }, 'high-risk', 'ask'],
  ['read_file', { path: '.git/config' }, 'high-risk', 'ask'],
  ['ls', {}, 'read-only', 'allow'],
  ['ls', { path: '{out}' }, 'read-only', 'ask'],
  ['ls', { path: '~/.aws' }, 'high-risk', 'ask'],
  ['stat', { path: 'link-out' }, 'read-only', 'ask'],
  ['grep', { pattern: 'x' }, 'read-only', 'allow'],
  ['grep', { pattern: 'x', path: '{out}' }, 'read-only', 'ask'],
  ['grep', { pattern: 'x', path: '~/.ssh' }, 'high-risk', 'ask'],
  ['find', { pattern: '**/*.ts' }, 'read-only', 'allow'],
  ['find', { pattern: '{out}/**/*.txt' }, 'read-only', 'ask'],
  ['find', { pattern: '*.txt', path: 'link-out' }, 'read-only', 'ask'],
  ['cd', { path: 'sub' }, 'read-only', 'allow'],
  ['cd', { path: '{out}' }, 'read-only', 'ask'],
  ['write_file', { path: 'new.txt', content: 'x' }, 'high-risk', 'allow'],
  ['write_file', { path: 'link-file-in', content: 'x' }, 'high-risk', 'ask'],
  ['write_file', { path: 'link-out/x.txt', content: 'x' }, 'high-risk', 'ask'],
  ['write_file', { path: 'dangling', content: 'x' }, 'high-risk', 'ask'],
  ['write_file', { path: 'hard.txt', content: 'x' }, 'high-risk', 'ask'],
  ['write_file', { path: '.git/hooks/post-checkout', content: 'x' }, 'high-risk', 'ask'],
  ['write_file', { path: '~/.bashrc', content: 'x' }, 'high-risk', 'ask'],
  ['write_file', { path: '{data}/settings.json', content: '{}' }, 'high-risk', 'ask'],
  ['write_file', { path: '{out}/x.txt', content: 'x' }, 'low-risk', 'ask'],
  ['edit_file', { path: 'file.txt', old_string: 'x', new_string: 'y' }, 'high-risk', 'allow'],
  ['edit_file', { path: '.git/config', old_string: 'x', new_string: 'y' }, 'high-risk', 'ask'],
  ['mkdir', { path: 'newdir' }, 'low-risk', 'allow'],
  ['mkdir', { path: '{out}/newdir' }, 'low-risk', 'ask'],
  ['mkdir', { path: '.git/hooks/x' }, 'high-risk', 'ask'],
  ['cp', { source: 'file.txt', destination: 'copy.txt' }, 'low-risk', 'allow'],
  ['cp', { source: '~/.ssh/id_rsa', destination: 'stolen' }, 'high-risk', 'ask'],
  ['cp', { source: 'file.txt', destination: '~/.bashrc', force: true }, 'high-risk', 'ask'],
  ['cp', { source: 'link-file-out', destination: 'copy2.txt' }, 'read-only', 'ask'],
  ['mv', { source: 'file.txt', destination: 'moved.txt' }, 'low-risk', 'allow'],
  ['mv', { source: '{data}/deskhand.db', destination: 'db' }, 'high-risk', 'ask'],
  ['mv', { source: 'file.txt', destination: '{out}/moved.txt' }, 'low-risk', 'ask'],
  ['rm', { path: 'file.txt' }, 'high-risk', 'allow'],
  ['rm', { path: '.git/hooks' , recursive: true }, 'high-risk', 'ask'],
  ['rm', { path: '~/.ssh/id_rsa' }, 'high-risk', 'ask'],
];

describe('approval engine: file tools are contained', () => {
  it.each(decisions)('%s %j under %s → %s', async (name, rawArgs, policy, expected) => {
    const args = JSON.parse(fill(JSON.stringify(rawArgs))) as Record<string, unknown>;
    const t = tool(name);
    const parsed = t.params.parse(args);
    const d = await decideCall({ tool: t, args: parsed, policy, tainted: false, ctx: { cwd: ws, workspaceRoots: [ws, ws2], dataDir: data } });
    expect(d.decision, d.reasons.join(' | ')).toBe(expected);
    expect(d.paths.length).toBeGreaterThan(0);
  });

  it('declares paths for every file tool that takes one', async () => {
    for (const t of fileTools()) {
      const shape = (t.params as unknown as { shape?: Record<string, unknown> }).shape ?? {};
      if (!('path' in shape || 'source' in shape)) continue;
      expect(t.effects, t.name).toBeTypeOf('function');
      const sample = Object.fromEntries(['path', 'source', 'destination', 'pattern'].filter((k) => k in shape).map((k) => [k, 'x']));
      const declared = (await t.effects!(sample, { cwd: ws, workspaceRoots: [ws], dataDir: data })).paths ?? {};
      expect([...(declared.read ?? []), ...(declared.write ?? [])].length, t.name).toBeGreaterThan(0);
    }
  });

  it('marks reads outside the workspace untrusted, so the output is enveloped and taints the run', async () => {
    const d = await decideCall({ tool: tool('read_file'), args: { path: join(out, 'secret.txt') }, policy: 'low-risk', tainted: false, ctx: { cwd: ws, workspaceRoots: [ws], dataDir: data } });
    expect(d.untrustedRead).toBe(true);
    const inside = await decideCall({ tool: tool('read_file'), args: { path: 'file.txt' }, policy: 'low-risk', tainted: false, ctx: { cwd: ws, workspaceRoots: [ws], dataDir: data } });
    expect(inside.untrustedRead).toBe(false);
  });

  it('offers no always-allow rule for a call that must always ask', async () => {
    const d = await decideWithEveryRule({ tool: tool('write_file'), args: { path: 'hard.txt', content: 'x' }, policy: 'none', tainted: false, ctx: { cwd: ws, workspaceRoots: [ws], dataDir: data } });
    expect(d).toMatchObject({ decision: 'ask', rulePattern: null });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The shell goes through the same guard: redirect targets and path arguments.

type ShellRow = readonly [command: string, alwaysAsk: boolean];
const shell: ShellRow[] = [
  ['cat file.txt', false],
  ['cat ~/.ssh/id_rsa', true],
  ['cat $HOME/.aws/credentials', true],
  ['cat "${HOME}/.kube/config"', true],
  ['ls ~/.ssh', true],
  ['cat innocent.txt', true],
  ['cat < ~/.netrc', true],
  ['grep token ~/.docker/config.json', true],
  ['echo alias ls=rm >> ~/.bashrc', true],
  ['cp evil .git/hooks/pre-commit', true],
  ['chmod +x .git/hooks/pre-commit', true],
  ['echo x > .git/config', true],
  ['echo x > link-file-in', true],
  ['echo x > hard.txt', true],
  ['echo x > new.txt', false],
  ['echo ~/.ssh/id_rsa', false],
  ['git status', false],
];

describe('command classifier: the same path guard', () => {
  it.each(shell)('%s → always asks: %s', (command, ask) => {
    const r = classifyCommand(command, { cwd: ws, workspaceRoots: [ws], dataDir: data });
    expect(!!r.alwaysAsk, `${r.reasons.join(' | ')} / ${r.alwaysAsk}`).toBe(ask);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Check and use cannot be raced.

describe('open, then verify', () => {
  it('reads the file that was checked', async () => {
    const guard = new PathGuard(ctx);
    const check = guard.check('file.txt', 'read');
    const { fh, real } = await openVerified(check.path, check.resolved);
    await fh.close();
    expect(real).toBe(join(ws, 'file.txt'));
  });

  it('refuses when the path was swapped for a link after the check', async () => {
    const victim = join(ws, 'swap.txt');
    writeFileSync(victim, 'harmless');
    const check = new PathGuard(ctx).check('swap.txt', 'read');
    rmSync(victim);
    symlinkSync(join(out, 'secret.txt'), victim);
    await expect(openVerified(check.path, check.resolved)).rejects.toThrow(/now leads to .*not to/);
    rmSync(victim);
  });

  it('the runtime re-checks decided paths before a call runs', () => {
    const p = join(ws, 'racy');
    mkdirSync(p);
    const decided = new PathGuard(ctx).checkAll({ write: ['racy/out.txt'] });
    expect(recheckPaths(decided, ctx)).toBeNull();
    renameSync(p, join(ws, 'racy-old'));
    symlinkSync(out, p);
    expect(recheckPaths(decided, ctx)).toMatch(/changed between the approval check and the call/);
    rmSync(p);
  });

  it('read_file refuses a path that leads elsewhere than the decision saw', async () => {
    const { readFileTool } = await import('../../src/main/tools/files/read-file');
    const guard = new PathGuard(ctx);
    const check = guard.check('file.txt', 'read');
    const forged = { ...check, resolved: join(out, 'secret.txt') };
    const tc = { ...makeContext(ws), checkedPaths: new Map([[check.path, forged]]) };
    await expect(readFileTool.execute({ path: 'file.txt' }, tc)).rejects.toThrow(/not to/);
  });

  it('an atomic write never lands outside when its folder is swapped for a link mid-write', async () => {
    const dir = join(ws, 'swapdir');
    mkdirSync(dir);
    const target = join(dir, 'f.txt');
    const moved = join(ws, 'swapdir-moved');
    await expect(
      atomicWriteFile(target, 'payload', {}).then(async () => undefined),
    ).resolves.toBeUndefined();
    // Swap during the fill: the folder becomes a link to the outside folder.
    const write = atomicWriteFile(target, new Uint8Array(Buffer.from('second')), {});
    renameSync(dir, moved);
    symlinkSync(out, dir);
    // Usually the check after the fill catches the swap; if the temp file's open lands in the instant between the
    // rename and the link, the folder is simply missing. Either way the write fails and nothing lands outside.
    await expect(write).rejects.toThrow(/changed|ENOENT|no such file|not found/i);
    expect(existsSync(join(out, 'f.txt'))).toBe(false);
    expect(readFileSync(join(moved, 'f.txt'), 'utf8')).toBe('payload');
  });
});
