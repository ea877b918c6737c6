import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { grepTool, grepTuning } from '../../../src/main/tools/files/grep';
import { processesWith, until } from '../../support/tasks';
import { makeContext, tempDir } from '../../support/tool-context';

type GrepArgs = Parameters<typeof grepTool.execute>[0];

function put(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}

/** Lines of the output without the trailing [notice]. */
function body(out: string): string[] {
  return out.split('\n').filter((l) => !l.startsWith('['));
}

describe('grep', () => {
  const dir = tempDir();
  const ctx = makeContext(dir);
  const grep = (a: GrepArgs) => grepTool.execute(a, ctx).then((r) => r.output);

  beforeAll(() => {
    put(dir, 'src/a.ts', 'alpha one\nbeta\nALPHA two\nalpha three\n');
    put(dir, 'src/b.tsx', 'nothing\nalpha in b\n');
    put(dir, 'lib/c.js', 'const alpha = 1;\n');
    put(dir, 'docs/notes.md', 'before\nalpha note\nafter\n');
    put(dir, '.gitignore', 'build/\nskipped.ts\n');
    put(dir, 'build/out.ts', 'alpha built\n');
    put(dir, 'skipped.ts', 'alpha skipped\n');
    put(dir, '.env', 'ALPHA_KEY=alpha\n');
    put(dir, 'config/.env.local', 'alpha=1\n');
    put(dir, 'keys/server.pem', 'alpha pem\n');
    put(dir, 'home/id_rsa', 'alpha key\n');
    put(dir, '.hidden/h.txt', 'alpha hidden\n');
    for (let f = 0; f < 3; f++) {
      put(dir, `many/f${f}.txt`, Array.from({ length: 10 }, (_, i) => `match ${f}-${i}`).join('\n') + '\n');
    }
  });
  afterEach(() => {
    grepTuning.passAMaxLines = 20_000;
    grepTuning.passAMaxBytes = 8 * 1024 * 1024;
  });

  it('lists matching files by default, in path order, skipping ignored and secret files', async () => {
    const out = await grep({ pattern: 'alpha' });
    expect(body(out)).toEqual(['.hidden/h.txt', 'docs/notes.md', 'lib/c.js', 'src/a.ts', 'src/b.tsx']);
  });

  it('include_ignored adds ignored files but never secret files', async () => {
    const files = body(await grep({ pattern: 'alpha', include_ignored: true }));
    expect(files).toContain('build/out.ts');
    expect(files).toContain('skipped.ts');
    for (const secret of ['.env', 'config/.env.local', 'keys/server.pem', 'home/id_rsa']) expect(files).not.toContain(secret);
  });

  it('refuses to search a secret file named directly', async () => {
    await expect(grep({ pattern: 'alpha', path: '.env' })).rejects.toThrow(/secret-bearing/);
  });

  it('content mode prints path:line:text and honours -i and -n', async () => {
    expect(body(await grep({ pattern: 'alpha', path: 'src/a.ts', output_mode: 'content' }))).toEqual(['src/a.ts:1:alpha one', 'src/a.ts:4:alpha three']);
    expect(body(await grep({ pattern: 'alpha', path: 'src/a.ts', output_mode: 'content', '-i': true }))).toEqual([
      'src/a.ts:1:alpha one',
      'src/a.ts:3:ALPHA two',
      'src/a.ts:4:alpha three',
    ]);
    expect(body(await grep({ pattern: 'alpha', path: 'src/a.ts', output_mode: 'content', '-n': false }))).toEqual(['src/a.ts:alpha one', 'src/a.ts:alpha three']);
  });

  it('content mode shows context lines with - separators', async () => {
    const out = body(await grep({ pattern: 'note', path: 'docs', output_mode: 'content', '-C': 1 }));
    expect(out).toEqual(['docs/notes.md-1-before', 'docs/notes.md:2:alpha note', 'docs/notes.md-3-after']);
    const after = body(await grep({ pattern: 'note', path: 'docs', output_mode: 'content', '-A': 1 }));
    expect(after).toEqual(['docs/notes.md:2:alpha note', 'docs/notes.md-3-after']);
    const before = body(await grep({ pattern: 'note', path: 'docs', output_mode: 'content', '-B': 1, head_limit: 0, offset: 0 }));
    expect(before).toEqual(['docs/notes.md-1-before', 'docs/notes.md:2:alpha note']);
  });

  it('count_matches gives per-file counts and a total', async () => {
    const out = await grep({ pattern: 'alpha', path: 'src', output_mode: 'count_matches', '-i': true });
    expect(body(out)).toEqual(['src/a.ts:3', 'src/b.tsx:1']);
    expect(out).toContain('4 matches in 2 files');
  });

  it('glob narrows by name and keeps .gitignore in force; negated globs exclude', async () => {
    expect(body(await grep({ pattern: 'alpha', glob: '*.ts' }))).toEqual(['src/a.ts']);
    expect(body(await grep({ pattern: 'alpha', glob: '*.{ts,tsx}' }))).toEqual(['src/a.ts', 'src/b.tsx']);
    expect(body(await grep({ pattern: 'alpha', glob: 'src/**' }))).toEqual(['src/a.ts', 'src/b.tsx']);
    const excluded = body(await grep({ pattern: 'alpha', glob: '!*.md' }));
    expect(excluded).not.toContain('docs/notes.md');
    expect(excluded).toContain('lib/c.js');
    expect(body(await grep({ pattern: 'alpha', type: 'js' }))).toEqual(['lib/c.js']);
  });

  it('multiline patterns span lines', async () => {
    await expect(grep({ pattern: 'before\\nalpha' })).rejects.toThrow(/set multiline: true/);
    expect(body(await grep({ pattern: 'before\\nalpha', multiline: true }))).toEqual(['docs/notes.md']);
  });

  it('falls back to PCRE2 for look-around and backreferences', async () => {
    expect(body(await grep({ pattern: '(?<=const )alpha', output_mode: 'content' }))).toEqual(['lib/c.js:1:const alpha = 1;']);
    expect(body(await grep({ pattern: '(e)\\1', path: 'src', output_mode: 'content' }))).toEqual(['src/a.ts:4:alpha three']);
  });

  it('paginates with offset and head_limit, and the pages add up to the whole', async () => {
    const all = body(await grep({ pattern: 'match', path: 'many', output_mode: 'content', head_limit: 0 }));
    expect(all).toHaveLength(30);
    const sorted = body(await grep({ pattern: 'match', path: 'many', output_mode: 'content', head_limit: 1000 }));
    expect([...sorted].sort()).toEqual([...all].sort());
    expect(sorted[0]).toBe('many/f0.txt:1:match 0-0');
    expect(sorted[29]).toBe('many/f2.txt:10:match 2-9');
    const pages: string[] = [];
    for (let offset = 0; offset < 30; offset += 7) {
      const out = await grep({ pattern: 'match', path: 'many', output_mode: 'content', offset, head_limit: 7 });
      pages.push(...body(out));
      if (offset + 7 < 30) expect(out).toContain(`offset=${offset + 7}`);
      else expect(out).not.toMatch(/More results/);
    }
    expect(pages).toEqual(sorted);
  });

  it('the sorted rerun for large results gives the same pages as the in-memory sort (with context)', async () => {
    const args: GrepArgs = { pattern: 'match [02]-[05]', path: 'many', output_mode: 'content', '-C': 1, head_limit: 1000 };
    const inMemory = body(await grep(args));
    expect(inMemory).toContain('--');
    grepTuning.passAMaxLines = 1; // force the streamed --sort=path pass
    const streamed = body(await grep(args));
    expect(streamed).toEqual(inMemory);
    // Pages count matches (4 here); their context comes along.
    const page = body(await grep({ ...args, offset: 1, head_limit: 2 }));
    expect(page).toEqual(['many/f0.txt-5-match 0-4', 'many/f0.txt:6:match 0-5', 'many/f0.txt-7-match 0-6', '--', 'many/f2.txt:1:match 2-0', 'many/f2.txt-2-match 2-1']);
    grepTuning.passAMaxLines = 20_000;
    expect(body(await grep({ ...args, offset: 1, head_limit: 2 }))).toEqual(page);
  });

  it('files_with_matches paginates too', async () => {
    const first = await grep({ pattern: 'alpha', head_limit: 2 });
    expect(body(first)).toEqual(['.hidden/h.txt', 'docs/notes.md']);
    expect(first).toMatch(/files 1-2 of 5.*offset=2/);
    expect(body(await grep({ pattern: 'alpha', head_limit: 2, offset: 2 }))).toEqual(['lib/c.js', 'src/a.ts']);
  });

  it('cuts very long lines', async () => {
    put(dir, 'wide/long.txt', `needle ${'z'.repeat(5000)}\n`);
    const out = await grep({ pattern: 'needle', path: 'wide', output_mode: 'content' });
    expect(out.length).toBeLessThan(1000);
    expect(out).toMatch(/omitted/);
  });

  it('content output of many chunks, non-ASCII paths and text, CRLF: every line as the files hold it, in path order', async () => {
    // About 300 kB of rg output: lines and paths fall across the pipe's chunks (the bytes are parsed as they come).
    const lines: string[] = [];
    for (let f = 0; f < 120; f++) {
      const rel = `wide-chunks/${f % 2 ? 'é' : 'e'}-dir/ファイル-${String(f).padStart(3, '0')}.txt`;
      const text = Array.from({ length: 40 }, (_, i) => `${i % 3 ? 'chunkneedle' : 'other'} ${i} ü漢字🔑 ${'x'.repeat(f + i)}${i % 5 ? '' : '\r'}`);
      put(dir, rel, `${text.join('\n')}\n`);
      text.forEach((t, i) => t.startsWith('chunkneedle') && lines.push(`${rel}:${i + 1}:${t}`));
    }
    const expected = lines.sort((a, b) => {
      const ka = a.slice(0, a.indexOf(':')).replaceAll('/', '\u0000');
      const kb = b.slice(0, b.indexOf(':')).replaceAll('/', '\u0000');
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    const out = await grep({ pattern: 'chunkneedle', path: 'wide-chunks', output_mode: 'content', head_limit: 0 });
    expect(out.split('\n')).toEqual(expected);
    const bare = await grep({ pattern: 'chunkneedle', path: 'wide-chunks', output_mode: 'content', head_limit: 0, '-n': false });
    expect(bare.split('\n')).toEqual(expected.map((l) => l.replace(/^([^:]*):\d+:/, '$1:')));
  });

  it('reports no matches plainly, and errors the model can act on', async () => {
    expect(await grep({ pattern: 'zzzz-not-there' })).toMatch(/No matches/);
    await expect(grep({ pattern: 'foo(' })).rejects.toThrow(/Invalid regular expression/);
    await expect(grep({ pattern: 'x', type: 'nosuchtype' })).rejects.toThrow(/Unknown file type/);
    await expect(grep({ pattern: 'x', path: 'missing-dir' })).rejects.toThrow(/not found: missing-dir/);
  });

  it('searches relative to the working directory', async () => {
    const sub = makeContext(join(dir, 'src'));
    const out = await grepTool.execute({ pattern: 'alpha', output_mode: 'content', '-i': true }, sub);
    expect(body(out.output)).toEqual(['a.ts:1:alpha one', 'a.ts:3:ALPHA two', 'a.ts:4:alpha three', 'b.tsx:2:alpha in b']);
  });

  it('refuses to start when the run is already stopped', async () => {
    const c = makeContext(dir);
    c.abort();
    await expect(grepTool.execute({ pattern: 'alpha' }, c)).rejects.toMatchObject({ code: 'aborted' });
  });

  it('stops mid-search when aborted: the call ends as aborted and its ripgrep is gone', async () => {
    // A named pipe nobody writes to: ripgrep blocks reading it, so the search is surely under way when the abort comes.
    const far = tempDir();
    const needle = `needle${Math.floor(Math.random() * 1e9)}`;
    execFileSync('mkfifo', [join(far, 'stuck.txt')]);
    const c = makeContext(far);
    const call = grepTool.execute({ pattern: needle, path: 'stuck.txt', output_mode: 'content' }, c);
    const rgs = () => processesWith(needle).filter((l) => /\brg\b/.test(l));
    await until(() => rgs().length > 0, 'ripgrep to be reading the pipe');
    c.abort();
    await expect(call).rejects.toMatchObject({ code: 'aborted' });
    await until(() => rgs().length === 0, 'ripgrep to end');
  });
});
