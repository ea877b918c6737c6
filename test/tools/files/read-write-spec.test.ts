/**
 * read_file, write_file and edit_file against the letter of the specs: Spec I's sinceByte following and edit snapshot,
 * line numbers that do not depend on the file's size, content-hash staleness, and writes that may not drop a secret.
 */
import { appendFileSync, readFileSync, renameSync, statSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../../src/main/runtime/context/redaction';
import { editFileTool } from '../../../src/main/tools/files/edit-file';
import { readFileTool } from '../../../src/main/tools/files/read-file';
import { createWriteFile } from '../../../src/main/tools/files/write-file';
import { makeContext, tempDir } from '../../support/tool-context';
import { builtinTool } from '../../support/tools';

type ReadArgs = Parameters<typeof readFileTool.execute>[0];

function numbersOf(output: string): number[] {
  return output
    .split('\n')
    .map((l) => /^\s*(-?\d+)\t/.exec(l)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number);
}

const snapshotIn = (output: string): string => /\[snapshot: ([A-Za-z0-9_-]{16})\]$/.exec(output)?.[1] ?? '';
const field = (output: string, name: string): number => Number(new RegExp(`${name}: (\\d+)`).exec(output)?.[1]);

describe('read_file since_byte (Spec I sinceByte)', () => {
  const dir = tempDir();
  const ctx = makeContext(dir);
  const read = (args: ReadArgs) => readFileTool.execute(readFileTool.params.parse(args), ctx).then((r) => r.output);

  it('returns what was appended since next_byte, with next_byte and inode for the next read', async () => {
    const log = join(dir, 'app.log');
    writeFileSync(log, 'one\ntwo\n');
    const first = await read({ path: 'app.log', since_byte: 0 });
    expect(first.startsWith('one\ntwo\n')).toBe(true);
    expect(field(first, 'next_byte')).toBe(8);
    expect(field(first, 'inode')).toBe(statSync(log).ino);
    appendFileSync(log, 'three\n');
    const second = await read({ path: 'app.log', since_byte: 8, inode: statSync(log).ino });
    expect(second.startsWith('three\n[')).toBe(true);
    expect(field(second, 'next_byte')).toBe(14);
    const none = await read({ path: 'app.log', since_byte: 14 });
    expect(none).toMatch(/no new content after byte 14/);
    expect(field(none, 'next_byte')).toBe(14);
  });

  it('restarts at byte 0 after truncation or rotation, and says so', async () => {
    const log = join(dir, 'rot.log');
    writeFileSync(log, 'old line 1\nold line 2\n');
    const ino = statSync(log).ino;
    truncateSync(log, 0);
    writeFileSync(log, 'new\n');
    const truncated = await read({ path: 'rot.log', since_byte: 22, inode: ino });
    expect(truncated.startsWith('new\n')).toBe(true);
    expect(truncated).toMatch(/truncated/);
    writeFileSync(join(dir, 'rot.log.next'), 'rotated\n');
    renameSync(join(dir, 'rot.log.next'), log);
    const rotated = await read({ path: 'rot.log', since_byte: 4, inode: ino });
    expect(rotated.startsWith('rotated\n')).toBe(true);
    expect(rotated).toMatch(/rotated/);
    expect(field(rotated, 'inode')).toBe(statSync(log).ino);
  });

  it('caps a read at 100 KB, ending at a line break, and continues exactly', async () => {
    const row = (i: number) => `${String(i).padStart(6, '0')} ${'y'.repeat(93)}\n`; // 101 bytes
    writeFileSync(join(dir, 'big.log'), Array.from({ length: 2000 }, (_, i) => row(i)).join(''));
    const first = await read({ path: 'big.log', since_byte: 0 });
    const next = field(first, 'next_byte');
    expect(next).toBeLessThanOrEqual(100 * 1024);
    expect(next % 101).toBe(0);
    expect(first).toContain(`since_byte=${next}`);
    const second = await read({ path: 'big.log', since_byte: next });
    expect(second.startsWith(row(next / 101))).toBe(true);
  });

  it('cannot combine a nonzero since_byte with line_offset or n_lines, and records no snapshot', async () => {
    writeFileSync(join(dir, 'mix.log'), 'a\nb\n');
    await expect(read({ path: 'mix.log', since_byte: 2, n_lines: 1 })).rejects.toThrow(/cannot be combined/);
    const c = makeContext(dir);
    const out = (await readFileTool.execute({ path: 'mix.log', since_byte: 0 }, c)).output;
    expect(out).not.toMatch(/snapshot/);
    expect(c.state.getFileSnapshot(join(dir, 'mix.log'))).toBeUndefined();
  });
});

describe('read_file edit snapshot (Spec I)', () => {
  it('ends every text read with the snapshot, the same for any line range of an unchanged file', async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    writeFileSync(join(dir, 'a.txt'), 'one\ntwo\nthree\n');
    const whole = snapshotIn((await readFileTool.execute({ path: 'a.txt' }, ctx)).output);
    const part = snapshotIn((await readFileTool.execute({ path: 'a.txt', line_offset: 2, n_lines: 1 }, ctx)).output);
    expect(whole).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(part).toBe(whole);
  });

  it('edit_file accepts the snapshot while the file is unchanged and refuses a stale one before proposing', async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    const abs = join(dir, 'conf.txt');
    writeFileSync(abs, 'mode = fast\nlevel = 1\n');
    const snap = snapshotIn((await readFileTool.execute({ path: 'conf.txt', line_offset: 2 }, ctx)).output);
    const edited = await editFileTool.execute({ path: 'conf.txt', old_string: 'level = 1', new_string: 'level = 2', snapshot: snap }, ctx);
    expect(readFileSync(abs, 'utf8')).toBe('mode = fast\nlevel = 2\n');
    // The old snapshot is stale now; the edit's own result carries the new one.
    await expect(editFileTool.pair!.propose({ path: 'conf.txt', old_string: 'fast', new_string: 'slow', snapshot: snap }, ctx)).rejects.toMatchObject({ code: 'stale_file' });
    await expect(editFileTool.execute({ path: 'conf.txt', old_string: 'fast', new_string: 'slow', snapshot: snap }, ctx)).rejects.toThrow(/changed on disk since the read/);
    expect(readFileSync(abs, 'utf8')).toBe('mode = fast\nlevel = 2\n');
    await editFileTool.execute({ path: 'conf.txt', old_string: 'fast', new_string: 'slow', snapshot: snapshotIn(edited.output) }, ctx);
    expect(readFileSync(abs, 'utf8')).toBe('mode = slow\nlevel = 2\n');
  });
});

describe('read_file line numbers do not depend on the file size', () => {
  it('a file over 1 MB read from the end numbers its lines as a forward read does', async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    const n = 40_000; // ~1.3 MB
    writeFileSync(join(dir, 'big.txt'), Array.from({ length: n }, (_, i) => `row ${i + 1} ${'.'.repeat(24)}`).join('\n') + '\n');
    expect(statSync(join(dir, 'big.txt')).size).toBeGreaterThan(1024 * 1024);
    const tail = (await readFileTool.execute({ path: 'big.txt', line_offset: -3 }, ctx)).output;
    expect(numbersOf(tail)).toEqual([n - 2, n - 1, n]);
    expect(tail).toContain(`${n}\trow ${n} `);
    const forward = (await readFileTool.execute({ path: 'big.txt', line_offset: n - 2 }, ctx)).output;
    expect(numbersOf(forward)).toEqual([n - 2, n - 1, n]);
  });
});

describe('staleness by content hash', () => {
  it('notices a same-size rewrite that kept the inode and the modification time', async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    const abs = join(dir, 'same.txt');
    const tick = 1_700_000_000;
    writeFileSync(abs, 'value = 1111\n');
    utimesSync(abs, tick, tick);
    await readFileTool.execute({ path: 'same.txt' }, ctx);
    const before = statSync(abs);
    writeFileSync(abs, 'value = 2222\n'); // same inode, same size
    utimesSync(abs, tick, tick); // within one mtime tick, as far as a stat can tell
    const after = statSync(abs);
    expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
    await expect(editFileTool.execute({ path: 'same.txt', old_string: '2222', new_string: '3333' }, ctx)).rejects.toThrow(/content changed/);
    const write = builtinTool('write_file', { dataDir: tempDir('deskhand-data-') });
    await expect(write.execute({ path: 'same.txt', content: 'value = 4444\n' }, ctx)).rejects.toMatchObject({ code: 'stale_file' });
    expect(readFileSync(abs, 'utf8')).toBe('value = 2222\n');
  });
});

describe('write_file keeps lines holding secrets (Spec I)', () => {
  const env = `APP_NAME=demo\nAPI_TOKEN=tok_9f8e7d6c5b4a3f2e1d0c\nDEBUG=true\n`;

  it('refuses an overwrite that drops a secret line, before proposing, and writes nothing', async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    const abs = join(dir, 'app.env');
    writeFileSync(abs, env);
    await readFileTool.execute({ path: 'app.env' }, ctx);
    const write = builtinTool('write_file', { dataDir: tempDir('deskhand-data-') });
    const args = { path: 'app.env', content: 'APP_NAME=demo\nAPI_TOKEN=[redacted:API_TOKEN]\nDEBUG=false\n' };
    await expect(write.pair!.propose(args, ctx)).rejects.toThrow(/drop 1 line holding a secret: line 2 \(API_TOKEN\).*edit_file/);
    await expect(write.execute(args, ctx)).rejects.toThrow(/drop 1 line/);
    expect(readFileSync(abs, 'utf8')).toBe(env);
  });

  it('allows overwrites that keep every secret line, appends, and edits around the secret', async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    const abs = join(dir, 'app.env');
    writeFileSync(abs, env);
    await readFileTool.execute({ path: 'app.env' }, ctx);
    const write = createWriteFile(new SecretRedactor({ env: {} }));
    await write.execute({ path: 'app.env', content: 'API_TOKEN=tok_9f8e7d6c5b4a3f2e1d0c\nAPP_NAME=demo2\n' }, ctx);
    await write.execute({ path: 'app.env', content: 'DEBUG=true\n', mode: 'append' }, ctx);
    await editFileTool.execute({ path: 'app.env', old_string: 'demo2', new_string: 'demo3' }, ctx);
    expect(readFileSync(abs, 'utf8')).toBe('API_TOKEN=tok_9f8e7d6c5b4a3f2e1d0c\nAPP_NAME=demo3\nDEBUG=true\n');
  });

  it('knows the secrets the run holds, not only their shapes', async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    writeFileSync(join(dir, 'notes.txt'), 'plain\nthe door code is 48151623\n');
    await readFileTool.execute({ path: 'notes.txt' }, ctx);
    const redactor = new SecretRedactor({ env: {}, secrets: { DOOR: '48151623' } });
    const write = builtinTool('write_file', { dataDir: tempDir('deskhand-data-'), redactor });
    await expect(write.execute({ path: 'notes.txt', content: 'plain\n' }, ctx)).rejects.toThrow(/line 2 \(DOOR\)/);
  });
});
