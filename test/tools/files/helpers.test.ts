import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../../src/main/tools/files/diff-preview';
import { expandBraces, globToRegExp, makePathMatcher } from '../../../src/main/tools/files/glob';
import { displayPath, resolvePath } from '../../../src/main/tools/files/paths';
import { isSensitivePath } from '../../../src/main/tools/files/sensitive';

describe('paths', () => {
  it('resolves relative, absolute and ~ paths to absolute ones', () => {
    expect(resolvePath('src/a.ts', '/w')).toBe('/w/src/a.ts');
    expect(resolvePath('../x', '/w/sub')).toBe('/w/x');
    expect(resolvePath('/etc/hosts', '/w')).toBe('/etc/hosts');
    expect(resolvePath('~', '/w')).toBe(homedir());
    expect(resolvePath('~/notes.md', '/w')).toBe(join(homedir(), 'notes.md'));
    expect(resolvePath('~user/x', '/w')).toBe('/w/~user/x');
    expect(() => resolvePath('  ', '/w')).toThrow(/empty/);
  });

  it('displays paths relative to cwd when inside it', () => {
    expect(displayPath('/w/src/a.ts', '/w')).toBe('src/a.ts');
    expect(displayPath('/w', '/w')).toBe('.');
    expect(displayPath('/other/a', '/w')).toBe('/other/a');
    expect(displayPath('/w2/a', '/w')).toBe('/w2/a');
  });
});

describe('glob', () => {
  it('expands braces, including nested ones', () => {
    expect(expandBraces('*.{ts,tsx}')).toEqual(['*.ts', '*.tsx']);
    expect(expandBraces('{a,b{c,d}}x')).toEqual(['ax', 'bcx', 'bdx']);
    expect(expandBraces('{single}')).toEqual(['{single}']);
  });

  it('matches *, **, ? and classes with path rules like ripgrep', () => {
    expect(globToRegExp('**/*.ts').test('a/b/c.ts')).toBe(true);
    expect(globToRegExp('**/*.ts').test('c.ts')).toBe(true);
    expect(globToRegExp('src/*.ts').test('src/a/b.ts')).toBe(false);
    expect(globToRegExp('file?.[ch]').test('file1.c')).toBe(true);
    expect(globToRegExp('[!a]*').test('abc')).toBe(false);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
    const byName = makePathMatcher('*.md');
    expect(byName('docs/deep/readme.md')).toBe(true);
    const byPath = makePathMatcher('docs/*.md');
    expect(byPath('docs/readme.md')).toBe(true);
    expect(byPath('x/docs/readme.md')).toBe(false);
    expect(makePathMatcher('src/**')('src/a/b')).toBe(true);
  });
});

describe('sensitive files', () => {
  it('recognises secret-bearing names', () => {
    for (const p of ['.env', 'a/.env.local', 'k/server.pem', 'tls.key', '/home/u/.ssh/id_rsa', 'id_ed25519.pub', '.npmrc', '.netrc', '.aws/credentials', 'credentials.json'])
      expect(isSensitivePath(p), p).toBe(true);
    for (const p of ['env.ts', 'src/keys.ts', 'README.md', 'environment.md', 'monkey.txt']) expect(isSensitivePath(p), p).toBe(false);
  });
});

describe('unifiedDiff', () => {
  it('diffs a big file into one hunk around the changed line, with correct line numbers', () => {
    const before = Array.from({ length: 50_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 30000\n', 'changed\n');
    // Its speed is a figure (bench/diff.bench.ts: unified_diff_50k_lines_ms), not a bound here.
    const d = unifiedDiff('big.txt', before, after);
    expect(d).toBe('--- a/big.txt\n+++ b/big.txt\n@@ -29997,7 +29997,7 @@\n line 29997\n line 29998\n line 29999\n-line 30000\n+changed\n line 30001\n line 30002\n line 30003\n');
  });

  it('handles edits at the very start and end, and missing final newlines', () => {
    expect(unifiedDiff('f', '\nb\n', 'a\nb\n')).toBe('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-\n+a\n b\n');
    expect(unifiedDiff('f', 'a\nb', 'a\nc')).toBe('--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n');
    expect(unifiedDiff('f', null, 'x\n')).toBe('--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+x\n');
  });
});
