/**
 * OAuth for HTTP MCP servers, against a local protected server (SDK server behind a bearer check, with the
 * protected-resource and authorization-server metadata and a token endpoint): the stored access token is refused, the
 * SDK refreshes it with the stored refresh token, and the new tokens land in the keyring (not the database); the call
 * then succeeds. The keyring is the real one (gnome-keyring on the test world's D-Bus, under a throwaway service name;
 * see test/security/keyring.ts), and the database is read through SQLite, so rows still in the WAL file count. The
 * browser sign-in itself (authorization code) is not driven here: it needs a person at a browser.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { McpManager } from '../../src/main/services/mcp/manager';
import { VaultOAuthProvider, oauthAccount } from '../../src/main/services/mcp/oauth';
import { Store } from '../../src/main/services/store/store';
import { KeytarSecretStore } from '../../src/main/services/vault/secret-store';
import { rawDump } from '../support/raw-db';
import { tempDir } from '../support/tool-context';
import { KEYRING_SERVICE_FOR_TESTS, NO_KEYRING_HELP, keyringStatus } from '../security/keyring';

const keyring = new KeytarSecretStore(KEYRING_SERVICE_FOR_TESTS);
const status = await keyringStatus();
beforeAll(() => {
  if (!status.available) throw new Error(`${NO_KEYRING_HELP}\n(keyring error: ${status.error})`);
});

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = null;
  if (status.available) for (const name of await keyring.list()) await keyring.delete(name);
});

const body = (req: IncomingMessage): Promise<string> =>
  new Promise((r) => {
    let s = '';
    req.on('data', (d: Buffer) => (s += d.toString()));
    req.on('end', () => r(s));
  });

async function protectedServer(): Promise<{ url: string; base: string; tokenRequests: URLSearchParams[]; bearers: string[] }> {
  const tokenRequests: URLSearchParams[] = [];
  const bearers: string[] = [];
  let base = '';
  server = createServer(async (req, res) => {
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
    if (req.url === '/.well-known/oauth-protected-resource' || req.url === '/.well-known/oauth-protected-resource/mcp') return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
    if (req.url === '/.well-known/oauth-authorization-server') {
      return json(200, { issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`, response_types_supported: ['code'], grant_types_supported: ['authorization_code', 'refresh_token'], code_challenge_methods_supported: ['S256'], token_endpoint_auth_methods_supported: ['none'] });
    }
    if (req.url === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await body(req));
      tokenRequests.push(form);
      if (form.get('grant_type') === 'refresh_token' && form.get('refresh_token') === 'R1') return json(200, { access_token: 'A2', token_type: 'Bearer', refresh_token: 'R2', expires_in: 3600 });
      return json(400, { error: 'invalid_grant' });
    }
    if (req.url?.startsWith('/mcp')) {
      const auth = req.headers.authorization ?? '';
      bearers.push(auth);
      if (auth !== 'Bearer A2') return json(401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource"` });
      const mcp = new McpServer({ name: 'protected', version: '1' });
      mcp.registerTool('whoami', { description: 'Who the token belongs to', inputSchema: { x: z.string().optional() } }, async () => ({ content: [{ type: 'text', text: 'alice' }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await mcp.connect(transport);
      const raw = await body(req);
      await transport.handleRequest(req, res, raw ? JSON.parse(raw) : undefined);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  return { url: `${base}/mcp`, base, tokenRequests, bearers };
}

it('refreshes an expired access token with the stored refresh token and keeps the new tokens in the keyring', async () => {
  const srv = await protectedServer();
  await keyring.set(oauthAccount('secure', 'tokens'), JSON.stringify({ access_token: 'A1-expired', token_type: 'Bearer', refresh_token: 'R1' }));
  await keyring.set(oauthAccount('secure', 'client'), JSON.stringify({ client_id: 'deskhand-test' }));
  const dataDir = tempDir('deskhand-data-');
  const store = new Store(dataDir);
  const opened: string[] = [];
  const manager = new McpManager({ store, secret: async () => null, oauth: (name) => new VaultOAuthProvider(name, keyring, (u) => void opened.push(u.href)) });
  try {
    const view = await manager.connect({ name: 'secure', transport: 'http', url: srv.url, oauth: true });
    expect(view.health).toMatchObject({ status: 'connected', toolCount: 1 });
    const r = await manager.callTool('secure', 'whoami', {}, new AbortController().signal);
    expect(r.content).toEqual([{ type: 'text', text: 'alice' }]);
    expect(srv.bearers[0]).toBe('Bearer A1-expired');
    expect(srv.bearers.at(-1)).toBe('Bearer A2');
    expect(srv.tokenRequests.map((f) => [f.get('grant_type'), f.get('refresh_token'), f.get('client_id')])).toEqual([['refresh_token', 'R1', 'deskhand-test']]);
    expect(JSON.parse((await keyring.get(oauthAccount('secure', 'tokens')))!)).toMatchObject({ access_token: 'A2', refresh_token: 'R2' });
    expect(opened).toEqual([]); // no browser sign-in was needed
    // Tokens are in the keyring only. The database, read through SQLite (WAL included), holds rows (the server's
    // health) but no token; nor does any file of the data folder, byte for byte.
    const rows = rawDump(dataDir);
    expect(rows).toMatch(/mcp_health: \[\{"name":"secure"/);
    for (const token of ['A1-expired', 'A2', 'R1', 'R2']) {
      expect(rows).not.toContain(token);
      for (const f of readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
        if (f.isFile()) expect(readFileSync(join(f.parentPath, f.name)).includes(`"${token}"`), `${f.name} holds ${token}`).toBe(false);
      }
    }
  } finally {
    await manager.close();
    store.close();
  }
}, 30_000);

it('without usable tokens, the sign-in URL goes to the browser hook and the server shows as failed with why', async () => {
  const srv = await protectedServer();
  await keyring.set(oauthAccount('secure', 'client'), JSON.stringify({ client_id: 'deskhand-test' }));
  const store = new Store(tempDir('deskhand-data-'));
  const opened: string[] = [];
  const manager = new McpManager({ store, secret: async () => null, oauth: (name) => new VaultOAuthProvider(name, keyring, (u) => void opened.push(u.href)) });
  try {
    const view = await manager.connect({ name: 'secure', transport: 'http', url: srv.url, oauth: true });
    expect(view.health.status).toBe('failed');
    expect(view.health.lastError).toMatch(/unauthori[sz]ed/i);
    expect(opened[0]).toMatch(new RegExp(`^${srv.base}/authorize\\?.*code_challenge=`));
    expect(await keyring.get(oauthAccount('secure', 'verifier'))).toBeTruthy();
  } finally {
    await manager.close();
    store.close();
  }
}, 30_000);
