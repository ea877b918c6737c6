/**
 * PDFs from the web and encrypted PDFs, through the real runtime, the scripted model server and a local HTTP server:
 * - web_fetch of a PDF reads its first pages itself and tells the model how to read on (read_pdf {url, pages}); the
 *   model's next request carries those pages and that instruction, and read_pdf by URL then reads the later pages.
 * - an encrypted PDF (qpdf --encrypt) is read with `password` given as the placeholder of a vault secret: the person
 *   approves loading it and the read; the value reaches pdfjs (the secret page text comes back) but never the model's
 *   requests, the store (every row through SQLite, every file of the data folder) or the run's events.
 * - a literal password is refused before anything is read (and redacted from the stored call); a wrong one says so.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../../src/main/host/assembly/open-runtime';
import { Store } from '../../../src/main/services/store/store';
import { MemorySecretStoreForTests } from '../../../src/main/services/vault/secret-store';
import { Vault } from '../../../src/main/services/vault/vault';
import type { RunEvent } from '../../../src/shared/events';
import { reply, startModelServer, type ModelServer } from '../../support/model-server';
import { encryptedPdf, textPdf } from '../../support/pdf';
import { rawDump } from '../../support/raw-db';
import { tempDir } from '../../support/tool-context';

const PASSWORD = `pdf-pw-${Math.random().toString(36).slice(2)}-x`;
const PAGES = ['Page one: the summary', 'Page two: the figures', 'Page three: the method', 'Page four: revenue 4242 euros', 'Page five: the end'];
const plain = textPdf(PAGES);
const locked = encryptedPdf(textPdf(['Locked page: the vault code is 9917']), PASSWORD, `${PASSWORD}-owner`);

let site: Server;
let hits: string[];
let base: string;
let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
let dataDir: string;
let work: string;
let events: RunEvent[];

beforeAll(async () => {
  hits = [];
  site = createServer((req, res) => {
    hits.push(req.url ?? '');
    const body = req.url === '/report.pdf' ? plain : req.url === '/locked.pdf' ? locked : null;
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/pdf' }).end(body);
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startModelServer();
});
afterAll(async () => {
  await new Promise((r) => site.close(r));
  await server.close();
});

beforeEach(async () => {
  hits.length = 0;
  events = [];
  dataDir = tempDir('deskhand-pdfpw-data-');
  work = tempDir('deskhand-pdfpw-work-');
  store = new Store(dataDir);
  const vault = new Vault(new MemorySecretStoreForTests(), store);
  await vault.set('PDF_PW', PASSWORD, 'the report password');
  runtime = createAppRuntime({ store, dataDir, vault, retryBaseMs: 10, idleTimeoutMs: 10_000 });
  store.urlGrants.add(`${base}/*`);
});
afterEach(async () => {
  await runtime.tasks.shutdown();
  store.close();
});

const options = () => ({
  provider: { provider: 'openai-compatible' as const, model: 'm', baseURL: server.baseURL, apiKey: null },
  interactive: false,
  onEvent: (e: RunEvent) => events.push(e),
});

function conversation(families: string[] = []) {
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  if (families.length) runtime.setFamilies(conv.id, families, true);
  return conv;
}

const lastRequest = () => JSON.stringify(server.requests.at(-1)!.body);

/** Every file under `dir`, bytes. */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    const st = statSync(p);
    return st.isDirectory() ? filesUnder(p) : st.isFile() ? [{ path: p, bytes: readFileSync(p) }] : [];
  });
}

describe('web_fetch of a PDF', () => {
  it('reads the first pages itself and names read_pdf {url, pages} for the rest, which then reads them', async () => {
    const url = `${base}/report.pdf`;
    server.enqueue(reply().tool('web_fetch', { url }), reply().tool('read_pdf', { url, pages: '4-5' }), reply().text('Revenue was 4242 euros.'));
    const conv = conversation();
    const outcome = await runtime.sendMessage(conv.id, 'what does the report say about revenue?', options());
    expect(outcome.status).toBe('finished');
    expect(hits).toEqual(['/report.pdf', '/report.pdf']);
    const afterFetch = JSON.stringify(server.requests.at(-2)!.body);
    expect(afterFetch).not.toContain('not available in this build');
    expect(afterFetch).toContain('A PDF of 5 pages; pages 1–3 shown.');
    expect(afterFetch).toContain('Page three: the method');
    expect(afterFetch).not.toContain('revenue 4242');
    expect(afterFetch).toContain(`call read_pdf {url: \\"${url}\\", pages: \\"4-13\\"}`);
    // read_pdf was offered from the next step on (the pdf family was not loaded before).
    const toolsOffered = (server.requests.at(-2)!.body as { tools?: { function: { name: string } }[] }).tools?.map((t) => t.function.name) ?? [];
    expect(toolsOffered).toContain('read_pdf');
    expect(JSON.stringify(server.requests.at(-3)!.body.tools ?? [])).not.toContain('"read_pdf"');
    const afterRead = lastRequest();
    expect(afterRead).toContain('--- page 4 ---');
    expect(afterRead).toContain('Page four: revenue 4242 euros');
  });

  it('an encrypted PDF is named as such, with how to give the password', async () => {
    const url = `${base}/locked.pdf`;
    server.enqueue(reply().tool('web_fetch', { url }), reply().text('It is locked.'));
    const outcome = await runtime.sendMessage(conversation().id, 'read it', options());
    expect(outcome.status).toBe('finished');
    const sent = lastRequest();
    expect(sent).toContain('It is encrypted with a password');
    expect(sent).toContain(`call read_pdf {url: \\"${url}\\", password: \\"[redacted:NAME]\\"}`);
    expect(sent).not.toContain('vault code');
  });
});

describe('read_pdf and pdf_page_count with a password', () => {
  it('reads an encrypted PDF by URL with a vault secret; the password is nowhere the model, store or events see', async () => {
    const url = `${base}/locked.pdf`;
    const first = server.requests.length;
    server.enqueue(
      reply().tool('use_saved_secret', { name: 'PDF_PW' }),
      reply().tool('read_pdf', { url, password: '[redacted:PDF_PW]' }),
      reply().text('The code is 9917.'),
    );
    const conv = conversation(['secrets', 'pdf']);
    let outcome = await runtime.sendMessage(conv.id, 'read the locked report', options());
    expect(outcome.status).toBe('parked');
    outcome = (await runtime.decideApproval(outcome.approvalIds[0]!, { approved: true }, options()))!;
    // A call carrying a secret placeholder always asks; the approval shows the placeholder.
    expect(outcome.status).toBe('parked');
    const approval = store.pendingApprovals(outcome.runId)[0]!;
    expect(approval.tool).toBe('read_pdf');
    expect(approval.preview ?? '').not.toContain(PASSWORD);
    expect(hits).toEqual([]);
    outcome = (await runtime.decideApproval(approval.id, { approved: true }, options()))!;
    expect(outcome.status).toBe('finished');
    expect(hits).toEqual(['/locked.pdf']);
    // The value opened the file: the locked page's text reached the model.
    expect(lastRequest()).toContain('Locked page: the vault code is 9917');
    for (const r of server.requests.slice(first)) expect(JSON.stringify(r.body)).not.toContain(PASSWORD);
    expect(JSON.stringify(events)).not.toContain(PASSWORD);
    await runtime.tasks.shutdown();
    expect(rawDump(dataDir)).not.toContain(PASSWORD);
    expect(rawDump(dataDir)).toContain('[redacted:PDF_PW]');
    for (const f of filesUnder(dataDir)) expect(f.bytes.includes(Buffer.from(PASSWORD)), f.path).toBe(false);
  });

  it('pdf_page_count opens a local encrypted file with the password; a wrong one is named', async () => {
    writeFileSync(join(work, 'locked.pdf'), locked);
    await runtime.tasks.shutdown();
    const vault = new Vault(new MemorySecretStoreForTests(), store);
    await vault.set('PDF_PW', PASSWORD, 'right');
    await vault.set('WRONG_PW', `${PASSWORD}-wrong`, 'wrong');
    runtime = createAppRuntime({ store, dataDir, vault, retryBaseMs: 10, idleTimeoutMs: 10_000 });
    server.enqueue(
      reply().tool('use_saved_secret', { name: 'WRONG_PW' }),
      reply().tool('pdf_page_count', { path: 'locked.pdf', password: '[redacted:WRONG_PW]' }),
      reply().tool('use_saved_secret', { name: 'PDF_PW' }),
      reply().tool('pdf_page_count', { path: 'locked.pdf', password: '[redacted:PDF_PW]' }),
      reply().text('One page.'),
    );
    const conv = conversation(['secrets', 'pdf']);
    let outcome = await runtime.sendMessage(conv.id, 'count the pages', options());
    const seen: string[] = [];
    while (outcome.status === 'parked') {
      seen.push(store.pendingApprovals(outcome.runId)[0]!.tool);
      outcome = (await runtime.decideApproval(outcome.approvalIds[0]!, { approved: true }, options()))!;
    }
    expect(outcome.status).toBe('finished');
    expect(seen).toEqual(['use_saved_secret', 'pdf_page_count', 'use_saved_secret', 'pdf_page_count']);
    const results = events.filter((e): e is Extract<RunEvent, { type: 'tool.result' }> => e.type === 'tool.result' && e.tool === 'pdf_page_count').map((e) => e.output);
    expect(results[0]).toContain('The password given for this encrypted PDF is not right');
    expect(results[1]).toBe('locked.pdf: 1 page.');
    for (const r of server.requests) expect(JSON.stringify(r.body)).not.toContain(PASSWORD);
  });

  it('refuses a literal password before reading anything; the literal itself is redacted from what the model sees next', async () => {
    writeFileSync(join(work, 'locked.pdf'), locked);
    server.enqueue(reply().tool('read_pdf', { path: 'locked.pdf', password: 'hunter2' }), reply().text('ok'));
    const outcome = await runtime.sendMessage(conversation(['pdf']).id, 'read it', options());
    expect(outcome.status).toBe('finished');
    const sent = lastRequest();
    // A string under a key named password is redacted when the call is stored, and the placeholder that leaves is
    // not one this run holds: refused, nothing read.
    expect(sent).toContain('Refused: [redacted:password] is not a secret this run holds');
    expect(sent).not.toContain('hunter2');
    expect(sent).not.toContain('vault code');
    expect(rawDump(dataDir)).not.toContain('hunter2');
  });
});
