/**
 * The 2026-07-28 revision against a real server on the SDK v2 (test/extensions/modern-mcp-server.mjs, started with
 * `--modern-only`: it refuses the older `initialize` handshake, so only a client speaking 2026-07-28 gets in).
 * The revision is proven by the server's own view of each request (the `_meta` envelope it logs) and by the health
 * Deskhand keeps; elicitation and roots arrive as `input_required` rounds and reach the person and the conversation's
 * folders as they do over the older revisions. The older servers (server-everything, server-filesystem, the SDK v1
 * server of mcp-current.test.ts) keep working through the fallback to `initialize`: their tests prove it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import type { RunOutcome } from '../../src/main/runtime/runtime';
import type { RunEvent } from '../../src/shared/events';
import { reply } from '../support/model-server';
import { mcpStdioWorld } from '../support/mcp-stdio-world';
import { tempDir } from '../support/tool-context';
import { addServer, fake, providerFor, toolResults, until } from './helpers';

const SERVER = join(__dirname, 'modern-mcp-server.mjs');
const world = mcpStdioWorld('modern', SERVER);

type Entry = { tool: string; method: string; protocolVersion: string | null; answer?: Record<string, unknown> | null; roots?: { uri: string }[] | null };
const entries = () => world.entries<Entry>();
const runtimeWith = (dataDir: string, args = ['--modern-only']) => world.connect(dataDir, { args, tier: 'read-only' });

it('connects to a server that speaks only 2026-07-28: every request it sees names that revision, and the call works', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  expect(runtime.mcp.server('modern')?.health.protocolVersion).toBe('2026-07-28');
  world.model.enqueue(reply().tool('mcp__modern__echo', { text: 'hello' }), reply().text('done'));
  const outcome = await runtime.sendMessage(world.conversation(runtime).id, 'echo', { provider: providerFor(world.model), interactive: false });
  expect(outcome.status).toBe('finished');
  expect(toolResults(world.model, 1).at(-1)).toContain('echo: hello');
  expect(entries()).toEqual([{ tool: 'echo', method: 'tools/call', protocolVersion: '2026-07-28' }]);
}, 60_000);

it('the same server, when it also serves the older handshake, is still spoken to in 2026-07-28 (negotiated, not defaulted)', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'), []);
  expect(runtime.mcp.server('modern')?.health.protocolVersion).toBe('2026-07-28');
}, 60_000);

it('an elicitation (an input_required round) waits for the person in an interactive run; the answer reaches the server on the retried call', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  world.model.enqueue(reply().tool('mcp__modern__book', {}), reply().text('done'));
  const asked: Extract<RunEvent, { type: 'input.requested' }>[] = [];
  const outcome = await runtime.sendMessage(world.conversation(runtime).id, 'book', {
    provider: providerFor(world.model),
    interactive: true,
    onEvent: (e) => {
      if (e.type !== 'input.requested') return;
      asked.push(e);
      void runtime.answerRequest(e.requestId, { action: 'accept', content: { name: 'Ada', seats: 2 } });
    },
  });
  expect(outcome.status).toBe('finished');
  expect(asked.map((a) => [a.kind, a.prompt.includes('How many seats, and for whom?')])).toEqual([['mcp_elicitation', true]]);
  expect(toolResults(world.model, 1).at(-1)).toContain('booked 2 for Ada');
  expect(entries().map((e) => [e.tool, e.protocolVersion, e.answer])).toEqual([
    ['book', '2026-07-28', null],
    ['book', '2026-07-28', { name: 'Ada', seats: 2 }],
  ]);
}, 60_000);

it('an unattended run parks on the elicitation; another runtime answers it and the call runs again with the stored answer', async () => {
  const dataDir = tempDir('deskhand-data-');
  const first = await runtimeWith(dataDir);
  world.model.enqueue(reply().tool('mcp__modern__book', {}), reply().text('done'));
  const conv = world.conversation(first);
  const parked = await first.sendMessage(conv.id, 'book', { provider: providerFor(world.model), interactive: false });
  expect(parked.status).toBe('parked');
  const request = first.store.getApproval(parked.approvalIds[0]!)!;
  expect(request.kind).toBe('mcp_elicitation');
  await first.mcp.close();

  const second = await runtimeWith(dataDir);
  const outcome = (await second.answerRequest(request.id, { action: 'accept', content: { name: 'Grace', seats: 3 } }, { provider: providerFor(world.model), interactive: false })) as RunOutcome;
  expect(outcome.status).toBe('finished');
  expect(toolResults(world.model, 1).at(-1)).toContain('booked 3 for Grace');
  expect(entries().at(-1)).toMatchObject({ tool: 'book', protocolVersion: '2026-07-28', answer: { name: 'Grace', seats: 3 } });
}, 60_000);

it('roots are the conversation\'s folder, asked for inside the call', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  const a = tempDir('deskhand-work-a-');
  const b = tempDir('deskhand-work-b-');
  world.model.enqueue(reply().tool('mcp__modern__where', {}), reply().text('done'), reply().tool('mcp__modern__where', {}), reply().text('done'));
  await runtime.sendMessage(world.conversation(runtime, a).id, 'where', { provider: providerFor(world.model), interactive: false });
  expect(toolResults(world.model, 1).at(-1)).toContain(`roots: ${pathToFileURL(a).href}`);
  await runtime.sendMessage(world.conversation(runtime, b).id, 'where', { provider: providerFor(world.model), interactive: false });
  expect(toolResults(world.model, 3).at(-1)).toContain(`roots: ${pathToFileURL(b).href}`);
  expect(toolResults(world.model, 3).at(-1)).not.toContain(pathToFileURL(a).href);
}, 60_000);

it('progress reaches the tool card and stopping the call cancels it at the server', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  world.model.enqueue(reply().tool('mcp__modern__slow', {}), reply().text('done'));
  const stop = new AbortController();
  const output: string[] = [];
  const outcome = await runtime.sendMessage(world.conversation(runtime).id, 'slow', {
    provider: providerFor(world.model),
    interactive: false,
    signal: stop.signal,
    onEvent: (e) => {
      if (e.type !== 'tool.output') return;
      output.push(e.chunk);
      if (output.join('').includes('step 2')) stop.abort();
    },
  });
  expect(outcome.status).not.toBe('finished');
  expect(output.join('')).toContain('[progress 1/3: step 1]');
  await until(() => entries().some((e) => e.method === 'cancelled'));
  expect(entries()[0]).toMatchObject({ tool: 'slow', protocolVersion: '2026-07-28' });
}, 60_000);

it('an older server that exits on the version probe is started again with initialize only, and works', async () => {
  const runtime = world.runtime(tempDir('deskhand-data-'));
  addServer(runtime.store, 'strict', { ...fake('strict', { env: { FAKE_LOG: world.log } }), tier: 'read-only' });
  await runtime.startMcp();
  const health = runtime.mcp.server('strict')!.health;
  expect(health.status, health.lastError ?? '').toBe('connected');
  expect(health.protocolVersion).toBe('2025-11-25');
  const methods = readFileSync(world.log, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { method: string }).method);
  // The probe ended the first process; the second one was sent initialize first.
  expect(methods.slice(0, 3)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
}, 60_000);
