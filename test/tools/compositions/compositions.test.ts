/**
 * Compositions and PDFs through the real tools: versions with revises links, review state, publish to a zip, a folder
 * and a local bare git repository (bytes compared with the approved version's), PDFs printed by Chromium and read back
 * (pdftotext agrees), encrypted (qpdf) and truncated PDFs, page ranges and caps.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompositionFiles } from '../../../src/main/services/compositions/composition-files';
import Jimp from 'jimp';
import { PublishTargets, pagesUrl } from '../../../src/main/services/compositions/publish';
import { startServer } from '../../web/servers';
import { ChromiumPdfPrinter } from '../../../src/main/services/pdf/print';
import { PdfJsReader } from '../../../src/main/services/pdf/read';
import { findChromium } from '../../../src/main/services/chromium/index';
import { Store } from '../../../src/main/services/store/store';
import { createCompositionFamily } from '../../../src/main/tools/compositions';
import type { ToolDefinition } from '../../../src/main/runtime/tool';
import { makeContext, tempDir, type TestContext } from '../../support/tool-context';

let dataDir: string;
let work: string;
let store: Store;
let compositions: CompositionFiles;
let targets: PublishTargets;
let tools: Record<string, ToolDefinition>;
let ctx: TestContext;

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const run = async (name: string, args: unknown) => {
  const tool = tools[name]!;
  const parsed = tool.params.parse(args);
  return tool.execute(parsed, ctx);
};

beforeEach(() => {
  dataDir = tempDir('deskhand-comp-data-');
  work = tempDir('deskhand-comp-work-');
  store = new Store(dataDir);
  store.createConversation({ id: 'conv_test', title: 'T', folder: work, policy: 'read-only' });
  compositions = new CompositionFiles(store, dataDir);
  targets = new PublishTargets(dataDir);
  const family = createCompositionFamily({ compositions, publisher: targets, printer: new ChromiumPdfPrinter(), reader: new PdfJsReader(), net: null });
  tools = Object.fromEntries(family.tools.map((t) => [t.name, t]));
  ctx = makeContext(work, { dataDir });
});
afterEach(() => store.close());

describe('create_composition', () => {
  it('stores versions with revises links, files in the data dir, and refuses bad input clearly', async () => {
    const first = await run('create_composition', { title: 'Chart', kind: 'html', content: '<h1>One</h1>' });
    const id = /Composition (cmp_[0-9a-f]{10}) version 1 saved/.exec(first.output)?.[1];
    expect(id).toBeDefined();
    const second = await run('create_composition', { title: 'Chart v2', kind: 'html', content: '<h1>Two</h1>', revises: id });
    expect(second.output).toContain(`Composition ${id} version 2, revising version 1 saved`);
    const detail = compositions.get(id!)!;
    expect(detail.versions.map((v) => [v.version, v.revises])).toEqual([[1, null], [2, 1]]);
    expect(detail.title).toBe('Chart v2');
    expect(readFileSync(join(dataDir, 'compositions', id!, 'v2.html'), 'utf8')).toBe('<h1>Two</h1>');
    expect(compositions.list({ conversationId: 'conv_test' }).map((c) => c.id)).toEqual([id]);

    await expect(run('create_composition', { title: 'X', kind: 'svg', content: '<svg xmlns="http://www.w3.org/2000/svg"/>', revises: id })).rejects.toThrow(/is html; a revision must be html too/);
    await expect(run('create_composition', { title: 'X', kind: 'svg', content: 'plain text' })).rejects.toThrow(/must be an SVG document/);
    await expect(run('create_composition', { title: 'X', kind: 'image', content: 'abc' })).rejects.toThrow(/taken from a file/);
    await expect(run('create_composition', { title: 'X', kind: 'html' })).rejects.toThrow(/exactly one of content or path/);
    writeFileSync(join(work, 'not-image.png'), 'hello');
    await expect(run('create_composition', { title: 'X', kind: 'image', path: 'not-image.png' })).rejects.toThrow(/PNG, JPEG, GIF or WebP/);
  });

  it('refuses to read a version whose file changed on disk', async () => {
    const out = await run('create_composition', { title: 'Doc', kind: 'markdown', content: '# Hi' });
    const id = /(cmp_[0-9a-f]{10})/.exec(out.output)![1]!;
    writeFileSync(join(dataDir, 'compositions', id, 'v1.md'), '# Tampered');
    expect(() => compositions.read(id, 1)).toThrow(/changed on disk/);
  });
});

describe('publish_composition', () => {
  async function approvedComposition(): Promise<{ id: string; bytes: Buffer }> {
    const out = await run('create_composition', { title: 'Page', kind: 'html', content: '<!doctype html><p>draft</p>' });
    const id = /(cmp_[0-9a-f]{10})/.exec(out.output)![1]!;
    const approved = '<!doctype html><html><body><p>approved ✓</p><script>document.body.append("hi")</script></body></html>\n';
    await run('create_composition', { title: 'Page', kind: 'html', content: approved, revises: id });
    await run('create_composition', { title: 'Page', kind: 'html', content: '<p>later draft</p>', revises: id });
    compositions.review(id, 2, 'approve', '');
    return { id, bytes: Buffer.from(approved) };
  }

  it('refuses an unapproved composition, and always asks with a preview', async () => {
    const out = await run('create_composition', { title: 'Page', kind: 'html', content: '<p>x</p>' });
    const id = /(cmp_[0-9a-f]{10})/.exec(out.output)![1]!;
    await expect(run('publish_composition', { id, target: { type: 'zip', path: 'out.zip' } })).rejects.toThrow(/no approved version.*Approve/);
    const effects = await tools.publish_composition!.effects!({ id, target: { type: 'git', name: 'site' } } as never, { cwd: work, workspaceRoots: [work], dataDir });
    expect(effects.assessment?.alwaysAsk).toMatch(/always previewed/);
  });

  it('writes a zip and a folder holding exactly the approved version', async () => {
    const { id, bytes } = await approvedComposition();
    const proposal = await tools.publish_composition!.pair!.propose({ id, target: { type: 'zip', path: 'site.zip' } } as never, ctx);
    expect(proposal.description).toContain('approved version 2');
    expect(proposal.preview).toContain(sha(bytes));
    await run('publish_composition', { id, target: { type: 'zip', path: 'site.zip' } });
    const zip = unzipSync(readFileSync(join(work, 'site.zip')));
    expect(Object.keys(zip)).toEqual(['index.html']);
    expect(sha(zip['index.html']!)).toBe(sha(bytes));
    await run('publish_composition', { id, target: { type: 'folder', path: 'site' } });
    expect(sha(readFileSync(join(work, 'site', 'index.html')))).toBe(sha(bytes));
  });

  it('commits the approved bytes to the configured branch of a local bare repository', async () => {
    const { id, bytes } = await approvedComposition();
    const bare = join(tempDir('deskhand-bare-'), 'site.git');
    execFileSync('git', ['init', '-q', '--bare', bare]);
    await expect(run('publish_composition', { id, target: { type: 'git', name: 'site' } })).rejects.toThrow(/No git target "site" is configured/);
    targets.setGit('site', { repository: bare, branch: 'pages' });
    const out = await run('publish_composition', { id, target: { type: 'git', name: 'site' } });
    const commit = /commit ([0-9a-f]{40})/.exec(out.output)![1]!;
    const git = (...args: string[]) => execFileSync('git', ['--git-dir', bare, ...args]);
    expect(git('rev-parse', 'refs/heads/pages').toString().trim()).toBe(commit);
    expect(sha(git('show', `pages:compositions/${id}/index.html`))).toBe(sha(bytes));
    // A second publish adds a commit on top of the first (the branch is fetched, not replaced).
    compositions.review(id, 3, 'approve', '');
    await run('publish_composition', { id, target: { type: 'git', name: 'site' } });
    expect(git('rev-list', '--count', 'pages').toString().trim()).toBe('2');
    expect(git('show', `pages:compositions/${id}/index.html`).toString()).toBe('<p>later draft</p>');
  });

  it("publishes to a pages branch with the stable URL in the result; the branch's tree holds only the approved version, never a later draft", async () => {
    const { id, bytes } = await approvedComposition();
    const bare = join(tempDir('deskhand-bare-'), 'site.git');
    execFileSync('git', ['init', '-q', '--bare', bare]);
    targets.setGit('pages', { repository: `file://${bare}`, branch: 'gh-pages', url: 'https://pages.example.test/site/' });
    const out = await run('publish_composition', { id, target: { type: 'git', name: 'pages' } });
    expect(out.output).toContain(`URL: https://pages.example.test/site/compositions/${id}/ (stable`);
    const git = (...args: string[]) => execFileSync('git', ['--git-dir', bare, ...args]).toString();
    // The whole tree of the branch: one file, the approved bytes (version 3, a later draft, is nowhere on it).
    expect(git('ls-tree', '-r', '--name-only', 'gh-pages').trim().split('\n')).toEqual([`compositions/${id}/index.html`]);
    expect(git('show', `gh-pages:compositions/${id}/index.html`)).toBe(bytes.toString());
    expect(git('log', '--all', '-p').includes('later draft')).toBe(false);
    // Without a url and on no known pages host, the result says how to add one.
    targets.setGit('plain', { repository: `file://${bare}`, branch: 'other' });
    const plain = await run('publish_composition', { id, target: { type: 'git', name: 'plain' } });
    expect(plain.output).toMatch(/No pages URL is known for this target .*--url URL/);
  });

  it.each([
    ['https://github.com/ada/notes.git', 'compositions/cmp_0123456789', 'index.html', 'https://ada.github.io/notes/compositions/cmp_0123456789/'],
    ['https://github.com/Ada/notes', 'x', 'image.png', 'https://ada.github.io/notes/x/image.png'],
    ['git@github.com:ada/notes.git', 'a b', 'index.html', 'https://ada.github.io/notes/a%20b/'],
    ['ssh://git@github.com/ada/ada.github.io.git', 'p', 'index.html', 'https://ada.github.io/p/'],
    ['https://gitlab.example/ada/notes.git', 'p', 'index.html', null],
    ['https://github.com.evil.test/ada/notes.git', 'p', 'index.html', null],
  ])('the pages URL of %s (%s/%s) is %s', (repository, folder, file, url) => {
    expect(pagesUrl({ repository, branch: 'gh-pages' }, folder, file)).toBe(url);
  });

  it('refuses a pages URL that is not http(s)', () => {
    expect(() => targets.setGit('bad', { repository: '/tmp/x.git', branch: 'pages', url: 'javascript:alert(1)' })).toThrow();
    expect(() => targets.setGit('bad', { repository: '/tmp/x.git', branch: 'pages', url: 'not a url' })).toThrow();
  });
});

describe.skipIf(!findChromium())('create_composition mode static', () => {
  it('renders the HTML in Chromium to a PNG (scripts run, the network is closed) and that image is what is reviewed, exported and published', async () => {
    let hits = 0;
    const server = await startServer((_req, res) => {
      hits++;
      res.end('x');
    });
    try {
      const html =
        '<!doctype html><html><body style="margin:0"><div id="box" style="width:100%;height:300px;background:rgb(0,0,255)"></div>' +
        `<img src="${server.origin}/tracker.png"><script>document.getElementById('box').style.background = 'rgb(255,0,0)'</script></body></html>`;
      const out = await run('create_composition', { title: 'Chart', kind: 'html', content: html, mode: 'static', width: 640 });
      expect(out.output).toMatch(/saved \(image, rendered from html to a 640×\d+ PNG, \d+ bytes\)/);
      const id = /(cmp_[0-9a-f]{10})/.exec(out.output)![1]!;
      const c = compositions.get(id)!;
      expect(c.kind).toBe('image');
      expect(c.versions[0]!.mime).toBe('image/png');
      const png = await Jimp.read(compositions.read(id, 1));
      expect(png.getWidth()).toBe(640);
      const { r, g, b } = Jimp.intToRGBA(png.getPixelColor(20, 20));
      expect([r, g, b]).toEqual([255, 0, 0]); // the script ran before the capture (blue otherwise)
      expect(hits).toBe(0); // nothing was fetched from the network
      compositions.review(id, 1, 'approve', '');
      await run('publish_composition', { id, target: { type: 'zip', path: 'static.zip' } });
      const zip = unzipSync(readFileSync(join(work, 'static.zip')));
      expect(Object.keys(zip)).toEqual(['image.png']);
      expect(sha(zip['image.png']!)).toBe(sha(compositions.read(id, 1)));
    } finally {
      await server.close();
    }
  });

  it('renders markdown and SVG too; refuses width without static and an interactive image, clearly', async () => {
    const md = await run('create_composition', { title: 'Notes', kind: 'markdown', content: '# Title\n\nSome *text*.', mode: 'static' });
    expect(md.output).toMatch(/rendered from markdown to a 1280×\d+ PNG/);
    const svg = await run('create_composition', { title: 'Dot', kind: 'svg', content: '<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50"><circle cx="25" cy="25" r="20" fill="green"/></svg>', mode: 'static', width: 200 });
    expect(svg.output).toMatch(/rendered from svg to a 200×\d+ PNG/);
    await expect(run('create_composition', { title: 'X', kind: 'html', content: '<p>x</p>', width: 500 })).rejects.toThrow(/width applies only to mode "static"/);
    writeFileSync(join(work, 'a.png'), Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    await expect(run('create_composition', { title: 'X', kind: 'image', path: 'a.png', mode: 'interactive' })).rejects.toThrow(/An image is static/);
    const live = await run('create_composition', { title: 'Live', kind: 'html', content: '<p>live</p>', mode: 'interactive' });
    expect(live.output).toContain('saved (html, ');
  });
});

const chromium = findChromium();
// Skipped only where no Chromium/Chrome/Edge is installed: create_pdf prints through one (playwright-core page.pdf).
describe.skipIf(!chromium)('PDFs out and in', () => {
  const html =
    '<!doctype html><html><head><title>Quarterly</title></head><body><h1>Quarterly report</h1><p>Revenue grew 12.5 percent.</p>' +
    '<table><tr><th>Region</th><th>Sales</th></tr><tr><td>North</td><td>1200</td></tr><tr><td>South</td><td>980</td></tr></table>' +
    '<div style="page-break-before:always"><p>Second page text</p></div></body></html>';

  it('prints HTML through Chromium and reads it back: text, rows, page count; pdftotext agrees', async () => {
    const out = await run('create_pdf', { html, path: 'report.pdf', page: { size: 'Letter', margins: '10mm' } });
    expect(out.output).toMatch(/Wrote report.pdf: a \d+-byte PDF \(Letter\)/);
    const pdf = join(work, 'report.pdf');
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');
    const count = await run('pdf_page_count', { path: 'report.pdf' });
    expect(count.output).toBe('report.pdf: 2 pages.');
    const text = await run('read_pdf', { path: 'report.pdf' });
    expect(text.output).toContain('--- page 1 ---');
    expect(text.output).toContain('Quarterly report');
    expect(text.output).toContain('Revenue grew 12.5 percent.');
    expect(text.output).toMatch(/North\s+1200/);
    expect(text.output).toMatch(/--- page 2 ---\nSecond page text/);
    const poppler = execFileSync('pdftotext', ['-layout', pdf, '-']).toString();
    for (const line of ['Quarterly report', 'Revenue grew 12.5 percent.', 'Second page text']) expect(poppler).toContain(line);
    expect(execFileSync('pdfinfo', [pdf]).toString()).toMatch(/Pages:\s+2/);
    // Fonts are embedded.
    expect(execFileSync('pdffonts', [pdf]).toString()).toMatch(/ yes /);
    const page2 = await run('read_pdf', { path: 'report.pdf', pages: '2' });
    expect(page2.output).not.toContain('Quarterly report');
    await expect(run('read_pdf', { path: 'report.pdf', pages: '5' })).rejects.toThrow(/Page 5 does not exist: the PDF has 2 pages/);
  });

  it('prints a markdown composition and refuses a PDF path that is not a .pdf', async () => {
    const made = await run('create_composition', { title: 'Notes', kind: 'markdown', content: '# Notes\n\n| a | b |\n|---|---|\n| 1 | 2 |\n' });
    const id = /(cmp_[0-9a-f]{10})/.exec(made.output)![1]!;
    await run('create_pdf', { composition: id, path: 'notes.pdf', page: { landscape: true } });
    const text = await run('read_pdf', { path: 'notes.pdf' });
    expect(text.output).toContain('Notes');
    expect(text.output).toMatch(/1\s+2/);
    await expect(run('create_pdf', { markdown: '# x', path: 'notes.txt' })).rejects.toThrow(/does not end in .pdf/);
    await expect(run('create_pdf', { markdown: '# x', html: '<p>', path: 'x.pdf' })).rejects.toThrow(/exactly one/);
    await expect(run('create_pdf', { markdown: '# x', path: 'x.pdf', page: { size: 'B9000' } })).rejects.toThrow(/Page size "B9000" is not known/);
  });

  it('reports encrypted and truncated PDFs clearly', async () => {
    await run('create_pdf', { html, path: 'plain.pdf' });
    execFileSync('qpdf', ['--encrypt', 'user-pw', 'owner-pw', '256', '--', join(work, 'plain.pdf'), join(work, 'locked.pdf')]);
    await expect(run('read_pdf', { path: 'locked.pdf' })).rejects.toThrow(/encrypted with a password/);
    await expect(run('pdf_page_count', { path: 'locked.pdf' })).rejects.toThrow(/encrypted with a password/);
    // password is a secret argument: only a placeholder is accepted (the runtime puts the value in before execute).
    for (const literal of ['user-pw', 'redacted:X', '[redacted:X] ', '[redacted:]', 'x[redacted:X]', '[redacted:1X]']) {
      for (const tool of ['read_pdf', 'pdf_page_count']) {
        expect(tools[tool]!.params.safeParse({ path: 'locked.pdf', password: literal }).error?.issues[0]?.message, `${tool} ${literal}`).toMatch(/must be a secret placeholder/);
      }
    }
    expect(tools.read_pdf!.params.safeParse({ path: 'locked.pdf', password: '[redacted:PDF_PW]' }).success).toBe(true);
    // With the value put in (as the runtime does): user and owner password both open it, a wrong one is named.
    expect((await tools.read_pdf!.execute({ path: 'locked.pdf', password: 'user-pw' } as never, ctx)).output).toContain('--- page 1 ---');
    expect((await tools.pdf_page_count!.execute({ path: 'locked.pdf', password: 'owner-pw' } as never, ctx)).output).toMatch(/^locked\.pdf: \d+ pages?\.$/);
    await expect(tools.read_pdf!.execute({ path: 'locked.pdf', password: 'nope' } as never, ctx)).rejects.toThrow(/password given for this encrypted PDF is not right/);
    const bytes = readFileSync(join(work, 'plain.pdf'));
    writeFileSync(join(work, 'cut.pdf'), bytes.subarray(0, Math.floor(bytes.length / 3)));
    const cut = run('read_pdf', { path: 'cut.pdf' });
    await expect(cut).rejects.toThrow(/not a readable PDF|truncated or damaged|could not be read/);
    writeFileSync(join(work, 'fake.pdf'), 'just text');
    await expect(run('read_pdf', { path: 'fake.pdf' })).rejects.toThrow(/is not a PDF \(it has no %PDF- header\)/);
    await expect(run('read_pdf', { path: 'missing.pdf' })).rejects.toThrow(/no such file/);
    expect(existsSync(join(work, 'locked.pdf'))).toBe(true);
  });
});
