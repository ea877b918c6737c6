/**
 * MCP Apps in the transcript: the registry's example server @modelcontextprotocol/server-basic-vanillajs (added with
 * `deskhand mcp add` as a person would, over stdio) gives its get-time tool a view. The view renders inside the tool
 * card's sandboxed frame and shows the call's result (the host bridge sent it); its "Get Server Time" button calls the
 * server through Deskhand: the approval engine asks (the conversation read the server's output), the card says the
 * view asks, and once allowed the server's new answer appears in the view — the effect, at the server and back.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FrameLocator, Page } from '@playwright/test';
import { artifact, expect, ROOT, test } from './support';

const BASIC = join(ROOT, 'node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js');
const BUDGET = join(ROOT, 'node_modules/@modelcontextprotocol/server-budget-allocator/dist/index.js');
const PDF = join(ROOT, 'node_modules/@modelcontextprotocol/server-pdf/dist/index.js');
const VIEW_FETCH = join(ROOT, 'test/extensions/view-fetch-server.mjs');
/** A one-page PDF saying "Deskhand PDF test" (Helvetica, uncompressed), built with its cross-reference offsets. */
/**
 * A tool call's view. In the web UI the card's frame is the sandbox proxy (another origin) and the view is its inner
 * frame; in the desktop app the card's frame is the view.
 */
function viewFrame(page: Page, kind: string, title: string): FrameLocator {
  const outer = page.frameLocator(`iframe[title="${title}"]`);
  return kind === 'web' ? outer.frameLocator('iframe#view') : outer;
}

const SAMPLE_PDF = (() => {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 144] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    '<< /Length 44 >>\nstream\nBT /F1 18 Tf 20 70 Td (Deskhand PDF test) Tj ET\nendstream',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((n) => `${String(n).padStart(10, '0')} 00000 n \n`).join('')}`;
  return `${out}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
})();

test("an MCP App's view renders in its tool card and its button calls the server through an approval", async ({ deskhand }) => {
  execFileSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), 'mcp', 'add', '--data-dir', deskhand.dataDir, 'basic', '--', process.execPath, BASIC, '--stdio'], {
    env: { ...process.env, DESKHAND_HOME: deskhand.dataDir },
    encoding: 'utf8',
  });
  await deskhand.startModel([{ tools: [{ name: 'search_tools', args: { query: 'mcp__basic__get-time' } }] }, { tools: [{ name: 'mcp__basic__get-time', args: {} }] }, { text: ['That is the server time.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Server time');
  await deskhand.send('What time is it on the server?');
  // The model's call asks first (the server has no tier): the person allows it.
  await page.getByRole('main').getByRole('button', { name: 'Approve' }).first().click();
  await expect(page.getByText('That is the server time.')).toBeVisible();

  const view = viewFrame(page, deskhand.kind, 'View of get-time from MCP server basic');
  const time = view.locator('#server-time');
  // The tool result reached the view through the bridge (its text was "Loading..." until then).
  await expect(time).toHaveText(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  const first = await time.textContent();

  await view.getByRole('button', { name: 'Get Server Time' }).click();
  const ask = page.getByRole('group', { name: 'The view asks to call get-time' });
  await expect(ask).toContainText('The view asks');
  await page.locator('.mcp-app').screenshot({ path: artifact(`${deskhand.kind}-mcp-app.png`) });
  await ask.getByRole('button', { name: 'Allow' }).click();
  await expect(ask).toBeHidden();
  await expect(time).not.toHaveText(first!);
  await expect(time).toHaveText(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  // The view's call went to the server, not to the model: three model requests, as scripted.
  expect(deskhand.requests()).toHaveLength(3);
});

test("a view reaches only the origins it declared: a fetch to another origin is blocked and never arrives", async ({ deskhand }) => {
  // Two listeners on this machine; the view's resource declares only the first (`_meta.ui.csp.connectDomains`).
  const hits: Record<'declared' | 'undeclared', string[]> = { declared: [], undeclared: [] };
  const listeners = await Promise.all(
    (['declared', 'undeclared'] as const).map(
      (which) =>
        new Promise<Server>((ready) => {
          const s = createServer((req, res) => {
            hits[which].push(req.url ?? '');
            res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
            res.end(`hello from ${which}`);
          });
          s.listen(0, '127.0.0.1', () => ready(s));
        }),
    ),
  );
  const origin = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, 'bin/deskhand.js'), 'mcp', 'add', '--data-dir', deskhand.dataDir, 'viewfetch', '--env', `DECLARED=${origin(listeners[0]!)}`, '--env', `UNDECLARED=${origin(listeners[1]!)}`, '--', process.execPath, VIEW_FETCH],
      { env: { ...process.env, DESKHAND_HOME: deskhand.dataDir }, encoding: 'utf8' },
    );
    await deskhand.startModel([{ tools: [{ name: 'search_tools', args: { query: 'mcp__viewfetch__show' } }] }, { tools: [{ name: 'mcp__viewfetch__show', args: {} }] }, { text: ['Shown.'] }]);
    const page = await deskhand.start();
    await deskhand.newConversation('View fetch');
    await deskhand.send('Show the view.');
    await page.getByRole('main').getByRole('button', { name: 'Approve' }).first().click();
    await expect(page.getByText('Shown.')).toBeVisible();
    const view = viewFrame(page, deskhand.kind, 'View of show from MCP server viewfetch');
    await expect(view.locator('#undeclared')).toHaveText('blocked');
    // The view cannot reach the page that shows it: a fetch to the page's origin is blocked, its parent unreadable.
    await expect(view.locator('#ui')).toHaveText('blocked');
    await expect(view.locator('#parent')).toHaveText('no access');
    if (deskhand.kind === 'web') {
      // The double frame: the card's frame (the sandbox proxy) is on another origin than the page, and the view inside
      // it on that origin's server but sandboxed; the origin the view tried is the page's own.
      const pageOrigin = new URL(page.url()).origin;
      await expect(view.locator('#ui-origin')).toHaveText(pageOrigin);
      const outer = page.frames().find((f) => f.url().includes('/sp/'));
      const inner = page.frames().find((f) => f.url().includes('/cv/'));
      expect(outer && inner, 'the proxy and view frames').toBeTruthy();
      expect(new URL(outer!.url()).origin).not.toBe(pageOrigin);
      expect(inner!.parentFrame()).toBe(outer);
      expect(await inner!.evaluate(() => (globalThis as unknown as { origin: string }).origin)).toBe('null');
      expect(await outer!.evaluate(() => (globalThis as unknown as { origin: string }).origin)).toBe(new URL(outer!.url()).origin);
    }
    // Both hosts grant the declared origin (the view's connect-src; in the desktop app its session lets that one
    // origin through for that view) and nothing else.
    await expect(view.locator('#declared')).toHaveText('ok hello from declared');
    expect(hits.declared).toEqual(['/from-view']);
    expect(hits.undeclared).toEqual([]);
  } finally {
    for (const s of listeners) s.close();
  }
});

test('server-budget-allocator: its view renders the tool\'s result (categories, budget) in the tool card', async ({ deskhand }) => {
  execFileSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), 'mcp', 'add', '--data-dir', deskhand.dataDir, 'budget', '--', process.execPath, BUDGET, '--stdio'], {
    env: { ...process.env, DESKHAND_HOME: deskhand.dataDir },
    encoding: 'utf8',
  });
  await deskhand.startModel([{ tools: [{ name: 'search_tools', args: { query: 'mcp__budget__get-budget-data' } }] }, { tools: [{ name: 'mcp__budget__get-budget-data', args: {} }] }, { text: ['Here is the budget.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Budget');
  await deskhand.send('Show the budget allocator.');
  await page.getByRole('main').getByRole('button', { name: 'Approve' }).first().click();
  await expect(page.getByText('Here is the budget.')).toBeVisible();
  const view = viewFrame(page, deskhand.kind, 'View of get-budget-data from MCP server budget');
  // The result's categories and default budget, drawn by the view from the structuredContent the bridge sent.
  await expect(view.locator('#sliders-container')).toContainText('Marketing');
  await expect(view.locator('#budget-selector')).toHaveValue('100000');
  await page.locator('.mcp-app').screenshot({ path: artifact(`${deskhand.kind}-mcp-app-budget.png`) });
});

test('server-pdf: its view loads a local PDF through its server, the read allowed on the card', async ({ deskhand }) => {
  // A 4.4 MB view and PDF.js starting in it: 46–90 s under CI-like load, past the default 90 s budget at the high end.
  test.slow();
  // No network here: a one-page PDF on disk, named on the server's command line (which lets the server read it).
  const file = join(mkdtempSync(join(tmpdir(), 'deskhand-pdf-')), 'sample.pdf');
  writeFileSync(file, SAMPLE_PDF);
  execFileSync(process.execPath, [join(ROOT, 'bin/deskhand.js'), 'mcp', 'add', '--data-dir', deskhand.dataDir, 'pdf', '--', process.execPath, PDF, '--stdio', file], {
    env: { ...process.env, DESKHAND_HOME: deskhand.dataDir },
    encoding: 'utf8',
  });
  await deskhand.startModel([{ tools: [{ name: 'search_tools', args: { query: 'mcp__pdf__display_pdf' } }] }, { tools: [{ name: 'mcp__pdf__display_pdf', args: { url: file } }] }, { text: ['Opened the PDF.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation('PDF');
  await deskhand.send('Open the sample PDF.');
  await page.getByRole('main').getByRole('button', { name: 'Approve' }).first().click();
  await expect(page.getByText('Opened the PDF.')).toBeVisible();
  // The view reads the file's bytes with the server's app-only read_pdf_bytes (its size, then the bytes): each read
  // asks on the card (the conversation read the server's output), and the person allows it.
  const ask = page.getByRole('group', { name: 'The view asks to call read_pdf_bytes' });
  await expect(ask.first()).toContainText(file, { timeout: 30_000 });
  const view = viewFrame(page, deskhand.kind, 'View of display_pdf from MCP server pdf');
  let allowed = 0;
  await expect(async () => {
    if (await ask.first().isVisible()) {
      // Bounded: a card answered or closed between the look and the click would otherwise hold the click (no action
      // timeout) past toPass's own, to the test's timeout; a bounded miss is one more round.
      await ask.first().getByRole('button', { name: 'Allow' }).click({ timeout: 5_000 });
      allowed++;
    }
    // PDF.js drew the page, and its text layer holds the PDF's words.
    await expect(view.getByText('Deskhand PDF test')).toBeAttached({ timeout: 2000 });
  }).toPass({ timeout: 60_000 });
  expect(allowed).toBeGreaterThan(0);
  await page.locator('.mcp-app').screenshot({ path: artifact(`${deskhand.kind}-mcp-app-pdf.png`) });
});
