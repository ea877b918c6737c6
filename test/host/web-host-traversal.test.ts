/**
 * Path traversal against the web host, with requests that get past the token check and so reach the containment
 * code: `..` hidden from the URL parser (`%2f`, `%2e%2e%2f`, `%5c`), a folder whose name starts like the renderer's,
 * a link inside the renderer pointing out, next to files placed beside the renderer folder. A 403 here would mean the
 * request never reached containment (the URL parser had already removed the `..`), so each must be a 404.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWebHost, type WebHost } from '../../src/main/host/web/web-host';
import { tempDir } from '../support/tool-context';
import { openHarness, RecordingLogger, type Harness } from './helpers';

let h: Harness;
let host: WebHost;

beforeEach(async () => {
  const parent = tempDir('deskhand-web-parent-');
  const renderer = join(parent, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Deskhand</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  // Beside the renderer: a file, and a folder whose name starts with the renderer's ("renderer-evil").
  writeFileSync(join(parent, 'secret.txt'), 'do not serve: beside');
  mkdirSync(join(parent, 'renderer-evil'));
  writeFileSync(join(parent, 'renderer-evil', 'x.js'), 'do not serve: sibling');
  symlinkSync(join(parent, 'secret.txt'), join(renderer, 'assets', 'link-out.js'));
  h = openHarness({ dataDir: tempDir('deskhand-web-data-') });
  host = await startWebHost({ service: h.service, rendererDir: renderer, log: new RecordingLogger() });
});
afterEach(async () => {
  await host.close();
  h.close();
});

function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers: { host: `127.0.0.1:${host.port}` } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('web host: traversal reaches containment and is refused there', () => {
  it('serves a file inside the renderer under an encoded slash (the decoded path is what containment judges)', async () => {
    const r = await get(`/${host.token}/assets%2fapp.js`);
    expect(r).toMatchObject({ status: 200, body: 'console.log(1)' });
  });

  const paths = [
    '..%2fsecret.txt',
    '..%2F..%2Fetc%2Fpasswd',
    'assets%2f..%2f..%2fsecret.txt',
    'assets/..%2f..%2fsecret.txt',
    '%2e%2e%2fsecret.txt',
    '%2E%2E%2F%2E%2E%2Fsecret.txt',
    '..%5csecret.txt',
    '..%2frenderer-evil%2fx.js',
    '%2e%2e%2frenderer-evil/x.js',
    'assets/link-out.js',
    '..%2f..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
    '%00..%2fsecret.txt',
  ];
  it.each(paths)('/TOKEN/%s → 404, never the file', async (p) => {
    const r = await get(`/${host.token}/${p}`);
    expect(r.status, 'a 403 means the request never got past the token to the containment code').toBe(404);
    expect(r.body).not.toContain('do not serve');
    expect(r.body).not.toContain('root:');
  });
});
