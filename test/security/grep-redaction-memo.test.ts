/**
 * grep's redacted matching remembers the files redaction left unchanged (grep-redacted.ts, `UnchangedFiles` on the
 * redactor), so a repeated search does not read and redact every candidate again. What must hold: a remembered file is
 * not read (the redactor never sees its text again), a secret the redactor gains afterwards is hidden from the next
 * search all the same, a file rewritten since is read again, and a file written within the last two seconds is never
 * remembered (a write in the same clock tick could keep its times).
 */
import { utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { grepTool } from '../../src/main/tools/files/grep';
import { unchangedTuning } from '../../src/main/tools/files/grep-redacted';
import { makeContext, tempDir } from '../support/tool-context';

type GrepArgs = Parameters<typeof grepTool.execute>[0];
const UNSEEN = 'UNSEEN-MARKER-LINE';
const DEFAULT_RACY = unchangedTuning.racyMs;

afterEach(() => {
  unchangedTuning.racyMs = DEFAULT_RACY;
});

/** A grep whose redactor records every text it is given. */
function searcher(root: string, redactor = new SecretRedactor({ env: {} })) {
  const texts: string[] = [];
  const grep = async (a: GrepArgs): Promise<string> => {
    const ctx = { ...makeContext(root), unchangedByRedaction: redactor.unchangedFiles };
    ctx.redact = (text) => {
      texts.push(text);
      return redactor.redact(text);
    };
    return (await grepTool.execute(a, ctx)).output;
  };
  /** How many times a whole file (its line that never matches) went through the redactor. */
  const fileReads = () => texts.filter((t) => t.includes(UNSEEN)).length;
  return { grep, fileReads, redactor };
}

/** A file whose times are an hour old (written, then dated back; its change time is now, so the window decides). */
function put(root: string, name: string, text: string): string {
  const abs = join(root, name);
  writeFileSync(abs, text);
  const old = new Date(Date.now() - 3_600_000);
  utimesSync(abs, old, old);
  return abs;
}

describe('grep remembers files redaction left unchanged', () => {
  it('a remembered file is not read again; the answer is the same', async () => {
    unchangedTuning.racyMs = 0;
    const root = tempDir('deskhand-grep-memo-');
    put(root, 'a.txt', `needle one\n${UNSEEN}\n`);
    put(root, 'b.txt', `needle two\n${UNSEEN}\n`);
    const s = searcher(root);
    const first = await s.grep({ pattern: 'needle', output_mode: 'content' });
    expect(first).toContain('a.txt:1:needle one');
    expect(first).toContain('b.txt:1:needle two');
    expect(s.fileReads()).toBe(2);
    const second = await s.grep({ pattern: 'needle', output_mode: 'content' });
    expect(second).toBe(first);
    expect(s.fileReads()).toBe(2);
  });

  it('a secret the redactor gains after a clean search is hidden from the next one, in every mode', async () => {
    unchangedTuning.racyMs = 0;
    const root = tempDir('deskhand-grep-memo-');
    const token = 'tok-Q7x2-late-secret-value';
    put(root, 'conf.txt', `value = ${token}\n${UNSEEN}\n`);
    const s = searcher(root);
    expect(await s.grep({ pattern: 'late-secret', output_mode: 'content' })).toContain(token);
    expect(s.fileReads()).toBe(1);
    s.redactor.addSecret('LATE_TOKEN', token);
    const content = await s.grep({ pattern: 'value', output_mode: 'content' });
    expect(content).toBe('conf.txt:1:value = [redacted:LATE_TOKEN]');
    expect(s.fileReads()).toBe(2);
    expect(await s.grep({ pattern: 'late-secret' })).toMatch(/^No matches/);
    expect(await s.grep({ pattern: 'late-secret', output_mode: 'count_matches' })).toMatch(/^No matches/);
  });

  it('a file rewritten since is read again, and what it holds now is redacted', async () => {
    unchangedTuning.racyMs = 0;
    const root = tempDir('deskhand-grep-memo-');
    const abs = put(root, 'c.txt', `needle here\n${UNSEEN}\n`);
    const s = searcher(root);
    await s.grep({ pattern: 'needle', output_mode: 'content' });
    const gh = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
    writeFileSync(abs, `needle ${gh}\n${UNSEEN}\n`);
    const again = await s.grep({ pattern: 'needle', output_mode: 'content' });
    expect(s.fileReads()).toBe(2);
    expect(again).not.toContain(gh);
    expect(again).toMatch(/^c\.txt:1:needle \[redacted:[^\]]+\]$/);
  });

  it('a rewrite of the same size whose modification time differs by a millisecond is read again', async () => {
    // The key holds the times as whole microseconds (issue 54, fifth round), not nanoseconds: a millisecond apart is
    // far above its step. The change time moves too (to now): with the window at 0 only the key tells them apart.
    unchangedTuning.racyMs = 0;
    const root = tempDir('deskhand-grep-memo-');
    const abs = put(root, 'e.txt', `needle aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n${UNSEEN}\n`);
    const s = searcher(root);
    expect(await s.grep({ pattern: 'needle', output_mode: 'content' })).toContain('aaaa');
    expect(s.fileReads()).toBe(1);
    const gh = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
    writeFileSync(abs, `needle ${gh}\n${UNSEEN}\n`);
    const old = new Date(Date.now() - 3_600_000 + 1);
    utimesSync(abs, old, old);
    const again = await s.grep({ pattern: 'needle', output_mode: 'content' });
    expect(s.fileReads()).toBe(2);
    expect(again).not.toContain(gh);
    expect(again).toMatch(/^e\.txt:1:needle \[redacted:[^\]]+\]$/);
  });

  it('a file whose times are within the last two seconds is read at every search', async () => {
    const root = tempDir('deskhand-grep-memo-');
    writeFileSync(join(root, 'd.txt'), `needle now\n${UNSEEN}\n`);
    const s = searcher(root);
    await s.grep({ pattern: 'needle', output_mode: 'content' });
    await s.grep({ pattern: 'needle', output_mode: 'content' });
    expect(s.fileReads()).toBe(2);
  });
});
