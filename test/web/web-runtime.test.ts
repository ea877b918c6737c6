/**
 * The web tools through the real loop (scripted model server, SQLite store): a fetch of a URL on this machine parks
 * for a person; approved from another runtime over the same data folder (as `deskhand runs approve` would), it runs
 * with the persisted decision; its redirect to a loopback address is not followed; the model's follow-up request for
 * that address asks again. The loopback target's request log stays empty throughout.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Runtime } from '../../src/main/runtime/runtime';
import { ToolRegistry } from '../../src/main/runtime/registry';
import { Store } from '../../src/main/services/store/store';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { createWebFamily } from '../../src/main/tools/web';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { clientWith, startServer, type TestServer } from './servers';

let model: ModelServer;
let a: TestServer;
let b: TestServer;
let dataDir: string;
let work: string;
const stores: Store[] = [];

beforeEach(async () => {
  model = await startModelServer();
  b = await startServer((_req, res) => res.end('admin console'));
  a = await startServer((req, res) => {
    if (req.url === '/go') return res.writeHead(302, { location: `http://127.0.0.1:${b.port}/admin` }).end();
    res.end('?');
  });
  dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
});
afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  await Promise.all([model.close(), a.close(), b.close()]);
});

function runtime(): Runtime {
  const store = new Store(dataDir);
  stores.push(store);
  const registry = new ToolRegistry(
    createWebFamily({ http: clientWith({ 'site.test': '127.0.0.1' }), urlGrants: () => store.urlGrants.patterns(), search: () => null, keys: null }).tools,
  );
  return new Runtime({ store, dataDir, registry, retryBaseMs: 10, idleTimeoutMs: 5000 });
}

const provider = (): ProviderConfig => ({ provider: 'openai', model: 'gpt-test', baseURL: model.baseURL, apiKey: 'sk-test' });

function toolResults(i: number): string[] {
  const messages = (model.requests[i]?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}

it('asks for a local URL, does not follow its redirect to loopback, and asks again for the loopback URL', async () => {
  const first = runtime();
  const conv = first.createConversation({ folder: work, policy: 'high-risk' });
  const start = `http://site.test:${a.port}/go`;
  const target = `http://127.0.0.1:${b.port}/admin`;
  model.enqueue(reply().tool('web_fetch', { url: start }), reply().tool('web_fetch', { url: target }), reply().text('done'));

  const parked = await first.sendMessage(conv.id, 'read it', { provider: provider(), interactive: false });
  expect(parked.status).toBe('parked');
  const approval = first.store.getApproval(parked.approvalIds[0]!)!;
  expect(approval.preview).toContain(`GET ${start}`);
  expect(approval.reasons).toContain(`private destination site.test:${a.port} [127.0.0.1]`);
  expect(a.log).toEqual([]); // nothing was sent before the person answered

  // Another runtime over the same data folder approves: the call runs with the decision the store kept.
  const second = runtime();
  const again = await second.decideApproval(approval.id, { approved: true }, { provider: provider(), interactive: false });
  expect(again?.status).toBe('parked');
  expect(a.log.map((l) => l.url)).toEqual(['/go']);
  const result = toolResults(1).at(-1)!;
  expect(result).toMatch(/<untrusted source="web_fetch http:\/\/site\.test:\d+\/go"/);
  expect(result).toContain(`Redirect to ${target} was not followed`);
  const asked = second.store.getApproval(again!.approvalIds[0]!)!;
  expect(asked.reasons).toMatch(/private destination 127\.0\.0\.1:\d+ \[127\.0\.0\.1\].*loopback/);

  const denied = await second.decideApproval(asked.id, { approved: false, reason: 'no' }, { provider: provider(), interactive: false });
  expect(denied?.status).toBe('finished');
  expect(b.log).toEqual([]); // the loopback target was never contacted
});
