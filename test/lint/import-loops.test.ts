/**
 * No import loop in src/ (issue 32): `npm run lint` runs scripts/check-cycles.mjs, which resolves every import of
 * src/ with the TypeScript compiler and fails on any loop, type imports included. These plant loops of each kind of
 * import in a scratch tree and check that the script refuses them (exit code 1, the loop named file by file), that a
 * tree without one passes, and that src/ as it stands has none.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEPT_LOOPS, checkFolders } from '../../scripts/check-cycles.mjs';

const trees: string[] = [];
afterEach(() => {
  for (const t of trees.splice(0)) rmSync(t, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'deskhand-loops-'));
  trees.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const loopsIn = (root: string) => checkFolders([root], root, []);

describe('import loop check', () => {
  it.each([
    ['value imports', "import { b } from './b';\nexport const a = () => b;\n", "import { a } from './a';\nexport const b = () => a;\n", 'value'],
    ['a type import back', "import { b } from './b';\nexport interface A { x: number }\nexport const a = b;\n", "import type { A } from './a';\nexport const b: A = { x: 1 };\n", 'type'],
    ['inline type specifiers only', "import { b } from './b';\nexport interface A { x: number }\nexport const a = b;\n", "import { type A } from './a';\nexport const b: A = { x: 1 };\n", 'type'],
    ['an import() type', "import { b } from './b';\nexport interface A { x: number }\nexport const a = b;\n", "export const b: import('./a').A = { x: 1 };\n", 'type'],
    ['a dynamic import()', "import { b } from './b';\nexport const a = () => b;\n", "export const b = async () => (await import('./a')).a;\n", 'dynamic'],
    ['a re-export', "import { b } from './b';\nexport const a = () => b;\n", "export { a } from './a';\nexport const b = 1;\n", 'value'],
    ['a type re-export', "import { b } from './b';\nexport interface A { x: number }\nexport const a = b;\n", "export type { A } from './a';\nexport const b = 1;\n", 'type'],
    ['an index folder import', "import { b } from './sub';\nexport const a = () => b;\n", "import { a } from '../a';\nexport const b = () => a;\n", 'value'],
  ])('refuses a loop through %s', (_name, a, b, kind) => {
    const bPath = a.includes("'./sub'") ? 'sub/index.ts' : 'b.ts';
    const root = tree({ 'a.ts': a, [bPath]: b });
    const loops = loopsIn(root);
    expect(loops).toHaveLength(1);
    expect(loops[0]).toContain('a.ts');
    expect(loops[0]).toContain(bPath);
    expect(loops[0]).toContain(`-(${kind})->`);
  });

  it('refuses a longer loop and names every file on it, and a file importing itself', () => {
    const root = tree({
      'a.ts': "import { b } from './b';\nexport const a = b;\n",
      'b.ts': "import { c } from './c';\nexport const b = c;\n",
      'c.tsx': "import type { A } from './d';\nexport const c = 1 as unknown as A;\n",
      'd.ts': "import { a } from './a';\nexport type A = typeof a;\n",
      'self.ts': "import { s } from './self';\nexport const s = 1;\nvoid s;\n",
    });
    const loops = loopsIn(root);
    expect(loops).toHaveLength(2);
    const four = loops.find((l) => l.includes('among 4 files'))!;
    for (const f of ['a.ts', 'b.ts', 'c.tsx', 'd.ts']) expect(four).toContain(f);
    expect(loops.find((l) => l.includes('among 1 files'))).toContain('self.ts');
  });

  it('accepts a tree whose imports only go one way (shared pieces imported by both sides)', () => {
    const root = tree({
      'shared.ts': 'export interface Shared { n: number }\n',
      'low.ts': "import type { Shared } from './shared';\nexport const low: Shared = { n: 1 };\n",
      'high.ts': "import { low } from './low';\nimport type { Shared } from './shared';\nexport const high: Shared = low;\nexport const later = () => import('./low');\n",
      'outside.ts': "import { z } from 'zod';\nimport { readFileSync } from 'node:fs';\nexport const o = [z, readFileSync];\n",
    });
    expect(loopsIn(root)).toEqual([]);
  });

  it('keeps a named loop only while it is exactly that loop', () => {
    const files = {
      'a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'b.ts': "import { a } from './a';\nexport const b = () => a;\n",
    };
    const root = tree(files);
    expect(checkFolders([root], root, [['a.ts', 'b.ts']])).toEqual([]);
    const grown = tree({ ...files, 'b.ts': "import { a } from './a';\nimport { c } from './c';\nexport const b = () => [a, c];\n", 'c.ts': "import { b } from './b';\nexport const c = () => b;\n" });
    expect(checkFolders([grown], grown, [['a.ts', 'b.ts']])).toHaveLength(1);
  });

  it('fails the command (exit 1, the loop on stderr) on a planted loop, and passes on src/ as it stands', () => {
    const root = tree({ 'x.ts': "import type { Y } from './y';\nexport type X = Y;\n", 'y.ts': "import type { X } from './x';\nexport type Y = X | 1;\n" });
    const planted = spawnSync(process.execPath, ['scripts/check-cycles.mjs', root], { encoding: 'utf8' });
    expect(planted.status).toBe(1);
    expect(planted.stderr).toMatch(/import loop among 2 files: .*x\.ts -\(type\)-> .*y\.ts -\(type\)-> .*x\.ts/);
    const src = spawnSync(process.execPath, ['scripts/check-cycles.mjs'], { encoding: 'utf8' });
    expect(src.stderr).toBe('');
    expect(src.status).toBe(0);
  }, 120_000);

  it('keeps only the launcher loop, which the one door for processes requires', () => {
    expect(KEPT_LOOPS).toEqual([['src/main/services/processes/launcher.ts', 'src/main/services/processes/proc-info.ts', 'src/main/services/processes/process-tree.ts']]);
  });
});
