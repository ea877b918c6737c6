/**
 * read_pdf {url} through the real runtime: a PDF on a local server (loopback, so the url-guard asks unless a URL grant
 * covers it) is fetched through the web family's pinned client, read with page markers, and its text reaches the
 * scripted model inside the untrusted envelope (the run is tainted afterwards). Without a grant the run parks first
 * and the server is never asked.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../../src/main/host/assembly/open-runtime';
import { findChromium } from '../../../src/main/services/chromium/index';
import { ChromiumPdfPrinter } from '../../../src/main/services/pdf/print';
import { Store } from '../../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer } from '../../support/model-server';
import { tempDir } from '../../support/tool-context';

let pdf: Buffer;
let site: Server;
let hits: string[];
let url: string;
let server: ModelServer;
let store: Store;
let runtime: AppRuntime;

describe.skipIf(!findChromium())('read_pdf by URL', () => {
  beforeAll(async () => {
    pdf = Buffer.from(await new ChromiumPdfPrinter().print('<h1>Remote invoice</h1><p>Total due: 314 euros.</p>', { size: 'A4' }));
    hits = [];
    site = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf);
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/invoice.pdf`;
  }, 60_000);
  afterAll(() => new Promise((r) => site.close(r)));

  beforeEach(async () => {
    hits.length = 0;
    server = await startModelServer();
    const dataDir = tempDir('deskhand-pdfurl-data-');
    store = new Store(dataDir);
    runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000 });
  });
  afterEach(async () => {
    await runtime.tasks.shutdown();
    store.close();
    await server.close();
  });

  const provider = () => ({ provider: 'openai-compatible' as const, model: 'm', baseURL: server.baseURL, apiKey: null });

  it('parks before fetching a loopback PDF nobody approved', async () => {
    server.enqueue(reply().tool('read_pdf', { url }));
    const conv = runtime.createConversation({ folder: tempDir('deskhand-pdfurl-work-'), policy: 'read-only' });
    runtime.setFamilies(conv.id, ['pdf'], true); // loaded from the first request, as a person enabling them would
    const outcome = await runtime.sendMessage(conv.id, 'read the invoice', { provider: provider(), interactive: false });
    expect(outcome.status).toBe('parked');
    expect(hits).toEqual([]);
  });

  it('reads a granted URL and hands the text to the model as untrusted', async () => {
    store.urlGrants.add(`http://127.0.0.1:${(site.address() as AddressInfo).port}/*`);
    server.enqueue(reply().tool('read_pdf', { url }));
    server.enqueue(reply().text('314 euros are due.'));
    const conv = runtime.createConversation({ folder: tempDir('deskhand-pdfurl-work-'), policy: 'read-only' });
    runtime.setFamilies(conv.id, ['pdf'], true); // loaded from the first request, as a person enabling them would
    const outcome = await runtime.sendMessage(conv.id, 'read the invoice', { provider: provider(), interactive: false });
    expect(outcome.status).toBe('finished');
    expect(hits).toEqual(['/invoice.pdf']);
    const sent = JSON.stringify(server.requests.at(-1)!.body);
    expect(sent).toContain('--- page 1 ---');
    expect(sent).toContain('Total due: 314 euros.');
    expect(sent).toMatch(/<untrusted source=\\"[^\\]*invoice\.pdf\\" nonce=/);
  });
});
