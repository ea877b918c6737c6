/**
 * Slash commands in an editor (issue 47, docs/commands.md): `deskhand acp` announces the folder's commands as
 * available_commands when a session opens, and a prompt `/name arguments` reaches the model expanded.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useCliWorld } from '../support/cli';
import { reply } from '../support/model-server';
import { until } from '../support/tasks';
import { startAcp, updatesOf } from '../support/acp';

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
