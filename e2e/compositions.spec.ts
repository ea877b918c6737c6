/**
 * Compositions reviewed in the app (issue 17, "Done when"): the agent makes an HTML page that tries to reach a local
 * server (fetch, an <img>, top.location, a form post) — the server receives nothing and the viewer lists each block;
 * the person comments, the agent revises, the two versions compare (text diff), the person approves and the agent
 * publishes to a local bare git repository, whose file is byte for byte the approved version.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifact, expect, test } from './support';

let outside: Server;
let hits: string[] = [];
let port = 0;

test.beforeEach(async () => {
  hits = [];
  outside = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.end('ok');
  });
  await new Promise<void>((r) => outside.listen(0, '127.0.0.1', r));
  port = (outside.address() as AddressInfo).port;
});
test.afterEach(async () => {
  await new Promise<void>((r) => outside.close(() => r()));
});

const page1 = (base: string) => `<!doctype html><html><head><title>Sales</title><style>h1{color:#2456c7}</style></head><body>
<h1 id="t">Sales v1</h1>
<img alt="tracker" src="${base}/img.png">
<form id="f" action="${base}/form" method="post"><input name="q" value="secret"></form>
<script>
document.getElementById('t').textContent += ' (script ran)';
fetch('${base}/fetch').catch(function () {});
setTimeout(function () { document.getElementById('f').submit(); }, 50);
setTimeout(function () { top.location = '${base}/navigate'; }, 100);
setTimeout(function () { document.getElementById('d').textContent = 'all attempts made'; }, 300);
</script>
<p id="d"></p>
</body></html>
`;
const page2 = '<!doctype html><html><head><title>Sales</title></head><body>\n<h1>Sales v2</h1>\n<p>Now with a legend.</p>\n</body></html>\n';

test('renders with nothing leaving, changes asked → revision, compare, approve, publish to a bare repo', async ({ deskhand }) => {
  test.skip(deskhand.kind !== 'web', 'The web host is the transport this flow is specified for; Electron serves the same page through app-protocol.ts.');
  const base = `http://127.0.0.1:${port}`;
  const bare = join(deskhand.dataDir, '..', 'site.git');
  execFileSync('git', ['init', '-q', '--bare', bare]);
  mkdirSync(deskhand.dataDir, { recursive: true });
  writeFileSync(join(deskhand.dataDir, 'publish-targets.json'), JSON.stringify({ git: { site: { repository: bare, branch: 'pages' } } }));
  const id = '<<request:cmp_[0-9a-f]{10}>>';
  await deskhand.startModel([
    { tools: [{ name: 'create_composition', args: { title: 'Sales chart', kind: 'html', content: page1(base) } }] },
    { text: ['I made a sales page for you to review.'] },
    { tools: [{ name: 'create_composition', args: { title: 'Sales chart', kind: 'html', content: page2, revises: id } }] },
    { text: ['Revised: version 2 has a legend.'] },
    { tools: [{ name: 'publish_composition', args: { id, target: { type: 'git', name: 'site' } } }] },
    { text: ['Published.'] },
  ]);
  const page = await deskhand.start();
  await deskhand.newConversation('Sales');
  await page.getByRole('combobox', { name: 'Policy' }).selectOption('low-risk');
  await deskhand.send('Make me a sales page');
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('I made a sales page');

  // Open it from the panel: it renders (its script ran), and every attempt to reach outside is listed as blocked.
  const panel = page.getByRole('complementary', { name: 'Compositions' });
  await panel.getByRole('button', { name: 'Open composition Sales chart' }).click();
  const viewer = page.getByRole('region', { name: 'Composition Sales chart' });
  const frame = page.frameLocator('iframe[title="Sales chart, version 1"]');
  await expect(frame.locator('h1')).toHaveText('Sales v1 (script ran)');
  const blocked = viewer.getByRole('region', { name: 'Blocked in version 1' });
  await expect(blocked).toContainText('Network request');
  await expect(blocked).toContainText(`${base}/fetch`);
  await expect(blocked).toContainText('Remote image');
  await expect(blocked).toContainText(`${base}/img.png`);
  await expect(blocked).toContainText('Form post');
  await expect(blocked).toContainText('Navigation of the app window');
  await page.screenshot({ path: artifact('web-composition-blocked.png') });
  // The app window itself was not navigated, and the outside server never heard from the page.
  expect(page.url().split('#')[0]).toBe(deskhand.url.endsWith('/') ? deskhand.url : `${deskhand.url}/`);
  // The outside server never heard from the page. Positive events stand in for a wait: the page says it made every
  // attempt, then a request of our own reaches the server — anything the page had sent would have come before it.
  await expect(frame.locator('#d')).toHaveText('all attempts made');
  expect((await fetch(`${base}/sentinel`)).status).toBe(200);
  expect(hits).toEqual(['GET /sentinel']);
  hits = [];

  // Ask for changes: it reaches the agent as a review (with what to do), which revises the composition.
  await viewer.getByRole('textbox', { name: 'Comment on version 1' }).fill('Please add a legend.');
  await viewer.getByRole('button', { name: 'Ask for changes' }).click();
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Revised: version 2', { timeout: 20_000 });
  const commentRequest = JSON.stringify(deskhand.requests()[2]?.body);
  expect(commentRequest).toContain('Please add a legend.');
  expect(commentRequest).toMatch(/asks for changes to version 1 of the composition \\"Sales chart\\" \(cmp_[0-9a-f]{10}\)/);
  await expect(page.frameLocator('iframe[title="Sales chart, version 2"]').locator('h1')).toHaveText('Sales v2');

  // Compare the two versions side by side, with the source diff.
  await viewer.getByRole('combobox', { name: 'Compare with' }).selectOption('1');
  await expect(page.frameLocator('iframe[title="Sales chart, version 1"]').locator('h1')).toHaveText('Sales v1 (script ran)');
  const diff = viewer.getByRole('table', { name: /Source changes from version 1 to version 2/ });
  await expect(diff.getByRole('row').filter({ hasText: '<h1>Sales v2</h1>' })).toBeVisible();
  await expect(diff.getByRole('row').filter({ hasText: '<h1 id="t">Sales v1</h1>' })).toBeVisible();
  await page.screenshot({ path: artifact('web-composition-compare.png') });

  // Approve version 2 (a review event, no run), then ask for it to be published: the agent publishes it (always
  // previewed) to the bare repository.
  await viewer.getByRole('button', { name: 'Approve version 2' }).click();
  await expect(viewer.getByRole('status').filter({ hasText: 'approved' })).toBeVisible();
  await expect(page.getByRole('article', { name: 'Review: You approved “Sales chart” version 2' })).toBeVisible();
  await deskhand.send('Publish the approved version to the site');
  const card = page.getByRole('region', { name: 'Publish a composition' });
  await expect(card).toBeVisible({ timeout: 20_000 });
  await expect(card).toContainText('approved version 2');
  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Published.', { timeout: 30_000 });
  const published = execFileSync('git', ['--git-dir', bare, 'ls-tree', '-r', '--name-only', 'pages']).toString().trim();
  expect(published).toMatch(/^compositions\/cmp_[0-9a-f]{10}\/index\.html$/);
  expect(execFileSync('git', ['--git-dir', bare, 'show', `pages:${published}`]).toString()).toBe(page2);
  expect(hits).toEqual([]);
});
