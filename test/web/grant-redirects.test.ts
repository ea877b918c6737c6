/**
 * Round three (item 15): a URL grant's path holds on every redirect hop. A call the grant cleared (no person saw it)
 * follows a redirect only to a URL a grant covers too — same host included: a grant for /docs/* does not reach /admin
 * by a redirect. Proven by the local server's log: the hop outside the grant is never requested, its handler never runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callEffects, decide } from '../../src/main/runtime/decision/approval-engine';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { PinnedHttpClient } from '../../src/main/services/http/pinned-client';
import { createWebFamily } from '../../src/main/tools/web';
import { createReadPdf } from '../../src/main/tools/compositions/read-pdf';
import { PdfJsReader } from '../../src/main/services/pdf/read';
import { makeContext, tempDir } from '../support/tool-context';
import { startServer, type TestServer } from './servers';

const work = tempDir('deskhand-grant-hops-');
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server whose /docs/ pages redirect where `?to=` says; /admin and /docs/* pages answer and record that they ran. */
async function redirector() {
  const ran: string[] = [];
  const s = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const to = url.searchParams.get('to');
    if (to) return void res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to }).end();
    ran.push(url.pathname);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`page ${url.pathname}`);
  });
  servers.push(s);
  return { s, ran };
}

async function run(tool: ToolDefinition, args: unknown, grants: string[], tainted: boolean) {
  const ectx = { cwd: work, workspaceRoots: [work], dataDir: work };
  const parsed = tool.params.parse(args);
  const effects = await callEffects(tool, parsed, ectx);
  const decision = decide({ tool, args: parsed, effects, policy: 'read-only', tainted, ctx: ectx, urlGrants: grants });
  if (decision.decision !== 'allow') return { decision, output: null as string | null, error: null as string | null };
  const ctx = { ...makeContext(work), approvedByPerson: false, decisionReasons: decision.reasons };
  try {
    return { decision, output: (await tool.execute(parsed as never, ctx)).output, error: null };
  } catch (err) {
    return { decision, output: null, error: (err as Error).message };
  }
}

function tools(grants: string[]) {
  const family = createWebFamily({ http: new PinnedHttpClient(), urlGrants: () => grants, search: () => null, keys: null });
  return {
    fetch: family.tools.find((t) => t.name === 'web_fetch')!,
    request: family.tools.find((t) => t.name === 'http_request')!,
    // read_pdf {url} fetches through the web family's guards (the host passes them on the same way).
    pdf: createReadPdf(new PdfJsReader(), family.net) as unknown as ToolDefinition,
  };
}

type Hop = [what: string, to: (origin: string) => string, followed: boolean, status?: number];
const hops: Hop[] = [
  ['a same-host hop outside the granted path (/admin)', () => '/admin', false],
  ['an absolute same-host hop outside the path', (o) => `${o}/admin`, false],
  ['a hop that climbs out with ../', () => '/docs/../admin', false],
  ['a hop whose path only starts like the grant (/docsx)', () => '/docsx/a', false],
  ['a 307 hop outside the path', () => '/admin', false, 307],
  ['a 301 hop outside the path', () => '/admin', false, 301],
  ['a hop to the same path on another port', (o) => o.replace(/:(\d+)$/, (_m, p: string) => `:${Number(p) === 65535 ? 65534 : Number(p) + 1}`) + '/docs/b', false],
  ['a hop inside the granted path', () => '/docs/b', true],
  ['an absolute hop inside the granted path', (o) => `${o}/docs/deep/c`, true],
];

describe('a URL grant holds on every redirect hop', () => {
  it.each(hops)('web_fetch, tainted run: %s', async (_what, to, followed, status) => {
    const { s, ran } = await redirector();
    const grants = [`${s.origin}/docs/*`];
    const target = to(s.origin);
    const r = await run(tools(grants).fetch, { url: `${s.origin}/docs/a?to=${encodeURIComponent(target)}${status ? `&status=${status}` : ''}` }, grants, true);
    // The first hop is covered: the call runs unattended, tainted or not.
    expect(r.decision.decision, r.decision.reasons.join(' | ')).toBe('allow');
    const path = new URL(target, s.origin).pathname;
    if (followed) {
      expect(ran).toEqual([path]);
      expect(r.output).toContain(`page ${path}`);
    } else {
      // The hop's handler never ran: only the first request reached the server.
      expect(ran).toEqual([]);
      expect(s.log.map((l) => new URL(l.url, 'http://x').pathname)).toEqual(['/docs/a']);
      expect(r.output).toMatch(/not followed: the call ran unattended because the URL grant .* covers .*, and no URL grant covers/);
    }
  });

  it.each(hops)('read_pdf {url}, tainted run: %s', async (_what, to, followed, status) => {
    const { s, ran } = await redirector();
    const grants = [`${s.origin}/docs/*`];
    const target = to(s.origin);
    const r = await run(tools(grants).pdf, { url: `${s.origin}/docs/a.pdf?to=${encodeURIComponent(target)}${status ? `&status=${status}` : ''}` }, grants, true);
    expect(r.decision.decision, r.decision.reasons.join(' | ')).toBe('allow');
    const path = new URL(target, s.origin).pathname;
    if (followed) {
      // Followed: the hop's page was fetched (it is text, so read_pdf says it is not a PDF).
      expect(ran).toEqual([path]);
      expect(r.error).toMatch(/is not a PDF/);
    } else {
      expect(ran).toEqual([]);
      expect(s.log.map((l) => new URL(l.url, 'http://x').pathname)).toEqual(['/docs/a.pdf']);
      expect(r.error).toMatch(/No PDF was read: .* was not followed: the call ran unattended because the URL grant .* covers .*, and no URL grant covers/);
    }
  });

  it('http_request POST: a 307 to a path outside the grant never reaches the server, and neither does the body', async () => {
    const { s, ran } = await redirector();
    const grants = [`${s.origin}/docs/*`];
    const r = await run(tools(grants).request, { method: 'POST', url: `${s.origin}/docs/upload?to=/admin/upload&status=307`, body: 'secret notes' }, grants, true);
    expect(r.decision.decision, r.decision.reasons.join(' | ')).toBe('allow');
    expect(ran).toEqual([]);
    expect(s.log.map((l) => l.url.split('?')[0])).toEqual(['/docs/upload']);
    expect(JSON.stringify(r.output)).toMatch(/no URL grant covers/);
  });

  it('a second grant covering the hop lets it through', async () => {
    const { s, ran } = await redirector();
    const grants = [`${s.origin}/docs/*`, `${s.origin}/admin`];
    const r = await run(tools(grants).fetch, { url: `${s.origin}/docs/a?to=/admin` }, grants, true);
    expect(r.decision.decision).toBe('allow');
    expect(ran).toEqual(['/admin']);
  });

  it('a call a person approved (no grant needed) follows its same-host hop as before', async () => {
    const { s, ran } = await redirector();
    const tool = tools([]).fetch;
    const parsed = tool.params.parse({ url: `${s.origin}/docs/a?to=/admin` });
    const ectx = { cwd: work, workspaceRoots: [work], dataDir: work };
    const decision = decide({ tool, args: parsed, effects: await callEffects(tool, parsed, ectx), policy: 'read-only', tainted: false, ctx: ectx, urlGrants: [] });
    expect(decision.decision).toBe('ask');
    const out = await tool.execute(parsed as never, { ...makeContext(work), approvedByPerson: true, decisionReasons: decision.reasons });
    expect(ran).toEqual(['/admin']);
    expect(out.output).toContain('page /admin');
  });
});
