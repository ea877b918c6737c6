/**
 * The renderer is served from `app://deskhand/` (a privileged, standard, secure scheme) instead of file://, so the
 * page has a real origin that the CSP's 'self' and the IPC sender check can name. Only files inside out/renderer are
 * served; every response carries the CSP.
 */
import { protocol } from 'electron';
import { readFile, realpath } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve } from 'node:path';

export const APP_SCHEME = 'app';
export const APP_ORIGIN = 'app://deskhand';
export const APP_URL = `${APP_ORIGIN}/index.html`;

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

export function serveRenderer(rendererDir: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    if (url.host !== 'deskhand') return new Response('Not found', { status: 404 });
    const path = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
    const file = resolve(rendererDir, `.${path}`);
    const rel = relative(rendererDir, file);
    if (rel.startsWith('..') || isAbsolute(rel)) return new Response('Not found', { status: 404 });
    try {
      const real = await realpath(file);
      const relReal = relative(await realpath(rendererDir), real);
      if (relReal.startsWith('..') || isAbsolute(relReal)) return new Response('Not found', { status: 404 });
      const body = await readFile(real);
      return new Response(body, {
        headers: {
          'content-type': TYPES[extname(real)] ?? 'application/octet-stream',
          'content-security-policy': CSP,
          'x-content-type-options': 'nosniff',
        },
      });
    } catch {
      return new Response('Not found', { status: 404 });
    }
  });
}
