/**
 * The current revision's client features against a real MCP server (test/extensions/current-mcp-server.mjs, the SDK's
 * Server over stdio) through the real runtime: elicitation as an input request (waited on in a run a person drives,
 * parked and answered from another runtime otherwise; a URL shown to the person only; a password never asked in a
 * form), roots, annotations as a floor, structured output, resource links, progress and cancellation. Effects are
 * proven by the server's log of what it received and by the model's next request.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import type { RunOutcome } from '../../src/main/runtime/runtime';
import type { RunEvent } from '../../src/shared/events';
import { reply } from '../support/model-server';
import { mcpStdioWorld } from '../support/mcp-stdio-world';
import { tempDir } from '../support/tool-context';
import { FILESYSTEM, addServer, offeredTools, providerFor, toolResults, until } from './helpers';

const SERVER = join(__dirname, 'current-mcp-server.mjs');
const world = mcpStdioWorld('cur', SERVER);

type Entry = { received?: { method?: string; params?: Record<string, unknown>; result?: Record<string, unknown> }; elicitResult?: { action: string; content?: Record<string, unknown> } };
const entries = () => world.entries<Entry>();
const received = (method: string) => entries().filter((e) => e.received?.method === method);
const elicitResults = () => entries().flatMap((e) => (e.elicitResult ? [e.elicitResult] : []));
const runtimeWith = (dataDir: string, config?: Record<string, unknown>) => world.connect(dataDir, config);

it('a form elicitation waits for the person in an interactive run: a wrong answer is refused with the reason, the right one reaches the server, not the model', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  world.model.enqueue(reply().tool('mcp__cur__book', {}), reply().text('done'));
  const conv = world.conversation(runtime);
  const refused: string[] = [];
  const asked: Extract<RunEvent, { type: 'input.requested' }>[] = [];
  const outcome = await runtime.sendMessage(conv.id, 'book', {
    provider: providerFor(world.model),
    interactive: true,
    onEvent: (e) => {
      if (e.type !== 'input.requested') return;
      asked.push(e);
      void (async () => {
        await runtime.answerRequest(e.requestId, { action: 'accept', content: { name: 'Ada', seats: 20 } }).catch((err: Error) => refused.push(err.message));
        await runtime.answerRequest(e.requestId, { action: 'accept', content: { name: 'Ada Lovelace', seats: 2, meal: 'veg' } });
      })();
    },
  });
  expect(outcome.status).toBe('finished');
  expect(asked).toHaveLength(1);
  expect(asked[0]!.kind).toBe('mcp_elicitation');
  expect(asked[0]!.prompt).toContain('How many seats, and for whom?');
  expect(asked[0]!.data).toMatchObject({ mode: 'form', server: 'cur', schema: { required: ['name', 'seats'] } });
  expect(refused[0]).toMatch(/does not fit the form \(seats: at most 10\)/);
  expect(elicitResults()).toEqual([{ action: 'accept', content: { name: 'Ada Lovelace', seats: 2, meal: 'veg' } }]);
  expect(toolResults(world.model, 1).at(-1)).toContain('booked 2 seats for Ada Lovelace');
  // One tools/call: the answer went back within the call, nothing was repeated.
  expect(received('tools/call')).toHaveLength(1);
}, 60_000);

it('an unattended run parks on the elicitation; another runtime over the same data answers it and the call runs again with the stored answer', async () => {
  const dataDir = tempDir('deskhand-data-');
  const first = await runtimeWith(dataDir);
  world.model.enqueue(reply().tool('mcp__cur__book', {}), reply().text('done'));
  const conv = world.conversation(first);
  const parked = await first.sendMessage(conv.id, 'book', { provider: providerFor(world.model), interactive: false });
  expect(parked.status).toBe('parked');
  const request = first.store.getApproval(parked.approvalIds[0]!)!;
  expect(request.kind).toBe('mcp_elicitation');
  // The server's call was cancelled when the run parked (no one was there to answer).
  await until(() => received('notifications/cancelled').length === 1);
  await first.mcp.close();

  const second = await runtimeWith(dataDir);
  const outcome = (await second.answerRequest(request.id, { action: 'accept', content: { name: 'Grace', seats: 3 } }, { provider: providerFor(world.model), interactive: false })) as RunOutcome;
  expect(outcome.status).toBe('finished');
  // The second tools/call asked again, and the stored answer was given at once.
  expect(received('tools/call')).toHaveLength(2);
  expect(elicitResults().at(-1)).toEqual({ action: 'accept', content: { name: 'Grace', seats: 3 } });
  expect(toolResults(world.model, 1).at(-1)).toContain('booked 3 seats for Grace');
}, 60_000);

it('a URL elicitation is shown to the person (the URL guard took it) and approving it accepts; the URL never reaches the model', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  world.model.enqueue(reply().tool('mcp__cur__sign_in', {}), reply().text('done'));
  const conv = world.conversation(runtime);
  let outcome = await runtime.sendMessage(conv.id, 'sign in', { provider: providerFor(world.model), interactive: false });
  expect(outcome.status).toBe('parked');
  const request = runtime.store.getApproval(outcome.approvalIds[0]!)!;
  expect(JSON.parse(request.request!)).toMatchObject({ mode: 'url', url: 'https://auth.example.com/start?session=abc', host: 'auth.example.com', warning: null });
  outcome = (await runtime.decideApproval(request.id, { approved: true }, { provider: providerFor(world.model), interactive: false }))!;
  expect(outcome.status).toBe('finished');
  expect(elicitResults().at(-1)).toEqual({ action: 'accept' });
  expect(toolResults(world.model, 1).at(-1)).toContain('sign-in accept');
  expect(JSON.stringify(world.model.requests.map((r) => r.body))).not.toContain('session=abc');
}, 60_000);

it('a form asking for a password is declined without asking the person, and the model is told to use the vault', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  world.model.enqueue(reply().tool('mcp__cur__ask_password', {}), reply().text('done'));
  const conv = world.conversation(runtime);
  const outcome = await runtime.sendMessage(conv.id, 'pw', { provider: providerFor(world.model), interactive: false });
  expect(outcome.status).toBe('finished');
  expect(runtime.store.approvalsForRun(outcome.runId)).toHaveLength(0);
  expect(elicitResults()).toEqual([{ action: 'decline' }]);
  expect(toolResults(world.model, 1).at(-1)).toMatch(/password decline[\s\S]*does not take secrets through forms[\s\S]*deskhand secrets set/);
}, 60_000);

it('offers the conversation folder as the root, and announces a change of roots', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  const a = tempDir('deskhand-work-a-');
  const b = tempDir('deskhand-work-b-');
  world.model.enqueue(reply().tool('mcp__cur__where', {}), reply().text('done'), reply().tool('mcp__cur__where', {}), reply().text('done'));
  await runtime.sendMessage(world.conversation(runtime, a).id, 'where', { provider: providerFor(world.model), interactive: false });
  expect(toolResults(world.model, 1).at(-1)).toContain(`roots: ${pathToFileURL(a).href}`);
  await runtime.sendMessage(world.conversation(runtime, b).id, 'where', { provider: providerFor(world.model), interactive: false });
  expect(toolResults(world.model, 3).at(-1)).toContain(`roots: ${pathToFileURL(b).href}`);
  expect(toolResults(world.model, 3).at(-1)).not.toContain(pathToFileURL(a).href);
  expect(received('notifications/roots/list_changed').length).toBe(2);
}, 60_000);

it('annotations: destructiveHint raises a configured tier to asking; readOnlyHint never lowers the default (ask)', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  world.model.enqueue(reply().tool('mcp__cur__peek', {}).tool('mcp__cur__wipe', {}), reply().text('done'));
  const conv = world.conversation(runtime);
  const summaries: string[] = [];
  const outcome = await runtime.sendMessage(conv.id, 'go', { provider: providerFor(world.model), interactive: false, onEvent: (e) => void (e.type === 'tool.call' && summaries.push(`${e.tool} ${e.summary ?? ''}`)) });
  // The cards say what the server claims.
  expect(summaries).toEqual(['mcp__cur__peek [server: read-only] {}', 'mcp__cur__wipe [server: destructive] {}']);
  // peek (tier read-only) ran; wipe (read-only by configuration, destructive by the server's word) asks.
  expect(outcome.status).toBe('parked');
  const asked = outcome.approvalIds.map((id) => runtime.store.getApproval(id)!);
  expect(asked.map((a) => a.tool)).toEqual(['mcp__cur__wipe']);
  expect(asked[0]!.risk).toBe('high-risk');
  expect(JSON.parse(asked[0]!.reasons).join(' ')).toMatch(/raised to high-risk because the server says the tool is destructive/);
}, 60_000);

it('readOnlyHint from a server without a tier still asks, and says what the server claimed', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'), {});
  world.model.enqueue(reply().tool('mcp__cur__peek', {}), reply().text('done'));
  const conv = world.conversation(runtime, undefined, 'high-risk');
  const outcome = await runtime.sendMessage(conv.id, 'go', { provider: providerFor(world.model), interactive: false });
  expect(outcome.status).toBe('parked');
  const reasons = (JSON.parse(runtime.store.getApproval(outcome.approvalIds[0]!)!.reasons) as string[]).join(' ');
  expect(reasons).toMatch(/no tier configured/);
  expect(reasons).toMatch(/the server says the tool is read-only, closed world \(a hint from the server: it never lowers the tier\)/);
}, 60_000);

it('structured output reaches the model; one that does not fit the outputSchema is an error; a resource link is readable', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  world.model.enqueue(
    reply().tool('mcp__cur__weather', {}),
    reply().tool('mcp__cur__bad_weather', {}),
    reply().tool('mcp__cur__link', {}),
    reply().tool('read_mcp_resource', { server: 'cur', uri: 'fixture://doc' }),
    reply().text('done'),
  );
  const conv = world.conversation(runtime, undefined, 'high-risk');
  let outcome = await runtime.sendMessage(conv.id, 'go', { provider: providerFor(world.model), interactive: false });
  while (outcome.status === 'parked') outcome = (await runtime.decideApproval(outcome.approvalIds[0]!, { approved: true }, { provider: providerFor(world.model), interactive: false }))!;
  expect(outcome.status).toBe('finished');
  expect(toolResults(world.model, 1).at(-1)).toMatch(/Sunny in Oslo\nStructured result:\n\{"city":"Oslo","celsius":21\}/);
  expect(toolResults(world.model, 2).at(-1)).toMatch(/structured content does not match|Structured content does not match/i);
  expect(toolResults(world.model, 3).at(-1)).toContain('[resource link fixture://doc "doc": read it with read_mcp_resource {"server": "cur", "uri": "fixture://doc"}]');
  expect(toolResults(world.model, 4).at(-1)).toContain('THE-LINKED-DOCUMENT');
}, 60_000);

it('shows the server\'s progress on the call and sends a cancellation when the call is stopped', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  world.model.enqueue(reply().tool('mcp__cur__slow', {}), reply().text('done'));
  const conv = world.conversation(runtime);
  const stop = new AbortController();
  const output: string[] = [];
  const outcome = await runtime.sendMessage(conv.id, 'slow', {
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
  await until(() => received('notifications/cancelled').length === 1);
  const call = received('tools/call')[0]!;
  expect(received('notifications/cancelled')[0]!.received!.params!.requestId).toBe((call.received as { id?: number }).id);
}, 60_000);

it('server-filesystem from npm works in the conversation\'s folder (its root), not the folder its command line named', async () => {
  const runtime = world.runtime(tempDir('deskhand-data-'));
  const named = tempDir('deskhand-named-');
  const work = tempDir('deskhand-work-');
  writeFileSync(join(named, 'named.txt'), 'IN-THE-NAMED-FOLDER');
  writeFileSync(join(work, 'work.txt'), 'IN-THE-CONVERSATION-FOLDER');
  addServer(runtime.store, 'fs', { transport: 'stdio', command: FILESYSTEM, args: [named], tier: 'read-only' });
  await runtime.startMcp();
  world.model.enqueue(
    reply().tool('mcp__fs__read_text_file', { path: join(work, 'work.txt') }),
    reply().tool('mcp__fs__read_text_file', { path: join(named, 'named.txt') }),
    reply().text('done'),
  );
  const conv = world.conversation(runtime, work, 'high-risk');
  let outcome = await runtime.sendMessage(conv.id, 'read', { provider: providerFor(world.model), interactive: false });
  while (outcome.status === 'parked') outcome = (await runtime.decideApproval(outcome.approvalIds[0]!, { approved: true }, { provider: providerFor(world.model), interactive: false }))!;
  expect(toolResults(world.model, 1).at(-1)).toContain('IN-THE-CONVERSATION-FOLDER');
  expect(toolResults(world.model, 2).at(-1)).toMatch(/denied|outside allowed|not allowed/i);
  expect(JSON.stringify(world.model.requests.map((r) => r.body))).not.toContain('IN-THE-NAMED-FOLDER');
}, 60_000);

it('an MCP Apps tool only its view may call never reaches the model; one visible to both does', async () => {
  const runtime = await runtimeWith(tempDir('deskhand-data-'));
  world.model.enqueue(reply().text('done'));
  await runtime.sendMessage(world.conversation(runtime).id, 'hi', { provider: providerFor(world.model), interactive: false });
  const names = offeredTools(world.model, 0).map((t) => t.name);
  expect(names).toContain('mcp__cur__with_view');
  expect(names).toContain('mcp__cur__book');
  expect(names).not.toContain('mcp__cur__view_only');
}, 60_000);
