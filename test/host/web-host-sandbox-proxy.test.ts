/**
 * The web host's MCP Apps sandbox proxy (`/sp/<ticket>`) over a real socket: served only into a frame, only for a view's
 * ticket, framed only by the page on the other loopback name, and the view's own page (`/cv/<ticket>`) only to its
 * proxy (a same-origin request) — never framed straight into the page.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import type { AppService } from '../../src/main/host/app/app-service';
import type { CompositionPage } from '../../src/main/host/app/groups/compositions';
import { startWebHost, type WebHost } from '../../src/main/host/web/web-host';
import { tempDir } from '../support/tool-context';
import { RecordingLogger } from './helpers';

const VIEW = 'v'.repeat(24);
const COMPOSITION = 'c'.repeat(24);
const pages: Record<string, CompositionPage> = {
  [VIEW]: { body: '<p>the view</p>', type: 'text/html; charset=utf-8', csp: "default-src 'none'; connect-src 'none'; sandbox allow-scripts", view: { allow: ['camera'] } },
  [COMPOSITION]: { body: '<p>a composition</p>', type: 'text/html; charset=utf-8', csp: "default-src 'none'; sandbox allow-scripts" },
};
let host: WebHost;

beforeEach(async () => {
  const service = { compositionPage: (t: string) => pages[t] ?? null } as unknown as AppService;
  host = await startWebHost({ service, rendererDir: tempDir('deskhand-web-renderer-'), log: new RecordingLogger() });
});
afterEach(async () => host.close());

function get(path: string, name: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers: { host: `${name}:${host.port}`, ...headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const frame = { 'sec-fetch-dest': 'iframe', 'sec-fetch-site': 'cross-site' };

describe('the MCP Apps sandbox proxy', () => {
  it.each([
    ['localhost', '127.0.0.1'],
    ['127.0.0.1', 'localhost'],
  ])('on %s it is framed only by the page on %s, frames the view sandboxed and relays to that origin only', async (name, other) => {
    const r = await get(`/sp/${VIEW}`, name, frame);
    expect(r.status).toBe(200);
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain(`frame-ancestors http://${other}:${host.port}`);
    expect(csp).not.toContain(`frame-ancestors http://${name}`);
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain(`frame-src http://${name}:${host.port};`);
    expect(r.body).toContain(`<iframe id="view" sandbox="allow-scripts" allow="camera" referrerpolicy="no-referrer" src="/cv/${VIEW}">`);
    expect(r.body).toContain(`const UI = "http://${other}:${host.port}";`);
  });

  it.each([
    ['a tab, not a frame', `/sp/${VIEW}`, { 'sec-fetch-dest': 'document' }],
    ['no fetch metadata', `/sp/${VIEW}`, {}],
    ["a composition's ticket", `/sp/${COMPOSITION}`, frame],
    ['an unknown ticket', `/sp/${'x'.repeat(24)}`, frame],
  ])('is refused for %s', async (_why, path, headers) => {
    const r = await get(path, 'localhost', headers);
    expect(r.status).toBe(404);
    expect(r.body).not.toContain('<iframe');
  });

  it.each([
    ['cross-site (the page framing it directly from the other name)', 'cross-site', 403],
    ['same-site', 'same-site', 403],
    ['none', 'none', 403],
    ['same-origin (its proxy)', 'same-origin', 200],
  ])("serves a view's own page only to its proxy: %s", async (_why, site, status) => {
    const r = await get(`/cv/${VIEW}`, 'localhost', { 'sec-fetch-dest': 'iframe', 'sec-fetch-site': site });
    expect(r.status).toBe(status);
    expect(r.body.includes('the view')).toBe(status === 200);
  });

  it("leaves a composition's page as it was (framed by the page on its own origin)", async () => {
    const r = await get(`/cv/${COMPOSITION}`, '127.0.0.1', { 'sec-fetch-dest': 'iframe', 'sec-fetch-site': 'same-origin' });
    expect(r.status).toBe(200);
    expect(r.body).toContain('a composition');
  });
});
