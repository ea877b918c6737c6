/**
 * Slash commands in an editor (issue 47, docs/commands.md): `deskhand acp` announces the folder's commands as
 * available_commands when a session opens (a plugin's as `plugin:name`, a folder's `.claude/commands` only with Claude
 * Code compatibility on), and a prompt `/name arguments` reaches the model expanded.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useCliWorld } from '../support/cli';
import { reply } from '../support/model-server';
import { until } from '../support/tasks';
import { startAcp, updatesOf } from '../support/acp';
import { marketplace } from '../support/plugin-market';

const world = useCliWorld('acp-commands');

it('a session announces the commands; /review runs as its template', async () => {
  mkdirSync(join(world.dataDir, 'commands'), { recursive: true });
  writeFileSync(join(world.dataDir, 'commands', 'review.md'), '---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 now. Acp-Cmd-Marker-63\n');
  world.server.enqueue(reply().text('Reviewed.'));
  const acp = await startAcp(world);
  const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
  await until(() => updatesOf(acp, 'available_commands_update').length > 0 || null, 'available_commands_update', 30_000);
  expect(updatesOf(acp, 'available_commands_update')[0]!.availableCommands).toEqual([{ name: 'review', description: 'Review a file', input: { hint: 'FILE' } }]);
  const done = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '/review src/x.ts' }] });
  expect(done.stopReason).toBe('end_turn');
  expect(JSON.stringify(world.server.requests.at(-1)!.body)).toContain('Review src/x.ts now. Acp-Cmd-Marker-63');
  expect(await acp.close()).toBe(0);
}, 60_000);

it('a plugin\'s command is announced as /kit:hello and runs so; a folder\'s .claude/commands only with compatibility on', async () => {
  const data = ['--data-dir', world.dataDir];
  const repo = marketplace(join(world.home, 'tools.log'));
  expect((await world.cli(['plugins', 'marketplace', 'add', repo, ...data])).code).toBe(0);
  expect((await world.cli(['plugins', 'install', 'kit@acme', '--yes', ...data])).code).toBe(0);
  mkdirSync(join(world.work, '.claude', 'commands'), { recursive: true });
  writeFileSync(join(world.work, '.claude', 'commands', 'fix.md'), '---\ndescription: Fix it\n---\nFix $1.\n');
  /** An editor's session on the folder: the command names it was announced, and the session to prompt. */
  const open = async () => {
    const acp = await startAcp(world);
    const { sessionId } = await acp.agent.request('session/new', { cwd: world.work, mcpServers: [] });
    await until(() => updatesOf(acp, 'available_commands_update').length > 0 || null, 'available_commands_update', 30_000);
    return { acp, sessionId, names: updatesOf(acp, 'available_commands_update')[0]!.availableCommands.map((c: { name: string }) => c.name) };
  };
  const off = await open();
  expect(off.names).toEqual(['kit:hello']);
  expect(await off.acp.close()).toBe(0);
  expect((await world.cli(['compat', 'on', '--cwd', world.work, ...data])).code).toBe(0);
  const on = await open();
  expect(on.names).toEqual(['fix', 'kit:hello']);

  world.server.enqueue(reply().text('Greeted.'));
  const done = await on.acp.agent.request('session/prompt', { sessionId: on.sessionId, prompt: [{ type: 'text', text: '/kit:hello Ann' }] });
  expect(done.stopReason).toBe('end_turn');
  expect(JSON.stringify(world.server.requests.at(-1)!.body)).toContain('Greet Ann warmly. Plugin-Cmd-Marker-3');
  expect(await on.acp.close()).toBe(0);
}, 90_000);
