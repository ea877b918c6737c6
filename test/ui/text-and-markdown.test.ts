/** The pure pieces the approval card and message view rely on: visible text, diff rows, the Markdown parser. */
import { describe, expect, it } from 'vitest';
import { hasHiddenCharacters, visibleSegments } from '../../src/shared/visible-text';
import { parseUnifiedDiff } from '../../src/shared/unified-diff';
import { parseInline, parseMarkdown, splitChunks } from '../../src/shared/markdown/parse';

describe('visibleSegments', () => {
  it('marks control, bidi, zero-width and look-alike characters; keeps plain ASCII as is', () => {
    const segs = visibleSegments('rm -rf ./b\u202euild\u200b \u0430pple\x1b[31m\tx\n');
    const marked = segs.filter((s) => s.kind !== 'plain').map((s) => [s.kind, s.label]);
    expect(marked).toEqual([
      ['invisible', 'U+202E'],
      ['invisible', 'U+200B'],
      ['lookalike', 'U+0430'],
      ['control', '\\x1b'],
      ['tab', '⇥'],
      ['newline', '↵'],
    ]);
    expect(segs.map((s) => s.text).join('')).toBe('rm -rf ./b\u202euild\u200b \u0430pple\x1b[31m\tx\n');
  });

  it('marks every non-ASCII character in strict mode, only suspicious ones in content mode', () => {
    expect(visibleSegments('café', 'strict').some((s) => s.kind === 'nonascii')).toBe(true);
    expect(visibleSegments('café', 'content').every((s) => s.kind === 'plain')).toBe(true);
    expect(hasHiddenCharacters('paypal.com')).toBe(false);
    expect(hasHiddenCharacters('p\u0430ypal.com')).toBe(true);
  });
});

describe('visibleSegments: ordinary typography versus look-alikes', () => {
  const marked = (text: string) => visibleSegments(text, 'strict').filter((s) => s.kind !== 'plain').map((s) => s.label);
  it.each([
    ['Plan · v2', []],
    ['• first', []],
    ['a → b ← c', []],
    ['3 × 4 ÷ 2', []],
    ['20 °C, 5 €, £3, ¥9, ¢1', []],
    ['§ 3 ¶ © ®', []],
  ])('shows %j as is', (text, labels) => expect(marked(text)).toEqual(labels));
  it.each([
    ['rm \u2010rf /', ['U+2010']], // hyphen, passes for "-"
    ['rm \u2212rf /', ['U+2212']], // minus sign
    ['echo \u2019hi\u2019', ['U+2019', 'U+2019']], // curly quotes pass for "'"
    ['ls \u2014all', ['U+2014']], // em dash
    ['\u0430pple', ['U+0430']], // Cyrillic a
    ['a\u0387b', ['U+0387']], // Greek ano teleia (a middle dot by another code point: Greek, so still marked)
    ['caf\u00e9', ['U+00E9']],
  ])('marks %j', (text, labels) => expect(marked(text)).toEqual(labels));
});

describe('parseUnifiedDiff', () => {
  it('numbers old and new lines per hunk', () => {
    const rows = parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -2,3 +2,3 @@\n a\n-b\n+B\n c\n');
    expect(rows.map((r) => [r.kind, r.oldLine, r.newLine, r.text])).toEqual([
      ['file', null, null, '--- a/x'],
      ['file', null, null, '+++ b/x'],
      ['hunk', null, null, '@@ -2,3 +2,3 @@'],
      ['context', 2, 2, 'a'],
      ['del', 3, null, 'b'],
      ['add', null, 3, 'B'],
      ['context', 4, 4, 'c'],
    ]);
  });

  it('treats content lines that look like headers as content inside a hunk', () => {
    const rows = parseUnifiedDiff('--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+--- not a header\n++++ plus\n');
    expect(rows.slice(3).map((r) => [r.kind, r.newLine, r.text])).toEqual([
      ['add', 1, '--- not a header'],
      ['add', 2, '+++ plus'],
    ]);
  });
});

describe('Markdown', () => {
  it('parses blocks: headings, fenced code, lists, quotes, tables', () => {
    const md = '# Title\n\nSome *em* and **strong** and `code`.\n\n```ts\nconst a = 1;\n```\n\n- one\n- two\n\n3. c\n4. d\n\n> quoted\n\n| a | b |\n|---|:-:|\n| 1 | 2 |';
    const blocks = parseMarkdown(md);
    expect(blocks.map((b) => b.t)).toEqual(['h', 'p', 'code', 'list', 'list', 'quote', 'table']);
    expect(blocks[2]).toMatchObject({ t: 'code', lang: 'ts', v: 'const a = 1;', open: false });
    expect(blocks[4]).toMatchObject({ ordered: true, start: 3 });
    expect(blocks[6]).toMatchObject({ t: 'table', align: [null, 'center'] });
  });

  it('never produces unsafe links and never loads images', () => {
    expect(parseInline('[x](javascript:alert(1))')).toEqual([{ t: 'text', v: 'x' }]);
    expect(parseInline('[x](https://example.com/a)')).toEqual([{ t: 'link', href: 'https://example.com/a', c: [{ t: 'text', v: 'x' }] }]);
    expect(parseInline('![logo](https://tracker.example/p.png)')).toEqual([{ t: 'image', alt: 'logo', src: 'https://tracker.example/p.png' }]);
    expect(parseInline('<img src=x onerror=alert(1)>')).toEqual([{ t: 'text', v: '<img src=x onerror=alert(1)>' }]);
  });

  it('keeps snake_case words intact and handles unclosed markers', () => {
    expect(parseInline('use read_file_now and *half')).toEqual([{ t: 'text', v: 'use read_file_now and *half' }]);
  });

  it('splits streamed text into stable chunks, keeping code fences whole', () => {
    expect(splitChunks('a\n\n```\nx\n\ny\n```\n\nb')).toEqual(['a', '```\nx\n\ny\n```', 'b']);
    // An open fence (still streaming) swallows the rest, as it will when closed.
    expect(splitChunks('a\n\n```py\nx\n\ny')).toEqual(['a', '```py\nx\n\ny']);
  });
});
