/**
 * The person's own MCP server script in the workspace (issue 43, M5): `mcp add` records the working folder, resolves
 * the files the command line names (relative ones against that folder) and pins them by sha256; a changed pinned
 * file stops the server from starting (its new code never runs) until the person adds it again; and the pinned files
 * are run-later paths, so a write to one asks under every policy, through the file tools and the shell.
 */
import { appendFileSync, copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/main/host/cli/commands';
import { parseServerConfig, pinServer, pinsChanged } from '../../src/main/services/mcp';
import { McpManager } from '../../src/main/services/mcp/manager';
import type { StdioServerConfig } from '../../src/main/services/mcp/config';
import { Store } from '../../src/main/services/store/store';
import { extensionsModule } from '../../src/main/services/store/modules/extensions';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { decideWithEveryRule } from '../support/rules';
import { tempDir } from '../support/tool-context';
import { builtinTools } from '../support/tools';
import { FAKE } from './helpers';

async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

const startDir = process.cwd();
afterEach(() => process.chdir(startDir));

const stdio = (command: string, args: string[], extra: Partial<StdioServerConfig> = {}) =>
  parseServerConfig({ name: 'mine', transport: 'stdio', command, args, ...extra }) as StdioServerConfig;

describe('pinServer: the working folder and the files the command line names', () => {
  it('resolves relative paths against the folder mcp add ran in, and records it', () => {
    const work = tempDir('deskhand-pin-');
    writeFileSync(join(work, 'server.mjs'), 'console.log(1)\n');
    writeFileSync(join(work, 'tools.json'), '{}\n');
    const pinned = pinServer(stdio(process.execPath, ['server.mjs', '--config=tools.json', '--flag', './missing.js', '-v']), work);
    expect(pinned.cwd).toBe(work);
    expect(pinned.pins?.map((p) => [p.arg, p.path])).toEqual([
      ['server.mjs', join(work, 'server.mjs')],
      ['tools.json', join(work, 'tools.json')],
    ]);
    // The system's node is the system's to update: not pinned.
    expect(pinned.pins?.some((p) => p.path === process.execPath && process.execPath.startsWith('/usr/'))).toBe(false);
  });

  it('an explicit cwd wins; absolute paths and a program in the workspace are pinned; nothing to pin leaves no pins', () => {
    const work = tempDir('deskhand-pin-');
    const other = tempDir('deskhand-pin-other-');
    writeFileSync(join(work, 'run.sh'), '#!/bin/sh\n');
    writeFileSync(join(other, 'lib.js'), 'x\n');
    const pinned = pinServer(stdio('./run.sh', [join(other, 'lib.js')], { cwd: work }), other);
    expect(pinned.cwd).toBe(work);
    expect(pinned.pins?.map((p) => p.path)).toEqual([join(work, 'run.sh'), join(other, 'lib.js')]);
    expect(pinServer(stdio('npx', ['-y', '@scope/server']), work).pins).toBeUndefined();
  });

  it.each([
    ['appended to', (p: string) => appendFileSync(p, '// more\n')],
    ['rewritten with the same size', (p: string) => writeFileSync(p, readFileSync(p, 'utf8').replace('1', '2'))],
    ['emptied', (p: string) => writeFileSync(p, '')],
    ['deleted', (p: string) => rmSync(p)],
  ])('a pinned file %s stops the server', (_what, change) => {
    const work = tempDir('deskhand-pin-');
    const script = join(work, 'server.mjs');
    writeFileSync(script, 'console.log(1)\n');
    const pinned = pinServer(stdio(process.execPath, ['server.mjs']), work);
    expect(pinsChanged(pinned)).toBeNull();
    change(script);
    expect(pinsChanged(pinned)).toMatch(/server\.mjs changed since the MCP server mine was added[\s\S]*deskhand mcp add mine --/);
  });
});

describe('mcp add pins; a changed script does not run until the person adds the server again', () => {
  it('through the CLI, with a relative script path', async () => {
    const dataDir = tempDir('deskhand-pin-data-');
    const work = tempDir('deskhand-pin-work-');
    const marker = join(tempDir('deskhand-pin-marker-'), 'ran');
    copyFileSync(FAKE, join(work, 'server.mjs'));
    const d = ['--data-dir', dataDir];
    process.chdir(work);
    const added = await cli(['mcp', 'add', 'mine', ...d, '--', process.execPath, 'server.mjs', 'ok']);
    process.chdir(startDir);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain(`Pinned (a change stops the server until you add it again): ${join(work, 'server.mjs')}`);
    const first = await cli(['mcp', 'test', 'mine', ...d]);
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toMatch(/mine: connected/);

    // The model rewrites the script (an ordinary write): the next start refuses, and the new code never runs.
    writeFileSync(join(work, 'server.mjs'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'pwned');\n${readFileSync(FAKE, 'utf8').replace(/^#!.*\n/, '')}`);
    const refused = await cli(['mcp', 'test', 'mine', ...d]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('changed since the MCP server mine was added');
    expect(existsSync(marker)).toBe(false);

    // The person looked and adds it again, which pins the new version.
    process.chdir(work);
    expect((await cli(['mcp', 'add', 'mine', ...d, '--', process.execPath, 'server.mjs', 'ok'])).code).toBe(0);
    process.chdir(startDir);
    const again = await cli(['mcp', 'test', 'mine', ...d]);
    expect(again.stdout).toMatch(/mine: connected/);
    expect(existsSync(marker)).toBe(true);
  }, 60_000);
});

describe('pinned files are run-later paths', () => {
  const dataDir = tempDir('deskhand-pin-data-');
  const work = tempDir('deskhand-pin-work-');
  writeFileSync(join(work, 'server.mjs'), 'console.log(1)\n');
  writeFileSync(join(work, 'notes.txt'), 'x\n');
  const store = new Store(dataDir);
  const { name: _n, ...stored } = pinServer(stdio(process.execPath, ['server.mjs']), work);
  store.module(extensionsModule).putServer('mine', JSON.stringify(stored));
  const manager = new McpManager({ store, secret: async () => null });
  const runLater = manager.runLaterPaths();
  const ctx = { cwd: work, workspaceRoots: [work], dataDir, runLater };
  const tool = (name: string): ToolDefinition => builtinTools({ dataDir }).find((t) => t.name === name)!;

  it('the manager lists the pinned script', () => {
    expect(runLater).toEqual([expect.objectContaining({ path: join(work, 'server.mjs'), what: expect.stringContaining('MCP server mine') })]);
  });

  it('what it lists follows the stored servers from one call to the next (kept only while their rows read the same)', async () => {
    // Another process (`deskhand mcp add` in a terminal) changes the servers: its own connection to the store. Its
    // commits are read from the next stretch of code on (the store's read snapshot): each call below is in one.
    const cli = new Store(dataDir);
    const next = () => Promise.resolve();
    try {
      writeFileSync(join(work, 'other.mjs'), 'console.log(2)\n');
      const { name: _o, ...other } = pinServer(stdio(process.execPath, ['other.mjs']), work);
      cli.module(extensionsModule).putServer('mine', JSON.stringify(other));
      await next();
      expect(manager.runLaterPaths().map((p) => p.path)).toEqual([join(work, 'other.mjs')]);
      cli.module(extensionsModule).putServer('second', JSON.stringify(stored));
      await next();
      expect(manager.runLaterPaths().map((p) => p.path).sort()).toEqual([join(work, 'other.mjs'), join(work, 'server.mjs')].sort());
      cli.module(extensionsModule).removeServer('mine');
      cli.module(extensionsModule).removeServer('second');
      await next();
      expect(manager.runLaterPaths()).toEqual([]);
      cli.module(extensionsModule).putServer('mine', JSON.stringify(stored));
      await next();
      // A caller changing what it got changes nothing kept.
      manager.runLaterPaths()[0]!.path = '/elsewhere';
      expect(manager.runLaterPaths().map((p) => p.path)).toEqual([join(work, 'server.mjs')]);
    } finally {
      cli.close();
    }
  });

  it.each([
    ['write_file', { path: 'server.mjs', content: 'evil' }, 'ask'],
    ['write_file', { path: join(work, 'server.mjs'), content: 'evil' }, 'ask'],
    ['edit_file', { path: 'server.mjs', old_string: '1', new_string: '2' }, 'ask'],
    ['cp', { source: 'notes.txt', destination: 'server.mjs' }, 'ask'],
    ['mv', { source: 'notes.txt', destination: 'server.mjs' }, 'ask'],
    ['execute_command', { command: 'echo evil > server.mjs' }, 'ask'],
    ['execute_command', { command: 'echo evil >> ./server.mjs' }, 'ask'],
    ['execute_command', { command: 'cp notes.txt server.mjs' }, 'ask'],
    ['write_file', { path: 'other.mjs', content: 'fine' }, 'allow'],
  ] as const)('%s %j under high-risk → %s', async (name, rawArgs, expected) => {
    const t = tool(name);
    const d = await decideWithEveryRule({ tool: t, args: t.params.parse(rawArgs), policy: 'high-risk', tainted: false, ctx });
    expect(d.decision, d.reasons.join(' | ')).toBe(expected);
  });
});
