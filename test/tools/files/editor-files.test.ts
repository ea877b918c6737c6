/**
 * File tools with an editor serving the conversation's files (runtime/tool.ts EditorFiles, `deskhand acp` with a
 * client offering fs/*): reads come from its buffers when they differ from the disk, writes go through it, and the
 * read-before-write rule holds against the buffer (a change made in the editor after the read is caught).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EditorFiles } from '../../../src/main/runtime/tool';
import { editFileTool } from '../../../src/main/tools/files/edit-file';
import { readFileTool } from '../../../src/main/tools/files/read-file';
import { writeFileTool } from '../../../src/main/tools/files/write-file';
import { makeContext, tempDir } from '../../support/tool-context';

function world(opts: { read?: boolean; write?: boolean; failReads?: boolean; saves?: boolean } = { read: true, write: true }) {
  const dir = tempDir();
  const buffers = new Map<string, string>();
  const writes: { path: string; content: string }[] = [];
  const editor: EditorFiles = { name: 'the editor (test)' };
  if (opts.read) {
    editor.readText = async (path) => {
      if (opts.failReads) throw new Error('editor crashed');
      return buffers.get(path) ?? readFileSync(path, 'utf8');
    };
  }
  if (opts.write) {
    editor.writeText = async (path, content) => {
      writes.push({ path, content });
      buffers.set(path, content);
      // An editor that saves what it is sent (as Zed does), or one that keeps it in the buffer.
      if (opts.saves) {
        mkdirSync(join(path, '..'), { recursive: true });
        writeFileSync(path, content);
      }
    };
  }
  const ctx = { ...makeContext(dir), editor };
  return {
    dir,
    buffers,
    writes,
    read: (path: string) => readFileTool.execute({ path }, ctx).then((r) => r.output),
    write: (a: Parameters<typeof writeFileTool.execute>[0]) => writeFileTool.execute(a, ctx).then((r) => r.output),
    edit: (a: Parameters<typeof editFileTool.execute>[0]) => editFileTool.execute(a, ctx).then((r) => r.output),
  };
}

describe('file tools through the editor', () => {
  it('read_file shows the unsaved buffer and says so; a buffer equal to the disk reads as the disk', async () => {
    const w = world();
    writeFileSync(join(w.dir, 'a.txt'), 'on disk\n');
    expect(await w.read('a.txt')).not.toMatch(/unsaved buffer/);
    w.buffers.set(join(w.dir, 'a.txt'), 'in the buffer\nsecond\n');
    const out = await w.read('a.txt');
    expect(out).toMatch(/1\s*\|?.*in the buffer/);
    expect(out).toContain('second');
    expect(out).not.toMatch(/\ton disk/);
    expect(out).toMatch(/Read from the unsaved buffer in the editor \(test\): it differs from the file on disk\./);
  });

  it('edit_file edits the buffer and writes through the editor, leaving the disk to the editor', async () => {
    const w = world();
    writeFileSync(join(w.dir, 'a.txt'), 'on disk\n');
    w.buffers.set(join(w.dir, 'a.txt'), 'alpha\nbeta\n');
    await w.read('a.txt');
    expect(await w.edit({ path: 'a.txt', old_string: 'beta', new_string: 'BETA' })).toMatch(/Edited a\.txt/);
    expect(w.writes).toEqual([{ path: join(w.dir, 'a.txt'), content: 'alpha\nBETA\n' }]);
    expect(readFileSync(join(w.dir, 'a.txt'), 'utf8')).toBe('on disk\n');
    // The conversation's own write is no change it has not seen: the next edit goes through without a read.
    await w.edit({ path: 'a.txt', old_string: 'alpha', new_string: 'ALPHA' });
    expect(w.writes.at(-1)!.content).toBe('ALPHA\nBETA\n');
  });

  it('a change typed in the editor after the read stops the write: nothing is written', async () => {
    const w = world();
    writeFileSync(join(w.dir, 'a.txt'), 'x\n');
    w.buffers.set(join(w.dir, 'a.txt'), 'first\n');
    await w.read('a.txt');
    w.buffers.set(join(w.dir, 'a.txt'), 'first\nthe person typed this\n');
    await expect(w.edit({ path: 'a.txt', old_string: 'first', new_string: 'FIRST' })).rejects.toThrow(/changed since you last read it \(in the editor or on disk\)/);
    await expect(w.write({ path: 'a.txt', content: 'overwritten' })).rejects.toThrow(/changed since you last read it/);
    expect(w.writes).toEqual([]);
  });

  it('write_file creates, overwrites and appends through the editor', async () => {
    const w = world({ read: true, write: true, saves: true });
    expect(await w.write({ path: 'sub/new.txt', content: 'one\n' })).toMatch(/Created sub\/new\.txt through the editor \(test\)/);
    expect(await w.write({ path: 'sub/new.txt', content: 'two\n', mode: 'append' })).toMatch(/Appended to/);
    expect(w.writes.map((x) => x.content)).toEqual(['one\n', 'one\ntwo\n']);
  });

  it('an editor that fails to answer a read is not trusted to have the file: the disk is read', async () => {
    const w = world({ read: true, write: false, failReads: true });
    writeFileSync(join(w.dir, 'a.txt'), 'on disk\n');
    expect(await w.read('a.txt')).toContain('on disk');
    // Without the write capability, writes go to the disk as always.
    await w.write({ path: 'a.txt', content: 'new\n' });
    expect(readFileSync(join(w.dir, 'a.txt'), 'utf8')).toBe('new\n');
  });
});
