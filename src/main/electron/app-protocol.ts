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
export const APP_HOST = 'deskhand';
export const APP_URL = `${APP_ORIGIN}/index.html`;

/**
 * Whether `url` is a page of the app. Compares scheme and host: Node's WHATWG URL gives the origin "null" for any
 * non-special scheme such as app://, so an origin comparison would refuse the app itself. Chromium lower-cases the
 * host of a standard scheme; so does this.
 */
export function isAppUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === `${APP_SCHEME}:` && u.host.toLowerCase() === APP_HOST && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  // generate_media's speech plays from a data URL in its tool card (MediaArtifact.tsx).
  "media-src 'self' data:",
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

/** A composition's viewer page by ticket (composition-host.ts), or null. */
export type CompositionPages = (ticket: string) => { body: string | Buffer; type: string; csp: string } | null;

/** `remoteMachine`: the app drives that machine's runtime (remote-app.ts); the page's banner names it (the meta tag App.tsx reads). */
export function serveRenderer(rendererDir: string, compositionPage?: CompositionPages, remoteMachine?: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    try {
      if (!isAppUrl(request.url)) return notFound();
      const url = new URL(request.url);
      const viewer = /^\/cv\/([A-Za-z0-9_-]{24})$/.exec(url.pathname);
      if (viewer) {
        const page = compositionPage?.(viewer[1]!);
        if (!page) return notFound();
        const csp = `${page.csp}; frame-ancestors ${APP_SCHEME}://${APP_HOST}`;
        return new Response(typeof page.body === 'string' ? page.body : new Uint8Array(page.body), { headers: { 'content-type': page.type, 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' } });
      }
      // Malformed escapes (`%E0%A4%A`) throw here: a 404, never a rejected handler.
      const path = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
      if (path.includes('\0')) return notFound();
      const file = resolve(rendererDir, `.${path}`);
      const rel = relative(rendererDir, file);
      if (rel.startsWith('..') || isAbsolute(rel)) return notFound();
      const real = await realpath(file);
      const relReal = relative(await realpath(rendererDir), real);
      if (relReal.startsWith('..') || isAbsolute(relReal)) return notFound();
      let body: Buffer | string = await readFile(real);
      if (remoteMachine && path === '/index.html') body = body.toString('utf8').replace('<head>', `<head><meta name="deskhand-remote" content="${remoteMachine.replace(/[<>"&]/g, '')}">`);
      return new Response(body, {
        headers: {
          'content-type': TYPES[extname(real)] ?? 'application/octet-stream',
          'content-security-policy': CSP,
          'x-content-type-options': 'nosniff',
        },
      });
    } catch {
      return notFound();
    }
  });
}

function notFound(): Response {
  return new Response('Not found', { status: 404, headers: { 'content-security-policy': CSP, 'x-content-type-options': 'nosniff' } });
}
