/**
 * The app starts the configured MCP servers in the background (openRuntime, 'background'): a message sent as it opens
 * must still reach the model with their tools. A model call waits for the servers' first connections to settle, until
 * a deadline after the start (open-runtime.ts, waitForFirstMcp). Proven by the model's first request (the tools it was
 * told of) against a server that is slow to answer its first message; and that a server slower than the deadline does
 * not hold the run.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { addServer, closeTestWorld, fake, offeredTools, providerFor } from './helpers';

let model: ModelServer;
let runtime: AppRuntime | null = null;

beforeEach(async () => {
  model = await startModelServer();
});
afterEach(async () => {
  await closeTestWorld(runtime, model);
  runtime = null;
});

/** A data folder whose settings name one server that reads nothing for `delayMs` after it starts. */
function dataWithSlowServer(delayMs: number): string {
  const dataDir = tempDir('deskhand-data-');
  const store = new Store(dataDir);
  addServer(store, 'slow', { ...fake('slow', { env: { FAKE_DELAY_MS: String(delayMs) } }), tier: 'read-only' });
  store.close();
  return dataDir;
}

async function sendAtOnce(rt: AppRuntime) {
  model.enqueue(reply().text('done'));
  const conv = rt.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
  const outcome = await rt.sendMessage(conv.id, 'hello', { provider: providerFor(model), interactive: false });
  // What the model was told of the server's tool: its family's line in the system prompt's catalog (MCP tools load
  // through search_tools), or its schema when loaded.
  return { outcome, request: JSON.stringify(model.requests[0]?.body ?? null), offered: offeredTools(model, 0).map((t) => t.name) };
}

it("a message sent while a configured server is still connecting reaches the model with that server's tools", async () => {
  runtime = openRuntime({ dataDir: dataWithSlowServer(1500), vault: null, mcpDeferAbove: 100 });
  const { outcome, request } = await sendAtOnce(runtime);
  expect(outcome.status).toBe('finished');
  expect(request).toContain('mcp__slow__probe');
  expect(runtime.mcp.servers().map((s) => s.health.status)).toEqual(['connected']);
});

it('a server slower than the wait does not hold the run: past the deadline the step goes on without its tools', async () => {
  runtime = openRuntime({ dataDir: dataWithSlowServer(8000), vault: null, mcpFirstWaitMs: 300 });
  const { outcome, request, offered } = await sendAtOnce(runtime);
  expect(outcome.status).toBe('finished');
  expect(offered.length).toBeGreaterThan(0);
  // The run ended before the server answered (it still connects, and the model was not told of its tool): the wait,
  // not the server (8 s) or its connect timeout (20 s), bounded the step.
  expect(request).not.toContain('mcp__slow__probe');
  expect(runtime.mcp.servers().map((s) => s.health.status)).toEqual(['connecting']);
});
