import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findTool } from '../../../src/main/tools/files/find';
import { makeContext, tempDir } from '../../support/tool-context';

type FindArgs = Parameters<typeof findTool.execute>[0];

function body(out: string): string[] {
  return out.split('\n').filter((l) => !l.startsWith('['));
}

describe('find', () => {
  const dir = tempDir();
  const ctx = makeContext(dir);
  const find = (a: FindArgs) => findTool.execute(a, ctx).then((r) => r.output);
  let t = Date.parse('2024-01-01T00:00:00Z') / 1000;
  /** Files get strictly increasing mtimes in creation order. */
  const put = (rel: string, content = 'x\n'): void => {
    const abs = join(dir, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    t += 60;
    utimesSync(abs, t, t);
  };

  beforeAll(() => {
    put('src/old.ts');
    put('src/comp/view.tsx');
    put('src/comp/deep/model.ts');
    put('README.md');
    put('src/newest.ts');
    put('.gitignore', 'dist/\n*.log\n');
    put('dist/bundle.ts');
    put('debug.log');
    put('.env');
    put('config/.env.production');
    put('certs/site.pem');
    put('.ssh/id_ed25519');
    put('.github/workflows/ci.yml');
    mkdirSync(join(dir, 'empty-dir'));
    // Bulk files are older than everything above, so they fill the cap only after the others.
    t = Date.parse('2020-01-01T00:00:00Z') / 1000;
    for (let i = 0; i < 130; i++) put(`bulk/file${String(i).padStart(3, '0')}.txt`);
    // Folder mtimes, explicitly ordered: deep is newer than comp.
    utimesSync(join(dir, 'src/comp'), 1_800_000_000, 1_800_000_000);
    utimesSync(join(dir, 'src/comp/deep'), 1_900_000_000, 1_900_000_000);
  });

  it('matches brace globs and lists newest first', async () => {
    expect(body(await find({ pattern: '**/*.{ts,tsx}' }))).toEqual(['src/newest.ts', 'src/comp/deep/model.ts', 'src/comp/view.tsx', 'src/old.ts']);
  });

  it('a pattern without a slash matches names at any depth; with a slash, the relative path', async () => {
    expect(body(await find({ pattern: '*.ts' }))).toEqual(['src/newest.ts', 'src/comp/deep/model.ts', 'src/old.ts']);
    expect(body(await find({ pattern: 'src/comp/**/*.ts' }))).toEqual(['src/comp/deep/model.ts']);
    expect(body(await find({ pattern: 'src/*.ts' }))).toEqual(['src/newest.ts', 'src/old.ts']);
  });

  it('searches inside path and prints paths relative to the working directory', async () => {
    expect(body(await find({ pattern: '*.tsx', path: 'src/comp' }))).toEqual(['src/comp/view.tsx']);
    const sub = makeContext(join(dir, 'src'));
    expect(body((await findTool.execute({ pattern: '**/*.ts', path: 'comp' }, sub)).output)).toEqual(['comp/deep/model.ts']);
  });

  it('accepts absolute patterns by splitting off their folder part', async () => {
    expect(body(await find({ pattern: join(dir, 'src/comp/**/*.ts') }))).toEqual(['src/comp/deep/model.ts']);
    expect(body(await find({ pattern: join(dir, 'README.md') }))).toEqual(['README.md']);
  });

  it('caps at 100 entries and says how many matched', async () => {
    const out = await find({ pattern: 'bulk/*.txt' });
    const lines = body(out);
    expect(lines).toHaveLength(100);
    expect(lines[0]).toBe('bulk/file129.txt');
    expect(lines[99]).toBe('bulk/file030.txt');
    expect(out).toMatch(/130 files matched; showing the 100 most recently modified/);
  });

  it('respects .gitignore unless include_ignored', async () => {
    expect(await find({ pattern: '**/bundle.ts' })).toBe(
      'No files match **/bundle.ts in the working directory. Ignored files were skipped; set include_ignored: true to include them.',
    );
    expect(body(await find({ pattern: '**/bundle.ts', include_ignored: true }))).toEqual(['dist/bundle.ts']);
    expect(body(await find({ pattern: '*.log', include_ignored: true }))).toEqual(['debug.log']);
  });

  it('never lists secret files, even when the pattern names them (Spec II)', async () => {
    const everything = body(await find({ pattern: '**/*', include_ignored: true }));
    expect(everything).toContain('.github/workflows/ci.yml'); // hidden files are included
    expect(everything).toContain('.gitignore');
    for (const s of ['.env', 'config/.env.production', 'certs/site.pem', '.ssh/id_ed25519']) expect(everything).not.toContain(s);
    expect(await find({ pattern: '**/.env*' })).toMatch(/^No files match/);
    expect(await find({ pattern: '*.pem', include_ignored: true })).toMatch(/^No files match/);
    expect(await find({ pattern: '**/id_ed25519' })).toMatch(/^No files match/);
    expect(await find({ pattern: '(^|/)\\.env', regex: true })).toMatch(/^No files match/);
  });

  it('finds directories with type directory', async () => {
    const out = await find({ pattern: 'comp*', type: 'directory' });
    expect(body(out)).toEqual(['src/comp/']);
    expect(body(await find({ pattern: 'src/**', type: 'directory' }))).toEqual(['src/comp/deep/', 'src/comp/']);
  });

  it('finds empty folders and folders holding only ignored files, but not ignored folders', async () => {
    put('logs/only.log'); // *.log is ignored: the folder holds no listed file
    expect(body(await find({ pattern: 'empty-*', type: 'directory' }))).toEqual(['empty-dir/']);
    expect(body(await find({ pattern: 'logs', type: 'directory' }))).toEqual(['logs/']);
    expect(await find({ pattern: 'dist', type: 'directory' })).toMatch(/^No folders match dist/);
    expect(body(await find({ pattern: 'dist', type: 'directory', include_ignored: true }))).toEqual(['dist/']);
    expect(await find({ pattern: '.git', type: 'directory', include_ignored: true })).toMatch(/^No folders match/);
  });

  it('matches a regular expression against the relative path with regex: true (Spec I)', async () => {
    expect(body(await find({ pattern: '^src/.*\\.tsx?$', regex: true }))).toEqual(['src/newest.ts', 'src/comp/deep/model.ts', 'src/comp/view.tsx', 'src/old.ts']);
    expect(body(await find({ pattern: 'deep/model', regex: true }))).toEqual(['src/comp/deep/model.ts']);
    expect(body(await find({ pattern: '^src/comp(/deep)?$', regex: true, type: 'directory' }))).toEqual(['src/comp/deep/', 'src/comp/']);
    // The same characters as a glob mean something else.
    expect(await find({ pattern: '^src/.*\\.tsx?$' })).toMatch(/^No files match/);
    await expect(find({ pattern: 'src/(', regex: true })).rejects.toThrow(/Invalid regular expression/);
  });

  it('explains errors', async () => {
    await expect(find({ pattern: '*.ts', path: 'README.md' })).rejects.toThrow(/is a file, not a folder/);
    await expect(find({ pattern: '*.ts', path: 'nope' })).rejects.toThrow(/Folder not found: nope/);
    expect(await find({ pattern: '*.nothing' })).toMatch(/No files match/);
  });

  it('is offered as glob too and is read-only', () => {
    expect(findTool.aliases).toEqual(['glob']);
    expect(findTool.risk).toBe('read-only');
    expect(findTool.disclosure).toBe('internal');
  });
});
