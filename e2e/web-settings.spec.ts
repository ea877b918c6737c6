/**
 * Settings → Web search and Settings → URL grants, proven by effect: a SearXNG backend set in Settings (a local server
 * started here, speaking SearXNG's JSON API) answers the scripted model's web_search, and the model's next request
 * carries its results; a URL grant added in Settings shows what it covers, `deskhand grants list` and `deskhand policy
 * explain` (the app's decision path) see it, and after Revoke a matching http_request asks again. No http_request is
 * run here: the grant is shown through the decision `policy explain` reports, ask → allow → ask.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { artifact, expect, ROOT, test } from './support';

interface Searx {
  server: Server;
  url: string;
  port: number;
  queries: string[];
}

/** A stand-in SearXNG: GET /search?q=…&format=json → {query, results: [{url, title, content, publishedDate}]}. */
async function startSearx(): Promise<Searx> {
  const queries: string[] = [];
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://localhost');
    if (u.pathname !== '/search' || u.searchParams.get('format') !== 'json') {
      res.writeHead(404).end('not found');
      return;
    }
    queries.push(u.searchParams.get('q') ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        query: u.searchParams.get('q'),
        number_of_results: 2,
        results: [
          { url: 'https://example.org/otter-facts', title: 'Otter facts from the local searx', content: 'Sea otters hold hands while sleeping.', publishedDate: '2026-11-02T00:00:00' },
          { url: 'https://example.org/otter-tools', title: 'Otters use tools', content: 'They crack shells with stones.', publishedDate: null },
        ],
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { server, port, url: `http://127.0.0.1:${port}`, queries };
}

function cli(args: string[], dataDir: string, env: NodeJS.ProcessEnv = {}): string {
  const e: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete e.DESKHAND_HOME;
  return execFileSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), ...args, '--data-dir', dataDir], { env: e, encoding: 'utf8' });
}

test('a SearXNG backend set in Settings answers web_search, and its results reach the model', async ({ deskhand }) => {
  const searx = await startSearx();
  try {
    await deskhand.startModel([
      { text: ['Searching.'], tools: [{ name: 'web_search', args: { query: 'otters holding hands', max_results: 2 } }] },
      { text: ['Otters hold hands while they sleep.'] },
    ]);
    const page = await deskhand.start();
    await page.getByRole('button', { name: 'Settings' }).click();

    const form = page.getByRole('form', { name: 'Web search' });
    // None set: the page says so, and what web_search does without one.
    await expect(form.getByRole('status', { name: 'Web search backend' })).toContainText('No web search backend is set');
    await expect(form.getByRole('radio', { name: /^None/ })).toBeChecked();
    // SearXNG without its URL is refused in words.
    await form.getByRole('radio', { name: /^SearXNG/ }).check();
    await form.getByRole('button', { name: 'Save web search' }).click();
    await expect(form.getByRole('alert')).toContainText('SearXNG needs the address of your instance');
    await form.getByLabel('SearXNG URL').fill(searx.url);
    await form.getByRole('button', { name: 'Save web search' }).click();
    await expect(form.getByRole('status', { name: 'Web search backend' })).toHaveText(`web_search uses SearXNG at ${searx.url}.`);
    await form.screenshot({ path: artifact(`${deskhand.kind}-web-search-settings.png`) });
    expect(JSON.parse(cli(['search', 'show', '--json'], deskhand.dataDir))).toEqual({ backend: 'searxng', url: searx.url, keySecret: null });

    await page.getByRole('button', { name: 'Back to conversations' }).click();
    await deskhand.newConversation('Otters');
    await deskhand.send('What do otters do at night?');
    await expect(page.getByText('Otters hold hands while they sleep.')).toBeVisible();
    await expect(page.getByRole('article', { name: 'Tool call web_search: done' })).toBeVisible();

    expect(searx.queries).toEqual(['otters holding hands']);
    const requests = deskhand.requests();
    expect(requests).toHaveLength(2);
    const next = JSON.stringify(requests[1]!.body);
    expect(next).toContain('Otter facts from the local searx');
    expect(next).toContain('https://example.org/otter-facts');
    expect(next).toContain('Sea otters hold hands while sleeping.');
  } finally {
    await new Promise((r) => searx.server.close(r));
  }
});

test('a URL grant added in Settings says what it covers, turns a matching http_request from ask to allow in the decision policy explain reports, and is gone after Revoke', async ({ deskhand }) => {
  await deskhand.startModel([]);
  const page = await deskhand.start();
  await page.getByRole('button', { name: 'Settings' }).click();
  const section = page.getByRole('region', { name: 'URL grants' });
  await expect(section.getByRole('note', { name: 'No URL grants' })).toContainText('No URL grants yet');

  const explain = () =>
    JSON.parse(cli(['policy', 'explain', '--tool', 'http_request', '--args', JSON.stringify({ method: 'GET', url: 'http://127.0.0.1:8123/api/items' })], deskhand.dataDir, { DESKHAND_KEYRING_SERVICE: deskhand.keyringService })) as {
      decision: string;
      reasons: string[];
    };
  const before = explain();
  expect(before.decision).toBe('ask');

  // A pattern that does not parse is refused in words (the CLI's parser), and nothing is added.
  const field = section.getByLabel('URL pattern');
  await field.fill('127.0.0.1:8123/api');
  await field.press('Enter');
  await expect(section.getByRole('alert')).toContainText('is not a URL pattern: write scheme://host[:port]/path');

  await field.fill('http://127.0.0.1:8123/api/*');
  await section.getByRole('button', { name: 'Add grant' }).click();
  const item = section.getByRole('listitem', { name: 'http://127.0.0.1:8123/api/*' });
  await expect(item).toContainText('a private destination');
  await expect(item).toContainText('exact host and port');
  await section.screenshot({ path: artifact(`${deskhand.kind}-url-grants.png`) });

  expect(cli(['grants', 'list'], deskhand.dataDir)).toMatch(/^urlg_[0-9a-f]{8} {2}http:\/\/127\.0\.0\.1:8123\/api\/\*\n$/);
  const granted = explain();
  expect(granted.decision).toBe('allow');
  expect(granted.reasons.join('\n')).toContain('the URL grant http://127.0.0.1:8123/api/* names that exact host and port');

  // Keyboard: the Revoke button is reachable and works with Enter.
  const revoke = item.getByRole('button', { name: 'Revoke http://127.0.0.1:8123/api/*' });
  await revoke.focus();
  await page.keyboard.press('Enter');
  await expect(item).toBeHidden();
  await expect(section.getByRole('note', { name: 'No URL grants' })).toBeVisible();
  expect(cli(['grants', 'list'], deskhand.dataDir)).toBe('No URL grants.\n');
  expect(explain().decision).toBe('ask');
});
