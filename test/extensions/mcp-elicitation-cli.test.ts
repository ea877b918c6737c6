/**
 * server-everything (from npm) asks for a form during a call made by `deskhand run`: nobody answers at a terminal
 * (`--json`), so the run parks with an mcp_elicitation request (exit 3); `deskhand runs answer` in another process
 * refuses an answer that does not fit the form, takes one that does, resumes the run, and the call runs again with
 * that answer: the server's echo of what it received is the tool result the model reads next. `mcp add --no-roots`
 * keeps server-filesystem in its own folder when the conversation works elsewhere.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { reply } from '../support/model-server';
import { useCliWorld } from '../support/cli';
import { EVERYTHING, FILESYSTEM } from './helpers';

const w = useCliWorld('elicit', { flags: ['--enable', 'mcp'] });

function lastToolResult(): string {
  const messages = (w.server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
  return String(messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
}

it('parks on server-everything\'s form and resumes when another process answers it', async () => {
  const add = await w.cli(['mcp', 'add', 'ev', '--tier', 'read-only', '--data-dir', w.dataDir, '--', EVERYTHING]);
  expect(add.code, add.stderr).toBe(0);
  w.server.enqueue(reply().tool('mcp__ev__trigger-elicitation-request', {}));
  const parked = await w.run('ask me for my details');
  expect(parked.code, parked.stderr).toBe(3);
  const asked = parked.events.find((e) => e.type === 'input.requested')!;
  expect(asked).toMatchObject({ kind: 'mcp_elicitation', tool: 'mcp__ev__trigger-elicitation-request' });
  expect(asked.data).toMatchObject({ mode: 'form', server: 'ev', message: 'Please provide inputs for the following fields:' });
  const id = String(asked.requestId);

  const wrong = await w.cli(['runs', 'answer', id, '--value', '{"action": "accept", "content": {"integer": 500}}', '--data-dir', w.dataDir, '--base-url', w.server.baseURL]);
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toMatch(/does not fit the form \(name: required; integer: at most 100\)/);

  w.server.enqueue(reply().text('Thanks, Ada.'));
  const done = await w.cli(['runs', 'answer', id, '--value', '{"action": "accept", "content": {"name": "Ada Lovelace", "integer": 7, "check": true}}', '--data-dir', w.dataDir, '--base-url', w.server.baseURL, '--json']);
  expect(done.code, done.stderr).toBe(0);
  expect(done.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'finished' });
  expect(lastToolResult()).toMatch(/Ada Lovelace/);
  expect(lastToolResult()).toMatch(/"integer": ?7/);
}, 120_000);

it('mcp add --no-roots keeps server-filesystem in the folder its command line names, not the conversation\'s', async () => {
  const add = await w.cli(['mcp', 'add', 'fs', '--no-roots', '--tier', 'read-only', '--data-dir', w.dataDir, '--', FILESYSTEM, w.home]);
  expect(add.code, add.stderr).toBe(0);
  writeFileSync(join(w.work, 'work.txt'), 'IN-THE-CONVERSATION-FOLDER');
  w.server.enqueue(reply().tool('mcp__fs__read_text_file', { path: join(w.work, 'work.txt') }));
  const r = await w.run('read it');
  expect(r.code, r.stderr).toBe(0);
  expect(lastToolResult()).toMatch(/outside allowed/i);
  expect(JSON.stringify(w.server.requests.map((x) => x.body))).not.toContain('IN-THE-CONVERSATION-FOLDER');
}, 120_000);
