/**
 * A peer's daily budget pauses a turn as the other budgets do: in a peer's conversation, the model call that would
 * cross the peer's tokens for today (its finished turns plus this turn's calls) is not made; the run parks with a
 * budget hold, and a raise (the peer's new daily limit) continues it from where it stood.
 */
import { afterEach, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { peersModule } from '../../src/main/services/store/modules/peers';
import { usageModule } from '../../src/main/services/store/modules/usage';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
afterEach(async () => {
  await runtime?.tasks.shutdown();
  store?.close();
  await server?.close();
});

it("a peer's daily token budget parks its turn before the call that would cross it; raising it finishes the turn", async () => {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-data-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10 });
  const provider = { provider: 'openai' as const, model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' };
  const peers = store.module(peersModule);
  peers.insert({ name: 'alice', endpoint: null, tier: 'public', allow: '[]', turns_per_day: 10, tokens_per_day: 1000, cost_per_day: null, enabled: 1 });
  // Alice's earlier turns today used 700 tokens.
  peers.addUsage('alice', new Date().toISOString().slice(0, 10), 1, 700);
  const conv = runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
  peers.linkConversation(conv.id, 'alice', 'ctx-1');
  // 700 + the first step's 200 = 900; the second step's estimate (200 more) would cross 1,000.
  server.enqueue(reply().tool('get_time', {}, { id: 'g1' }).usage({ input: 150, output: 50 }));
  const parked = await runtime.sendMessage(conv.id, 'What time is it?', { provider, interactive: false });
  expect(parked.status).toBe('parked');
  expect(server.requests).toHaveLength(1);
  const [hold] = store.module(usageModule).pendingHolds(parked.runId);
  expect(hold).toMatchObject({ scope: 'peer', scope_id: 'alice', unit: 'tokens', spent: 900, limit_value: 1000 });

  await expect(runtime.answerBudgetHold(hold!.id, { tokens: 900 })).rejects.toThrow(/not above what was spent/);
  server.enqueue(reply().text('It is noon.').usage({ input: 150, output: 50 }));
  const done = await runtime.answerBudgetHold(hold!.id, { tokens: 5000 }, { provider, interactive: false });
  expect(done?.status).toBe('finished');
  expect(peers.get('alice')!.tokens_per_day).toBe(5000);
  expect(server.requests).toHaveLength(2);
  expect(JSON.stringify(server.requests[1]!.body)).toContain('g1');
});
