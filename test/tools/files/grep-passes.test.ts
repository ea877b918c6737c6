/**
 * grep builds a page two ways: from the parallel pass (rg's whole answer kept per file, then sorted by path) or, when
 * that answer is too large to sort here, from a second rg run in path order, streamed and stopped once the page is
 * full (forced here with `passAMaxLines = 0`). The pages must be the same for every offset, page size, context and
 * line-number choice (issue 54, eighth round: written for a version of the parallel pass that kept each file's bytes
 * and decoded only the page's; measured without gain and not kept, the test stays for the two passes as they are).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { grepTool, grepTuning } from '../../../src/main/tools/files/grep';
import { makeContext, tempDir } from '../../support/tool-context';

const DEFAULT_LINES = grepTuning.passAMaxLines;

afterEach(() => {
  grepTuning.passAMaxLines = DEFAULT_LINES;
});

function tree(): string {
  const root = tempDir('deskhand-grep-passes-');
  mkdirSync(join(root, 'a/b'), { recursive: true });
  mkdirSync(join(root, 'a-c'), { recursive: true });
  // Files sorted by path with `/` before any character: a/b/…, a/x.txt, a-c/…, z.txt.
  writeFileSync(join(root, 'a/b/one.txt'), 'hit 1\nmiss\nhit 2\nhit 3\n');
  writeFileSync(join(root, 'a/x.txt'), 'miss\nmiss\nhit é unicode ✓\nmiss\nmiss\nmiss\nhit after a gap\n');
  writeFileSync(join(root, 'a-c/two.txt'), `${'hit line\n'.repeat(9)}last hit without a line break`);
  writeFileSync(join(root, 'z.txt'), 'hit: colon 12:34 and\ttab\nmiss\nhit\n');
  writeFileSync(join(root, 'empty-match.txt'), 'hit\n\nmiss\n');
  return root;
}

async function grep(root: string, args: Record<string, unknown>): Promise<string> {
  return (await grepTool.execute({ pattern: 'hit', output_mode: 'content', ...args } as Parameters<typeof grepTool.execute>[0], makeContext(root))).output;
}

/** The page's lines without the closing notice (the streamed pass may not know the total when it stops early). */
const body = (out: string): string => out.replace(/\n\[Showing [^\n]*\]$/, '');

describe('grep\'s two passes build the same pages', () => {
  it('every page equals the one the line-by-line sorted pass builds', async () => {
    const root = tree();
    const cases: Record<string, unknown>[] = [];
    for (const offset of [0, 1, 4, 13, 40]) {
      for (const head_limit of [2, 0]) {
        for (const extra of [{}, { '-C': 1 }, { '-A': 2 }, { '-B': 1 }, { '-n': false }, { '-n': false, '-C': 1 }]) cases.push({ offset, head_limit, ...extra });
      }
    }
    let compared = 0;
    for (const c of cases) {
      grepTuning.passAMaxLines = DEFAULT_LINES;
      const blocks = await grep(root, c);
      grepTuning.passAMaxLines = 0;
      const streamed = await grep(root, c);
      expect(body(blocks), JSON.stringify(c)).toBe(body(streamed));
      if (!blocks.startsWith('No ')) compared++;
    }
    expect(compared).toBeGreaterThan(cases.length / 2);
  });

  it('shows every file\'s matches in path order, and the total', async () => {
    const root = tree();
    const out = await grep(root, { head_limit: 0 });
    expect(out.split('\n')).toEqual([
      'a/b/one.txt:1:hit 1',
      'a/b/one.txt:3:hit 2',
      'a/b/one.txt:4:hit 3',
      'a/x.txt:3:hit é unicode ✓',
      'a/x.txt:7:hit after a gap',
      ...Array.from({ length: 9 }, (_, i) => `a-c/two.txt:${i + 1}:hit line`),
      'a-c/two.txt:10:last hit without a line break',
      'empty-match.txt:1:hit',
      'z.txt:1:hit: colon 12:34 and\ttab',
      'z.txt:3:hit',
    ]);
    const paged = await grep(root, { offset: 4, head_limit: 3 });
    expect(paged).toBe('a/x.txt:7:hit after a gap\na-c/two.txt:1:hit line\na-c/two.txt:2:hit line\n[Showing matching lines 5-7 of 18. More results: call again with offset=7, or narrow the search with path, glob or a more specific pattern.]');
  });
});
