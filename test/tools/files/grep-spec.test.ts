/**
 * grep against the letter of the specs: offset/head_limit count matches only (context lines and separators come with
 * them, Spec II), every answer is in path order whether paginated or not, and the system grep answers when no
 * ripgrep is usable (Spec I).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { grepTool, grepTuning } from '../../../src/main/tools/files/grep';
import { ripgrepOverride } from '../../../src/main/tools/files/rg';
import { makeContext, tempDir } from '../../support/tool-context';

type GrepArgs = Parameters<typeof grepTool.execute>[0];

function put(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}

const body = (out: string): string[] => out.split('\n').filter((l) => !l.startsWith('['));

describe('grep pagination and order (Spec II)', () => {
  const dir = tempDir();
  const ctx = makeContext(dir);
  const grep = (a: GrepArgs) => grepTool.execute(a, ctx).then((r) => r.output);

  beforeAll(() => {
    // hit at lines 2, 6 and 7 of each file; other lines are filler.
    const text = ['a', 'hit one', 'b', 'c', 'd', 'hit two', 'hit three', 'e'].join('\n') + '\n';
    for (const name of ['k.txt', 'b.txt', 'z/y.txt', 'a/x.txt', 'm.txt']) put(dir, `ctx/${name}`, text);
  });
  afterEach(() => {
    grepTuning.passAMaxLines = 20_000;
  });

  it('counts only matching lines toward head_limit; context comes with each match', async () => {
    const out = await grep({ pattern: 'hit', path: 'ctx/b.txt', output_mode: 'content', '-C': 1, head_limit: 2 });
    expect(body(out)).toEqual(['ctx/b.txt-1-a', 'ctx/b.txt:2:hit one', 'ctx/b.txt-3-b', '--', 'ctx/b.txt-5-d', 'ctx/b.txt:6:hit two']);
    expect(out).toMatch(/Showing matching lines 1-2 of 3\. More results: call again with offset=2/);
  });

  it('an offset skips matches, not lines, and the page brings the context of its matches', async () => {
    const out = await grep({ pattern: 'hit', path: 'ctx/b.txt', output_mode: 'content', '-C': 1, offset: 2, head_limit: 5 });
    // Line 6 is a match of the previous page: it is not repeated as context.
    expect(body(out)).toEqual(['ctx/b.txt:7:hit three', 'ctx/b.txt-8-e']);
    expect(out).toMatch(/Showing matching lines 3-3 of 3/);
  });

  it('pages with context add up to every match exactly once, across files in path order', async () => {
    const args: GrepArgs = { pattern: 'hit', path: 'ctx', output_mode: 'content', '-B': 1 };
    const matches: string[] = [];
    for (let offset = 0; offset < 15; offset += 4) {
      const out = await grep({ ...args, offset, head_limit: 4 });
      matches.push(...body(out).filter((l) => /:\d+:hit/.test(l)));
    }
    const files = ['ctx/a/x.txt', 'ctx/b.txt', 'ctx/k.txt', 'ctx/m.txt', 'ctx/z/y.txt'];
    expect(matches).toEqual(files.flatMap((f) => [`${f}:2:hit one`, `${f}:6:hit two`, `${f}:7:hit three`]));
  });

  it('gives unpaginated content in path order, the same as the sorted pages and the streamed sorted pass', async () => {
    const all = body(await grep({ pattern: 'hit', path: 'ctx', output_mode: 'content', head_limit: 0 }));
    const files = all.map((l) => l.slice(0, l.indexOf(':')));
    expect(files).toEqual(['ctx/a/x.txt', 'ctx/b.txt', 'ctx/k.txt', 'ctx/m.txt', 'ctx/z/y.txt'].flatMap((f) => [f, f, f]));
    expect(body(await grep({ pattern: 'hit', path: 'ctx', output_mode: 'content', head_limit: 1000 }))).toEqual(all);
    grepTuning.passAMaxLines = 1;
    expect(body(await grep({ pattern: 'hit', path: 'ctx', output_mode: 'content', head_limit: 0 }))).toEqual(all);
    for (let i = 0; i < 3; i++) expect(body(await grep({ pattern: 'hit', path: 'ctx', output_mode: 'content', head_limit: 0 }))).toEqual(all);
  });

  it('-n false drops line numbers from matches and context alike', async () => {
    const out = body(await grep({ pattern: 'two', path: 'ctx/b.txt', output_mode: 'content', '-A': 1, '-n': false }));
    expect(out).toEqual(['ctx/b.txt:hit two', 'ctx/b.txt-hit three']);
  });
});

describe('grep without a usable ripgrep (Spec I: grep fallback)', () => {
  const dir = tempDir();
  const ctx = makeContext(dir);
  const grep = (a: GrepArgs) => grepTool.execute(a, ctx).then((r) => r.output);

  beforeAll(() => {
    put(dir, 'src/a.ts', 'alpha one\nbeta\nALPHA two\n');
    put(dir, 'src/b.py', 'alpha py\n');
    put(dir, 'docs/n.md', 'before\nalpha note\nafter\n');
    put(dir, '.env', 'ALPHA=alpha\n');
    put(dir, 'keys/k.pem', 'alpha\n');
  });
  afterEach(() => {
    ripgrepOverride.path = null;
  });

  for (const [why, path] of [
    ['missing', '/nonexistent/deskhand-no-rg'],
    ['not executable', 'NOEXEC'],
  ] as const) {
    it(`answers with the system grep when ripgrep is ${why}, in the same formats, secret files excluded`, async () => {
      if (path === 'NOEXEC') {
        const fake = join(tempDir(), 'rg');
        writeFileSync(fake, 'not a program');
        chmodSync(fake, 0o644);
        ripgrepOverride.path = fake;
      } else ripgrepOverride.path = path;
      const files = await grep({ pattern: 'alpha' });
      expect(body(files)).toEqual(['docs/n.md', 'src/a.ts', 'src/b.py']);
      expect(files).toMatch(/system grep searched instead/);
      expect(body(await grep({ pattern: 'alpha', output_mode: 'content', '-i': true, path: 'src' }))).toEqual([
        'src/a.ts:1:alpha one',
        'src/a.ts:3:ALPHA two',
        'src/b.py:1:alpha py',
      ]);
      expect(body(await grep({ pattern: 'note', output_mode: 'content', '-C': 1 }))).toEqual(['docs/n.md-1-before', 'docs/n.md:2:alpha note', 'docs/n.md-3-after']);
      expect(body(await grep({ pattern: 'alpha', output_mode: 'count_matches', '-i': true, path: 'src' }))).toEqual(['src/a.ts:2', 'src/b.py:1']);
      expect(body(await grep({ pattern: 'alpha', glob: '*.py' }))).toEqual(['src/b.py']);
      expect(body(await grep({ pattern: 'alpha', type: 'ts' }))).toEqual(['src/a.ts']);
      expect(body(await grep({ pattern: 'alpha', head_limit: 1, offset: 1 }))).toEqual(['src/a.ts']);
    });
  }
});
