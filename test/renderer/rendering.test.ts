/**
 * The message renderer as the browser gets it (react-markdown + remark-gfm + rehype-sanitize, highlight.js): GFM
 * blocks, nothing executable, no remote image ever requested, links opening outside the app, highlighted code.
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CodeBlock, InlineParagraph, Markdown, ParsedChunk } from '../../src/renderer/components/common/Markdown';
import { inlineParagraph, openFence, plainParagraph } from '../../src/shared/markdown/plain';
import { DiffView } from '../../src/renderer/components/common/DiffView';
import { ToolOutput } from '../../src/renderer/components/chat/ToolOutput';
import { parseUnifiedDiff } from '../../src/shared/unified-diff';
import { wordChanges } from '../../src/shared/word-diff';
import { AUTO_DETECT_MAX_CHARS, highlightCode, languageForPath } from '../../src/renderer/lib/code-highlight';

const html = (text: string) => renderToStaticMarkup(createElement(Markdown, { text }));

describe('Markdown (react-markdown)', () => {
  it('renders GFM: tables, task lists, strikethrough, autolinks; headings shifted below the page outline', () => {
    const out = html('# Title\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~gone~~ and https://example.com/x');
    expect(out).toContain('<h3 class="md-h md-h1">Title</h3>');
    expect(out).toMatch(/<div class="md-table-wrap"><table><thead><tr><th>a<\/th><th style="text-align:center">b<\/th>/);
    expect(out.match(/<input[^>]*type="checkbox"/g)).toHaveLength(2);
    expect(out).toMatch(/<input[^>]*checked[^>]*disabled|<input[^>]*disabled[^>]*checked/);
    expect(out).toContain('<del>gone</del>');
    expect(out).toContain('<a href="https://example.com/x" target="_blank" rel="noopener noreferrer"');
  });

  it('never produces script, event handlers or javascript: links; raw HTML shows as text', () => {
    const out = html('<img src=x onerror=alert(1)>\n\n<script>alert(2)</script>\n\n[x](javascript:alert(3)) [y](data:text/html,hi) [z](mailto:a@b.c)');
    expect(out).not.toMatch(/<img|<script|\sonerror="|href="javascript|href="data/i);
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(out).toContain('<span class="md-link-dropped">x</span>');
    expect(out).toContain('href="mailto:a@b.c"');
  });

  it('never loads an image: remote ones become a link placeholder, data: ones a placeholder', () => {
    const out = html('![logo](https://tracker.example/p.png) ![dot](data:image/png;base64,iVBORw0KGgo=)');
    expect(out).not.toContain('<img');
    expect(out).toContain('<a class="md-image" href="https://tracker.example/p.png" target="_blank" rel="noopener noreferrer"');
    expect(out).toContain('[image: logo — not loaded]');
    expect(out).toContain('[image: dot — not loaded]');
  });

  it('highlights fenced code by its language, escaping the source', () => {
    const out = html('```ts\nconst s = "<b>"; // c\nreturn 42;\n```');
    expect(out).toContain('<span class="md-code-lang">ts</span>');
    expect(out).toContain('<span class="tok-keyword">const</span>');
    expect(out).toContain('<span class="tok-string">&quot;&lt;b&gt;&quot;</span>');
    expect(out).toContain('<span class="tok-comment">// c</span>');
    expect(out).toContain('<span class="tok-number">42</span>');
  });
});

describe('plain prose skips the parser (streaming cost)', () => {
  const parsed = (source: string) => renderToStaticMarkup(createElement(ParsedChunk, { source }));
  const fast = (plain: string) => renderToStaticMarkup(createElement('p', null, plain));

  it('takes ordinary sentences, and leaves everything that could be syntax to react-markdown', () => {
    expect(plainParagraph('The build passed, and the tests (all 42) ran in 3 s.\nNext I will deploy it. ')).toBe('The build passed, and the tests (all 42) ran in 3 s.\nNext I will deploy it.');
    for (const s of ['1. item', '2) item', '- item', '+ item', '# head', '> quote', 'text\n---', 'text\n===', '    code', 'a\n    b', 'a  \nb', 'see www.example.com', 'mail a@b.co', 'go to https://x.y', 'x `c`', '*em*', '_em_', '[l](u)', 'a &amp; b', '<b>x</b>', 'a | b', '~~d~~', 'a\\b', 'a\n\nb', '']) {
      expect(plainParagraph(s), s).toBeNull();
    }
  });

  it('gives exactly what react-markdown gives, on generated text full of the characters that matter', () => {
    const pieces = ['word', 'Plain', 'é', '😀', '42', ' ', ' ', '  ', '\n', '\n', '.', ',', ')', '(', '-', '+', '=', '#', '>', ':', '!', '?', "'", '"', '%', '$', '^', '{', '}', '/', '1.', '2)', '\u00a0', '*', '_', '`', '[', ']', '<', '&', '|', '~', '\\', '@', 'www.', 'http://', '\t', '---', '==='];
    let seed = 21;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let checked = 0;
    for (let i = 0; i < 4000; i++) {
      let s = '';
      for (let k = 1 + rand(16); k > 0; k--) s += pieces[rand(pieces.length)];
      const plain = plainParagraph(s);
      if (plain === null) continue;
      checked++;
      expect(fast(plain), JSON.stringify(s)).toBe(parsed(s));
    }
    // The generator reaches the fast path often enough for the comparison to mean something.
    expect(checked).toBeGreaterThan(200);
  });
});

describe('prose with simple `code` and **strong** skips the parser (streaming cost)', () => {
  const parsed = (source: string) => renderToStaticMarkup(createElement(ParsedChunk, { source }));
  const fast = (source: string) => renderToStaticMarkup(createElement(InlineParagraph, { pieces: inlineParagraph(source)! }));

  it('takes code spans and strong text in their simplest spellings, and leaves every other spelling to react-markdown', () => {
    expect(inlineParagraph('the agent reads `code` and **bold** text.')).toEqual([
      { t: 'text', v: 'the agent reads ' },
      { t: 'code', v: 'code' },
      { t: 'text', v: ' and ' },
      { t: 'strong', v: 'bold' },
      { t: 'text', v: ' text.' },
    ]);
    for (const s of ['a ``b`` c', 'a ` b` c', 'a `b ` c', 'a `b|c` d', 'a*b*', '*em*', 'a **b**c', 'a**b** c', '** b**', '**b **', '**a *b* c**', '`a`**b**', 'a ~~b~~', '[a](b) `c`', '- `a`', '# **a**', '> `a`', '    `a`', 'a  \n`b`', 'a `b` <c>', 'a `b` &amp;', '`a` \\ b', 'a\n\n`b`', '```', '```js', '`a`\n===', '']) {
      expect(inlineParagraph(s), s).toBeNull();
    }
  });

  it('gives exactly what react-markdown gives, on generated text full of the characters that matter', () => {
    const pieces = ['word', 'Plain', 'é', '42', ' ', ' ', '\n', '.', ',', ')', '(', '-', ':', '!', "'", '"', '*', '**', '**', '`', '`', '`', '`x`', '`a b`', '**bold**', '**two words**', '_', '[', '<', '&', '|', '~', '\\', '#', '1.', '``', '***', '\t', '  '];
    let seed = 54;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let checked = 0;
    for (let i = 0; i < 6000; i++) {
      let s = '';
      for (let k = 1 + rand(14); k > 0; k--) s += pieces[rand(pieces.length)];
      if (!inlineParagraph(s)) continue;
      checked++;
      expect(fast(s), JSON.stringify(s)).toBe(parsed(s));
    }
    expect(checked).toBeGreaterThan(300);
  });
});

describe('a code block still streaming skips the parser', () => {
  const parsed = (source: string) => renderToStaticMarkup(createElement(ParsedChunk, { source }));

  it('takes an open backtick fence, and leaves closed, indented or tilde fences to react-markdown', () => {
    expect(openFence('```ts\nconst a = 1;\n')).toEqual({ lang: 'ts', code: 'const a = 1;' });
    for (const s of ['```ts\nx\n```', '```ts\nx\n  ```', ' ```ts\nx', '~~~ts\nx', '```ts title\nx', '```ts', 'text\n```ts\nx']) expect(openFence(s), s).toBeNull();
  });

  it('gives exactly what react-markdown gives, on generated code', () => {
    const langs = ['', 'ts', 'js', 'python', 'c++', 'no-such-lang', 'bash'];
    const pieces = ['const', ' ', '  ', '    ', '\n', '\n', '\n\n', '\t', 'x = 1;', '<b>', '&amp;', '`', '``', '~~~', '*', '_', '#', '> q', '- l', '1. n', '\\', '"s"', "'c'", '{', '}', 'é', '😀'];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let checked = 0;
    for (let i = 0; i < 1500; i++) {
      let s = '```' + langs[rand(langs.length)] + '\n';
      for (let k = rand(20); k > 0; k--) s += pieces[rand(pieces.length)];
      const fence = openFence(s);
      if (!fence) continue;
      checked++;
      const streaming = renderToStaticMarkup(createElement(CodeBlock, { ...fence, streaming: true }));
      // A labelled block is exactly what react-markdown gives; an unlabelled one is plain until its fence closes.
      if (fence.lang) expect(streaming, JSON.stringify(s)).toBe(parsed(s));
      else expect(streaming, JSON.stringify(s)).toBe(renderToStaticMarkup(createElement(CodeBlock, { lang: '', code: fence.code, streaming: true })));
      expect(renderToStaticMarkup(createElement(CodeBlock, fence)), JSON.stringify(s)).toBe(parsed(s));
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('detects the language of an unlabelled block once its fence closes, not on every token while it streams', () => {
    const code = 'def f(x):\n    return x\n\nclass A(object):\n    pass\n';
    const open = openFence('```\n' + code)!;
    expect(open).toEqual({ lang: '', code: code.replace(/\n$/, '') });
    const streamingHtml = renderToStaticMarkup(createElement(CodeBlock, { ...open, streaming: true }));
    expect(streamingHtml).not.toContain('tok-');
    expect(streamingHtml).toContain('<span class="md-code-lang">text</span>');
    const closed = parsed('```\n' + code + '```\n');
    expect(closed).toContain('tok-keyword');
    expect(closed).toContain('<span class="md-code-lang">python</span>');
  });
});

describe('highlightCode', () => {
  it('uses the given language, detects small unlabelled blocks, leaves big or unknown ones plain', () => {
    expect(highlightCode('fn main() { let x = 1; }', 'rs').language).toBe('rust');
    expect(highlightCode('def f(x):\n    return x\n\nclass A(object):\n    pass\n').language).toBe('python');
    expect(highlightCode('x = 1', 'klingon')).toEqual({ language: null, html: null });
    const big = 'def f(x):\n    return x\n'.repeat(Math.ceil(AUTO_DETECT_MAX_CHARS / 20));
    expect(highlightCode(big)).toEqual({ language: null, html: null });
    expect(highlightCode('just some words here')).toEqual({ language: null, html: null });
  });

  it('knows a language from a file path', () => {
    expect(languageForPath('/a/b/x.tsx')).toBe('typescript');
    expect(languageForPath('Cargo.toml')).toBe('ini');
    expect(languageForPath('README')).toBeNull();
  });
});

describe('DiffView word-level changes', () => {
  const diff = '--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n keep\n-const total = price * 2;\n-gone entirely\n+const total = price * 3;\n+something else\n';

  it('pairs removed and added lines and marks only the changed words', () => {
    const rows = parseUnifiedDiff(diff);
    const words = wordChanges(rows);
    const del = rows.findIndex((r) => r.text === 'const total = price * 2;');
    const add = rows.findIndex((r) => r.text === 'const total = price * 3;');
    expect(words.get(del)).toEqual([
      { text: 'const total = price * ', changed: false },
      { text: '2', changed: true },
      { text: ';', changed: false },
    ]);
    expect(words.get(add)?.filter((s) => s.changed).map((s) => s.text)).toEqual(['3']);
    // 'gone entirely' → 'something else' share nothing: shown whole, not word-marked.
    expect(words.has(rows.findIndex((r) => r.text === 'gone entirely'))).toBe(false);
  });

  it('renders the marks inside the diff rows', () => {
    const out = renderToStaticMarkup(createElement(DiffView, { text: diff, label: 'Change' }));
    expect(out).toMatch(/<span class="diff-word-del">(<[^>]+>)*2(<\/[^>]+>)*<\/span>/);
    expect(out).toMatch(/<span class="diff-word-add">(<[^>]+>)*3(<\/[^>]+>)*<\/span>/);
    expect(out.match(/diff-word-/g)).toHaveLength(2);
  });
});

describe('ToolOutput', () => {
  it('highlights read_file output by the file extension, keeping line numbers apart', () => {
    const text = '     1\tconst a = 1;\n     2\texport default a;\n(2 lines, end of file.)';
    const out = renderToStaticMarkup(createElement(ToolOutput, { tool: 'read_file', args: { path: 'src/a.ts' }, text }));
    expect(out).toContain('<span class="code-gutter" aria-hidden="true">1\n2</span>');
    expect(out).toContain('<span class="tok-keyword">const</span>');
    expect(out).toContain('(2 lines, end of file.)');
    // Unknown language or another tool: the exact text.
    expect(renderToStaticMarkup(createElement(ToolOutput, { tool: 'read_file', args: { path: 'notes.txt' }, text }))).toBe(text);
    expect(renderToStaticMarkup(createElement(ToolOutput, { tool: 'run_command', args: {}, text: '<b>x</b>' }))).toBe('&lt;b&gt;x&lt;/b&gt;');
  });
});
