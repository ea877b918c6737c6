/**
 * MCP through the real runtime (scripted model server, SQLite store, the approval engine): tools of the real npm
 * servers — server-everything over stdio and over Streamable HTTP, server-filesystem confined to a test folder — are
 * called by a scripted conversation; configured tiers clear calls, the default tier asks every time, a tainted run
 * asks before any MCP call (egress); every result arrives in the untrusted envelope.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { AppRuntime } from '../../src/main/host/assembly/open-runtime';
import type { RunOutcome } from '../../src/main/runtime/runtime';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { McpManager } from '../../src/main/services/mcp/manager';
import { Store } from '../../src/main/services/store/store';
import { EVERYTHING, FILESYSTEM, addServer, closeTestWorld, makeRuntime, offeredTools, providerFor, startEverythingHttp, toolResults } from './helpers';

let model: ModelServer;
let http: Awaited<ReturnType<typeof startEverythingHttp>>;
let runtime: AppRuntime | null = null;

beforeAll(async () => {
  http = await startEverythingHttp();
});
afterAll(() => http.stop());
beforeEach(async () => {
  model = await startModelServer();
});
afterEach(async () => {
  await closeTestWorld(runtime, model);
  runtime = null;
});

it('a scripted conversation uses tools of both real servers, over stdio and Streamable HTTP, through the approval gate', async () => {
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  const allowed = join(work, 'allowed');
  mkdirSync(allowed);
  writeFileSync(join(allowed, 'note.txt'), 'the note inside the allowed folder');
  writeFileSync(join(work, 'outside.txt'), 'OUTSIDE-CONTENT-MUST-NOT-LEAK');
  runtime = makeRuntime(dataDir, { mcpDeferAbove: 100 });
  addServer(runtime.store, 'everything', { transport: 'stdio', command: EVERYTHING, args: [], tier: 'read-only' });
  // roots: false keeps server-filesystem in the folder its command line names (with roots it would work in the
  // conversation's folder, `work`, which holds outside.txt).
  addServer(runtime.store, 'fs', { transport: 'stdio', command: FILESYSTEM, args: [allowed], tier: 'read-only', roots: false });
  addServer(runtime.store, 'web', { transport: 'http', url: http.url });
  await runtime.startMcp();
  const health = runtime.mcp.servers().map((s) => [s.config.name, s.health.status]);
  expect(Object.fromEntries(health)).toEqual({ everything: 'connected', fs: 'connected', web: 'connected' });

  model.enqueue(
    reply().tool('mcp__everything__echo', { message: 'hello over stdio' }),
    reply().tool('mcp__fs__read_text_file', { path: join(allowed, 'note.txt') }),
    reply().tool('mcp__fs__read_text_file', { path: join(work, 'outside.txt') }),
    reply().tool('mcp__web__echo', { message: 'hello over http' }),
    reply().text('done'),
  );
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  runtime.setFamilies(conv.id, ['mcp'], true); // loaded from the first request, as a person enabling them would
  const asked: string[][] = [];
  let outcome: RunOutcome = await runtime.sendMessage(conv.id, 'use the servers', { provider: providerFor(model), interactive: false });
  while (outcome.status === 'parked') {
    const approval = runtime.store.getApproval(outcome.approvalIds[0]!)!;
    asked.push([approval.tool, (JSON.parse(approval.reasons) as string[]).join('; ')]);
    outcome = (await runtime.decideApproval(approval.id, { approved: true }, { provider: providerFor(model), interactive: false }))!;
  }
  expect(outcome.status).toBe('finished');

  // The tools were offered under their namespaced names, the servers' descriptions inside an envelope.
  const offered = offeredTools(model, 0);
  const echo = offered.find((t) => t.name === 'mcp__everything__echo')!;
  expect(echo.description).toMatch(/^Tool "echo" of the MCP server "everything"[\s\S]*<untrusted source="mcp everything description of echo"[\s\S]*Echoes back the input string/);
  expect(offered.map((t) => t.name)).toEqual(expect.arrayContaining(['mcp__fs__read_text_file', 'mcp__web__echo', 'list_mcp_resources']));

  // 1: tier read-only, untainted run: ran without asking; its result is untrusted, so the run is tainted from here.
  expect(toolResults(model, 1).at(-1)).toMatch(/^<untrusted source="mcp everything echo" nonce="[0-9a-f]+">\nEcho: hello over stdio\n<\/untrusted/);
  // 2, 3: tier read-only, but the run is tainted and every MCP call is egress: each asked.
  // 4: no tier configured (default ask): asked under every policy.
  expect(asked.map((a) => a[0])).toEqual(['mcp__fs__read_text_file', 'mcp__fs__read_text_file', 'mcp__web__echo']);
  expect(asked[0]![1]).toMatch(/this run has read untrusted content/);
  expect(asked[2]![1]).toMatch(/MCP server "web" has no tier configured/);
  const last = toolResults(model, 4);
  expect(last[1]).toContain('the note inside the allowed folder');
  // server-filesystem refused the path outside its folder: the content never reached the model.
  expect(last[2]).toMatch(/denied|outside allowed|not allowed/i);
  expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain('OUTSIDE-CONTENT-MUST-NOT-LEAK');
  expect(last[3]).toMatch(/<untrusted source="mcp web echo"[\s\S]*Echo: hello over http/);
}, 90_000);

it('defers MCP schemas behind search_tools when there are many, and lists resources and prompts', async () => {
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  runtime = makeRuntime(dataDir, { mcpDeferAbove: 3 });
  addServer(runtime.store, 'everything', { transport: 'stdio', command: EVERYTHING, args: [], tier: 'read-only' });
  await runtime.startMcp();
  model.enqueue(
    reply().tool('search_tools', { query: 'mcp__everything__get-sum' }),
    reply().tool('mcp__everything__get-sum', { a: 2, b: 40 }),
    reply().tool('list_mcp_resources', { server: 'everything' }).tool('list_mcp_prompts', { server: 'everything' }),
    reply().tool('get_mcp_prompt', { server: 'everything', name: 'simple-prompt' }),
    reply().text('done'),
  );
  const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
  runtime.setFamilies(conv.id, ['mcp'], true); // loaded from the first request, as a person enabling them would
  let outcome = await runtime.sendMessage(conv.id, 'add', { provider: providerFor(model), interactive: false });
  while (outcome.status === 'parked') outcome = (await runtime.decideApproval(outcome.approvalIds[0]!, { approved: true }, { provider: providerFor(model), interactive: false }))!;
  expect(outcome.status).toBe('finished');
  expect(offeredTools(model, 0).some((t) => t.name.startsWith('mcp__'))).toBe(false);
  expect(toolResults(model, 1)[0]).toContain('mcp__everything__get-sum [revealed: callable from your next step]');
  expect(offeredTools(model, 1).map((t) => t.name)).toContain('mcp__everything__get-sum');
  expect(offeredTools(model, 1).map((t) => t.name)).not.toContain('mcp__everything__echo');
  expect(toolResults(model, 2).at(-1)).toMatch(/<untrusted source="mcp everything get-sum"[\s\S]*42/);
  const [resources, prompts] = toolResults(model, 3).slice(-2);
  expect(resources).toMatch(/demo:\/\/|resource/);
  expect(prompts).toContain('simple-prompt');
  expect(toolResults(model, 4).at(-1)).toMatch(/<untrusted source="mcp everything prompt simple-prompt"[\s\S]*\[user\]/);
}, 60_000);

it('names every tool of a server with a 40-character name within the 64 characters the providers take, and calls one whose name was cut', async () => {
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  const server = 'a-very-long-server-name-of-forty-chars-x';
  expect(server).toHaveLength(40);
  runtime = makeRuntime(dataDir, { mcpDeferAbove: 100 });
  addServer(runtime.store, server, { transport: 'stdio', command: EVERYTHING, args: [], tier: 'read-only' });
  await runtime.startMcp();
  // Every name the model is offered; the scripted server refuses a request whose tool name is over 64 characters, as
  // Anthropic and OpenAI do, so the run below only finishes when every name fits.
  const cut = runtime.registry
    .all()
    .filter((t) => t.name.startsWith('mcp__'))
    .map((t) => t.name);
  expect(cut.length).toBeGreaterThan(3);
  for (const name of cut) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  expect(new Set(cut).size).toBe(cut.length);
  const shortened = cut.find((n) => !n.startsWith(`mcp__${server}__get-sum`) && /_[0-9a-f]{8}$/.test(n) && n.length === 64);
  expect(shortened, `a cut name among ${cut.join(', ')}`).toBeDefined();
  const getSum = cut.find((n) => n.startsWith(`mcp__${server}__get-`) && n.includes('sum'))!;
  model.enqueue(reply().tool(getSum, { a: 2, b: 40 }), reply().text('done'));
  const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
  runtime.setFamilies(conv.id, ['mcp'], true);
  let outcome = await runtime.sendMessage(conv.id, 'add', { provider: providerFor(model), interactive: false });
  while (outcome.status === 'parked') outcome = (await runtime.decideApproval(outcome.approvalIds[0]!, { approved: true }, { provider: providerFor(model), interactive: false }))!;
  expect(model.refused.map((r) => r.refusal.message)).toEqual([]);
  expect(outcome.status).toBe('finished');
  expect(offeredTools(model, 0).map((t) => t.name)).toEqual(expect.arrayContaining(cut));
  expect(toolResults(model, 1).at(-1)).toMatch(new RegExp(`<untrusted source="mcp ${server} get-sum"[\\s\\S]*42`));
}, 60_000);

it('speaks legacy SSE too (server-everything in sse mode)', async () => {
  const sse = await startEverythingHttp('sse');
  const store = new Store(tempDir('deskhand-data-'));
  const manager = new McpManager({ store, secret: async () => null });
  try {
    const view = await manager.connect({ name: 'old', transport: 'sse', url: sse.url });
    expect(view.health.status).toBe('connected');
    const r = await manager.callTool('old', 'echo', { message: 'over sse' }, new AbortController().signal);
    expect(r.content).toEqual([{ type: 'text', text: 'Echo: over sse' }]);
  } finally {
    await manager.close();
    store.close();
    sse.stop();
  }
}, 30_000);
