/**
 * A repeated search reads each candidate's key (its `stat`) while ripgrep still runs (grep-redacted.ts, `SearchedKeys`),
 * not after it. The memo may vouch for a file only with a key read after ripgrep read the file: a write after that
 * changes the key, a write before the key was read could be missed. ripgrep's parallel search prints a file's lines
 * together once it has searched the file, so a key read once rg's output has moved past the file (or rg has exited)
 * is one read after rg's read. The log below holds, in order, what rg printed and every `stat` of a candidate; each
 * `stat` must come after its file's block has ended, and (the point of the change) most of them before rg exits.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const log: { kind: 'out' | 'stat' | 'exit'; text: string }[] = [];

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const statSync = ((path: string, opts?: object) => {
    if (String(path).includes('deskhand-searched-keys-')) log.push({ kind: 'stat', text: String(path) });
    return fs.statSync(path, opts as never);
  }) as typeof fs.statSync;
  return { ...fs, default: { ...fs, statSync }, statSync };
});

vi.mock('../../src/main/tools/files/rg', async (importOriginal) => {
  const rg = await importOriginal<typeof import('../../src/main/tools/files/rg')>();
  return {
    ...rg,
    runRg: async (args: readonly string[], opts: Parameters<typeof rg.runRg>[1]) => {
      const { onChunk, onLines } = opts;
      const res = await rg.runRg(args, {
        ...opts,
        ...(onChunk ? { onChunk: (chunk: Buffer) => (log.push({ kind: 'out', text: chunk.toString('latin1') }), onChunk(chunk)) } : {}),
        ...(onLines ? { onLines: (lines: string[]) => (log.push({ kind: 'out', text: lines.join('\n') + '\n' }), onLines(lines)) } : {}),
      });
      log.push({ kind: 'exit', text: '' });
      return res;
    },
  };
});

const { SecretRedactor } = await import('../../src/main/runtime/context/redaction');
const { grepTool } = await import('../../src/main/tools/files/grep');
const { SearchedKeys, unchangedTuning } = await import('../../src/main/tools/files/grep-redacted');
const { makeContext, tempDir } = await import('../support/tool-context');

const DEFAULT_RACY = unchangedTuning.racyMs;

afterEach(() => {
  unchangedTuning.racyMs = DEFAULT_RACY;
});

/** 320 candidate files, their times an hour old. */
function tree(): { root: string; files: string[] } {
  unchangedTuning.racyMs = 0;
  const root = tempDir('deskhand-searched-keys-');
  // Enough files, and lines, that rg's output comes in several blocks (and chunks) while it still runs.
  const files: string[] = [];
  for (let d = 0; d < 8; d++) {
    mkdirSync(join(root, `d${d}`));
    for (let f = 0; f < 40; f++) {
      const rel = `d${d}/f${f}.txt`;
      const abs = join(root, rel);
      writeFileSync(abs, `${'filler line of text\n'.repeat(200 + f)}needle ${rel}\n${'x\n'.repeat(50)}needle again\n`);
      const old = new Date(Date.now() - 3_600_000);
      utimesSync(abs, old, old);
      files.push(rel);
    }
  }
  return { root, files };
}

describe('grep reads candidates\' keys during the search, each after rg is done with the file', () => {
  it('every key is read after its file\'s block of output ended, and most before rg exits', async () => {
    const { root, files } = tree();
    const redactor = new SecretRedactor({ env: {} });
    const grep = async () => {
      const ctx = { ...makeContext(root), redact: (t: string) => redactor.redact(t), unchangedByRedaction: redactor.unchangedFiles };
      return (await grepTool.execute({ pattern: 'needle', output_mode: 'content', head_limit: 0 }, ctx)).output;
    };
    const first = await grep();
    log.length = 0;
    const second = await grep();
    expect(second).toBe(first);
    expect(second.split('\n').length).toBe(files.length * 2);

    const stats = log.map((e, i) => ({ ...e, i })).filter((e) => e.kind === 'stat');
    const exitAt = log.findIndex((e) => e.kind === 'exit');
    expect(exitAt).toBeGreaterThan(0);
    for (const s of stats) {
      const rel = s.text.slice(root.length + 1);
      // What rg had printed when the key was read: the file's block, then another file's line (or rg had exited).
      const printed = log.slice(0, s.i).filter((e) => e.kind === 'out').map((e) => e.text).join('');
      const lines = printed.split('\n');
      const last = lines.map((l) => l.split('\u0000')[0]).lastIndexOf(rel);
      expect(last, `${rel}: key read before rg printed the file`).toBeGreaterThanOrEqual(0);
      const movedOn = lines.slice(last + 1).some((l) => l.includes('\u0000') && l.split('\u0000')[0] !== rel);
      expect(movedOn || s.i > exitAt, `${rel}: key read while rg's output was still in the file's block`).toBe(true);
    }
    // Each candidate's key is read once in a repeated search (the memo vouches for all of them).
    expect(stats.map((s) => s.text).sort()).toEqual(files.map((f) => join(root, f)).sort());
    // The point of it: the keys are read beside rg, not after it (all but the last block's before rg exits).
    expect(stats.filter((s) => s.i < exitAt).length).toBeGreaterThanOrEqual(files.length - 1);
  });

  it('files_with_matches: every key is read after rg printed the path', async () => {
    const { root, files } = tree();
    const redactor = new SecretRedactor({ env: {} });
    const grep = async () => {
      const ctx = { ...makeContext(root), redact: (t: string) => redactor.redact(t), unchangedByRedaction: redactor.unchangedFiles };
      return (await grepTool.execute({ pattern: 'needle', head_limit: 0 }, ctx)).output;
    };
    const first = await grep();
    log.length = 0;
    const second = await grep();
    expect(second).toBe(first);
    expect(second.split('\n').sort()).toEqual([...files].sort());
    const stats = log.map((e, i) => ({ ...e, i })).filter((e) => e.kind === 'stat');
    const exitAt = log.findIndex((e) => e.kind === 'exit');
    for (const x of stats) {
      const rel = x.text.slice(root.length + 1);
      const printed = log.slice(0, x.i).filter((e) => e.kind === 'out').flatMap((e) => e.text.split('\n'));
      expect(printed, `${rel}: key read before rg printed the path`).toContain(rel);
    }
    expect(stats.map((x) => x.text).sort()).toEqual(files.map((f) => join(root, f)).sort());
    expect(stats.filter((x) => x.i < exitAt).length).toBe(files.length);
  });

  it('a key that cannot be read in rg\'s output handler is left to the sifting, not thrown there', () => {
    const root = tempDir('deskhand-searched-keys-');
    writeFileSync(join(root, 'file.txt'), 'x\n');
    const keys = new SearchedKeys(root);
    // A path through a file: ENOTDIR, which `throwIfNoEntry: false` does not cover.
    expect(() => keys.read('file.txt/inside')).not.toThrow();
    expect(keys.get('file.txt/inside')).toBeUndefined();
    keys.read('gone.txt');
    expect(keys.get('gone.txt')).toBeNull();
    keys.read('file.txt');
    expect(keys.get('file.txt')).toMatchObject({ abs: join(root, 'file.txt') });
  });
});
