/**
 * Local model server detection for the first-run panel: a server that is slow to list its models (a loaded machine's
 * Ollama) is still found; nothing listening is reported at once; a server that accepts and never answers is bounded.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { detectLocalServers, PROBE_TIMEOUT_MS, type LocalServerProbe } from '../../src/main/services/providers/local-servers';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** An Ollama stand-in that answers /api/tags only once `answer` is called. */
async function heldOllama(): Promise<{ url: string; asked: Promise<void>; answer: () => void }> {
  let asked!: () => void;
  const askedP = new Promise<void>((r) => (asked = r));
  let answer!: () => void;
  const answered = new Promise<void>((r) => (answer = r));
  const s = createServer((req, res) => {
    if (req.url !== '/api/tags') return void res.writeHead(404).end();
    asked();
    void answered.then(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ models: [{ name: 'llama3.1:8b' }] })));
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, asked: askedP, answer };
}

const ollama = (url: string): LocalServerProbe => ({ kind: 'ollama', label: 'Ollama', url, paths: ['/api/tags', '/v1/models'] });

describe('detectLocalServers', () => {
  it('finds a server that answers well after the old 800 ms bound', async () => {
    const slow = await heldOllama();
    const found = detectLocalServers([ollama(slow.url)]);
    await slow.asked;
    // Answer only after the old bound has surely passed (the probe must still be waiting).
    await new Promise((r) => setTimeout(r, 1_500));
    slow.answer();
    expect(await found).toEqual([{ kind: 'ollama', label: 'Ollama', baseURL: `${slow.url}/v1`, models: ['llama3.1:8b'] }]);
    expect(PROBE_TIMEOUT_MS).toBeGreaterThanOrEqual(5_000);
  });

  it('reports nothing for a port nobody listens on, and bounds a server that never answers', async () => {
    const s = createServer(() => undefined);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const closed = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    await new Promise((r) => s.close(r));
    const mute = await heldOllama();
    expect(await detectLocalServers([ollama(closed), ollama(mute.url)], 300)).toEqual([]);
  });
});
