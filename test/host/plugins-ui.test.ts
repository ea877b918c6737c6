/**
 * Settings → Plugins and the composer's command menu through the contract (issue 47 items 2 and 4): a marketplace
 * (a local git repository, read in place), a two-step install (what the plugin brings first, installed only on
 * accept), enable/disable/remove, each proved by its effect: the command in `listCommands`, the MCP server in the
 * store's list, the installed folder.
 */
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir } from '../support/tool-context';
import { marketplace } from '../support/plugin-market';
import { openHarness, type Harness } from './helpers';
import { parseRequest } from '../../src/shared/contract';

let h: Harness;
let dataDir: string;
let work: string;

beforeEach(() => {
  dataDir = tempDir('deskhand-plugins-ui-data-');
  work = tempDir('deskhand-plugins-ui-work-');
  h = openHarness({ dataDir, override: { provider: 'openai-compatible', model: 'scripted', baseURL: 'http://127.0.0.1:9', apiKey: null } });
});

afterEach(() => h.close());

it('installs from a marketplace only after showing what the plugin brings; disabling and removing take it away', async () => {
  const repo = marketplace(join(work, 'tools.log'));
  const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
  const names = async () => (await h.service.listCommands({ conversationId: c.id })).commands.map((x) => `${x.origin}:${x.name}`);
  const servers = async () => (await h.service.listMcpServers({})).servers.map((s) => s.name);
  expect(await names()).toEqual(['builtin:tools']);

  const added = await h.service.addMarketplace({ source: repo });
  expect(added.marketplaces).toEqual([{ name: 'acme', source: repo, error: null, plugins: [{ name: 'kit', description: 'A kit of things', installed: false }] }]);

  const preview = await h.service.installPlugin({ label: 'kit@acme' });
  expect(preview.preview).toContain('PostToolUse [*]: node "');
  expect(preview.preview).toMatch(/kit-echo: node \S+server\.mjs/);
  expect(preview.plugins).toEqual([]);
  expect(await names()).toEqual(['builtin:tools']);

  const installed = await h.service.installPlugin({ label: 'kit@acme', accept: true });
  expect(installed.preview).toBeNull();
  expect(installed.plugins).toEqual([{ label: 'kit@acme', version: '1.0.0', description: 'A kit of things', enabled: true }]);
  const menu = (await h.service.listCommands({ conversationId: c.id })).commands;
  expect(menu).toContainEqual({ name: 'kit:hello', description: 'Greet someone', argumentHint: 'NAME', origin: 'plugin' });
  expect(await servers()).toContain('kit-echo');

  await h.service.setPluginEnabled({ label: 'kit@acme', enabled: false });
  expect(await names()).toEqual(['builtin:tools']);
  expect(await servers()).not.toContain('kit-echo');
  await h.service.setPluginEnabled({ label: 'kit@acme', enabled: true });
  expect(await names()).toContain('plugin:kit:hello');

  const removed = await h.service.removePlugin({ label: 'kit@acme' });
  expect(removed.plugins).toEqual([]);
  expect(await servers()).not.toContain('kit-echo');
  expect(existsSync(join(dataDir, 'plugins', 'installed', 'acme', 'kit'))).toBe(false);
  await expect(h.service.setPluginEnabled({ label: 'kit@acme', enabled: true })).rejects.toThrow(/No plugin kit@acme is installed/);
}, 60_000);

it('Claude Code compatibility for the conversation\'s folder: off by default, on reads its .claude/commands in the menu, off again hides them', async () => {
  mkdirSync(join(work, '.claude', 'commands'), { recursive: true });
  writeFileSync(join(work, '.claude', 'commands', 'fix-issue.md'), '---\ndescription: Fix an issue\n---\nFix #$1.\n');
  mkdirSync(join(work, '.deskhand', 'commands'), { recursive: true });
  writeFileSync(join(work, '.deskhand', 'commands', 'ship.md'), 'Ship it.\n');
  const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
  const names = async () => (await h.service.listCommands({ conversationId: c.id })).commands.map((x) => `${x.origin}:${x.name}`);
  const folder = realpathSync(work);
  expect(await h.service.getClaudeCompat({ folder: work })).toEqual({ folder, on: false, claude: ['.claude/commands'] });
  expect(await names()).toEqual(['builtin:tools', 'project:ship']);
  expect(await h.service.setClaudeCompat({ folder: work, on: true })).toEqual({ folder, on: true, claude: ['.claude/commands'] });
  expect(await names()).toEqual(['builtin:tools', 'project:fix-issue', 'project:ship']);
  await h.service.setClaudeCompat({ folder: work, on: false });
  expect(await names()).toEqual(['builtin:tools', 'project:ship']);
  expect(parseRequest('setClaudeCompat', { folder: 'relative/dir', on: true }, 50)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/folder: an absolute folder path/) } });
}, 60_000);
