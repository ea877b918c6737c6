/**
 * test/expected-skips.json against the tree: every entry names a file that exists and a test it holds (a mistyped entry
 * would match nothing and go unnoticed until the skip it was meant for fails a run), and every by-design skip of the
 * Electron project in the e2e specs (`test.skip(deskhand.kind === 'electron' …)` / `!== 'web'`) is listed `always`, so
 * the day Electron can start those skips do not fail `npm test`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Entry {
  runner: 'vitest' | 'playwright';
  project?: string;
  file: string;
  title: string;
  reason: string;
  when: string[];
}

const { skips } = JSON.parse(readFileSync(join(ROOT, 'test', 'expected-skips.json'), 'utf8')) as { skips: Entry[] };

/** The title of the test whose body holds `index` of `source`: the last `test('…'` before it. */
function enclosingTest(source: string, index: number): string {
  const opens = [...source.slice(0, index).matchAll(/^test\((['"`])(.+?)\1, async/gm)];
  const last = opens.at(-1);
  if (!last) throw new Error('a skip outside any test');
  return last[2]!.replace(/\\'/g, "'");
}

describe('test/expected-skips.json', () => {
  it.each(skips.filter((e) => e.file !== '*').map((e) => [`${e.file} › ${e.title}`, e] as const))('%s names a file and a test that exist', (_id, e) => {
    expect(existsSync(join(ROOT, e.file)), e.file).toBe(true);
    if (e.title === '*') return;
    // The test's own title is the last part (describe titles come first, joined by ' > ').
    const own = e.title.split(' > ').at(-1)!;
    expect(readFileSync(join(ROOT, e.file), 'utf8')).toContain(JSON.stringify(own).slice(1, -1).replace(/\\"/g, '"'));
  });

  it('lists every by-design Electron skip of the e2e specs as always', () => {
    const found: string[] = [];
    for (const name of readdirSync(join(ROOT, 'e2e')).filter((f) => f.endsWith('.spec.ts'))) {
      const source = readFileSync(join(ROOT, 'e2e', name), 'utf8');
      for (const m of source.matchAll(/test\.skip\(deskhand\.kind (?:=== 'electron'|!== 'web')/g)) found.push(`e2e/${name} › ${enclosingTest(source, m.index)}`);
    }
    expect(found.length).toBeGreaterThanOrEqual(10);
    const always = new Set(skips.filter((e) => e.runner === 'playwright' && e.project === 'electron' && e.when.includes('always')).map((e) => `${e.file} › ${e.title}`));
    expect(found.filter((id) => !always.has(id))).toEqual([]);
  });
});
