import { chmodSync, linkSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { editFileTool } from '../../../src/main/tools/files/edit-file';
import { readFileTool } from '../../../src/main/tools/files/read-file';
import { writeFileTool } from '../../../src/main/tools/files/write-file';
import { makeContext, tempDir, type TestContext } from '../../support/tool-context';

type WriteArgs = Parameters<typeof writeFileTool.execute>[0];
type EditArgs = Parameters<typeof editFileTool.execute>[0];

function setup(): { dir: string; ctx: TestContext; read: (p: string) => Promise<string>; write: (a: WriteArgs) => Promise<string>; edit: (a: EditArgs) => Promise<string> } {
  const dir = tempDir();
  const ctx = makeContext(dir);
  return {
    dir,
    ctx,
    read: (path) => readFileTool.execute({ path }, ctx).then((r) => r.output),
    write: (a) => writeFileTool.execute(a, ctx).then((r) => r.output),
    edit: (a) => editFileTool.execute(a, ctx).then((r) => r.output),
  };
}

/** Changes a file behind the tools' back in a way the snapshot must notice (content and mtime). */
function tamper(path: string, content: string): void {
  writeFileSync(path, content);
  const future = new Date(Date.now() + 5000);
  utimesSync(path, future, future);
}

describe('write_file', () => {
  it('creates a new file without a prior read, creating parents, and records a snapshot', async () => {
    const { dir, ctx, write } = setup();
    const out = await write({ path: 'a/b/new.txt', content: 'hello\nworld\n' });
    expect(out).toMatch(/Created a\/b\/new\.txt: 2 lines/);
    const abs = join(dir, 'a/b/new.txt');
    expect(readFileSync(abs, 'utf8')).toBe('hello\nworld\n');
    const st = statSync(abs);
    expect(ctx.state.getFileSnapshot(abs)).toMatchObject({ path: abs, mtimeMs: st.mtimeMs, size: st.size, ino: st.ino });
    // The recorded snapshot lets the conversation overwrite its own file without reading again.
    await write({ path: 'a/b/new.txt', content: 'again\n' });
    expect(readFileSync(abs, 'utf8')).toBe('again\n');
  });

  it('refuses to replace an existing file that was not read', async () => {
    const { dir, write } = setup();
    writeFileSync(join(dir, 'x.txt'), 'original\n');
    await expect(write({ path: 'x.txt', content: 'new' })).rejects.toMatchObject({ code: 'stale_file' });
    await expect(write({ path: 'x.txt', content: 'new' })).rejects.toThrow(/read_file first/);
    await expect(write({ path: 'x.txt', content: 'new', mode: 'append' })).rejects.toThrow(/read_file first/);
    expect(readFileSync(join(dir, 'x.txt'), 'utf8')).toBe('original\n');
  });

  it('refuses when the file changed on disk since the read, in propose and in execute', async () => {
    const { dir, ctx, read, write } = setup();
    const abs = join(dir, 'x.txt');
    writeFileSync(abs, 'original\n');
    await read('x.txt');
    tamper(abs, 'changed by someone else\n');
    await expect(writeFileTool.pair!.propose({ path: 'x.txt', content: 'mine' }, ctx)).rejects.toMatchObject({ code: 'stale_file' });
    await expect(write({ path: 'x.txt', content: 'mine' })).rejects.toThrow(/changed on disk since you last read it/);
    expect(readFileSync(abs, 'utf8')).toBe('changed by someone else\n');
    // Reading again clears the way.
    await read('x.txt');
    await write({ path: 'x.txt', content: 'mine\n' });
    expect(readFileSync(abs, 'utf8')).toBe('mine\n');
  });

  it('re-checks freshness at execute time even after a clean propose', async () => {
    const { dir, ctx, read, write } = setup();
    const abs = join(dir, 'x.txt');
    writeFileSync(abs, 'v1\n');
    await read('x.txt');
    const proposal = await writeFileTool.pair!.propose({ path: 'x.txt', content: 'v2\n' }, ctx);
    expect(proposal.preview).toContain('-v1');
    tamper(abs, 'v1 plus more\n');
    await expect(write({ path: 'x.txt', content: 'v2\n' })).rejects.toMatchObject({ code: 'stale_file' });
  });

  it('notices a file replaced by another file of the same size (inode changes)', async () => {
    const { dir, read, write } = setup();
    const abs = join(dir, 'x.txt');
    writeFileSync(abs, 'aaaa\n');
    await read('x.txt');
    const before = statSync(abs);
    writeFileSync(join(dir, 'other.txt'), 'bbbb\n');
    const { renameSync } = await import('node:fs');
    renameSync(join(dir, 'other.txt'), abs);
    utimesSync(abs, before.atime, before.mtime);
    await expect(write({ path: 'x.txt', content: 'z' })).rejects.toThrow(/replaced by another file|modified|size/);
  });

  it('proposes a unified diff with file headers; new files diff against /dev/null', async () => {
    const { dir, ctx, read } = setup();
    const created = await writeFileTool.pair!.propose({ path: 'n.txt', content: 'one\ntwo\n' }, ctx);
    expect(created.description).toMatch(/^Create n\.txt \(2 lines/);
    expect(created.preview).toContain('--- /dev/null');
    expect(created.preview).toContain('+++ b/n.txt');
    expect(created.preview).toContain('+one');
    writeFileSync(join(dir, 'e.txt'), 'keep\nold\nkeep2\n');
    await read('e.txt');
    const over = await writeFileTool.pair!.propose({ path: 'e.txt', content: 'keep\nnew\nkeep2\n' }, ctx);
    expect(over.description).toMatch(/^Overwrite e\.txt/);
    expect(over.preview).toMatch(/--- a\/e\.txt\n\+\+\+ b\/e\.txt\n@@ -1,3 \+1,3 @@\n keep\n-old\n\+new\n keep2/);
    // Proposing writes nothing.
    expect(readFileSync(join(dir, 'e.txt'), 'utf8')).toBe('keep\nold\nkeep2\n');
  });

  it('appends without adding a newline', async () => {
    const { dir, ctx, read, write } = setup();
    writeFileSync(join(dir, 'log.txt'), 'a\n');
    await read('log.txt');
    const p = await writeFileTool.pair!.propose({ path: 'log.txt', content: 'b', mode: 'append' }, ctx);
    expect(p.description).toMatch(/^Append/);
    expect(p.preview).toContain('+b');
    await write({ path: 'log.txt', content: 'b', mode: 'append' });
    await write({ path: 'log.txt', content: 'c\n', mode: 'append' });
    expect(readFileSync(join(dir, 'log.txt'), 'utf8')).toBe('a\nbc\n');
  });

  it('writes atomically: new inode, same permissions, no temp files left', async () => {
    const { dir, read, write } = setup();
    const abs = join(dir, 'script.sh');
    writeFileSync(abs, '#!/bin/sh\necho old\n');
    chmodSync(abs, 0o750);
    const before = statSync(abs);
    await read('script.sh');
    await write({ path: 'script.sh', content: '#!/bin/sh\necho new\n' });
    const after = statSync(abs);
    expect(after.mode & 0o7777).toBe(0o750);
    expect(after.ino).not.toBe(before.ino); // replaced by rename, not rewritten in place
    expect(readFileSync(abs, 'utf8')).toContain('echo new');
    expect(readdirSync(dir).filter((n) => n.includes('deskhand-tmp'))).toEqual([]);
  });

  it('refuses to write through a symbolic link and names the target', async () => {
    const { dir, read, write } = setup();
    writeFileSync(join(dir, 'real.txt'), 'real\n');
    symlinkSync(join(dir, 'real.txt'), join(dir, 'link.txt'));
    await read('link.txt');
    await expect(write({ path: 'link.txt', content: 'x' })).rejects.toThrow(/symbolic link to .*real\.txt.*write .*target/s);
    expect(readFileSync(join(dir, 'real.txt'), 'utf8')).toBe('real\n');
    // A dangling link is refused too, rather than creating the target behind it.
    symlinkSync(join(dir, 'missing.txt'), join(dir, 'dangling.txt'));
    await expect(write({ path: 'dangling.txt', content: 'x' })).rejects.toThrow(/symbolic link/);
  });

  it('refuses files with other hard links', async () => {
    const { dir, read, write } = setup();
    writeFileSync(join(dir, 'one.txt'), 'shared\n');
    linkSync(join(dir, 'one.txt'), join(dir, 'two.txt'));
    await read('one.txt');
    await expect(write({ path: 'one.txt', content: 'x' })).rejects.toThrow(/2 hard links/);
    expect(readFileSync(join(dir, 'two.txt'), 'utf8')).toBe('shared\n');
  });

  it('refuses folders', async () => {
    const { write } = setup();
    await write({ path: 'd/f.txt', content: '' });
    await expect(write({ path: 'd', content: 'x' })).rejects.toThrow(/is a folder/);
  });

  it('declares its risk, pair and disclosure', () => {
    expect(writeFileTool.risk).toBe('high-risk');
    expect(writeFileTool.pair?.executeName).toBe('execute_write_file');
    expect(writeFileTool.disclosure).toBe('public');
  });
});

describe('edit_file', () => {
  it('replaces a unique match, keeps permissions, records a snapshot so the next edit works', async () => {
    const { dir, ctx, read, edit } = setup();
    const abs = join(dir, 'app.ts');
    writeFileSync(abs, 'const a = 1;\nconst b = 2;\n');
    chmodSync(abs, 0o600);
    await read('app.ts');
    const out = await edit({ path: 'app.ts', old_string: 'const b = 2;', new_string: 'const b = 3;' });
    expect(out).toMatch(/Edited app\.ts: replaced 1 occurrence at line 2/);
    expect(out).toContain('     2\tconst b = 3;');
    expect(readFileSync(abs, 'utf8')).toBe('const a = 1;\nconst b = 3;\n');
    expect(statSync(abs).mode & 0o777).toBe(0o600);
    const st = statSync(abs);
    expect(ctx.state.getFileSnapshot(abs)).toMatchObject({ size: st.size, ino: st.ino, mtimeMs: st.mtimeMs });
    await edit({ path: 'app.ts', old_string: 'const a = 1;', new_string: 'const a = 10;' });
    expect(readFileSync(abs, 'utf8')).toBe('const a = 10;\nconst b = 3;\n');
  });

  it('requires a prior read and refuses stale files', async () => {
    const { dir, ctx, read, edit } = setup();
    const abs = join(dir, 'f.txt');
    writeFileSync(abs, 'hello\n');
    await expect(edit({ path: 'f.txt', old_string: 'hello', new_string: 'bye' })).rejects.toMatchObject({ code: 'stale_file' });
    await read('f.txt');
    tamper(abs, 'hello world\n');
    await expect(editFileTool.pair!.propose({ path: 'f.txt', old_string: 'hello', new_string: 'bye' }, ctx)).rejects.toThrow(/changed on disk/);
    await expect(edit({ path: 'f.txt', old_string: 'hello', new_string: 'bye' })).rejects.toThrow(/changed on disk/);
    expect(readFileSync(abs, 'utf8')).toBe('hello world\n');
  });

  it('rejects ambiguous matches with the count and lines, unless replace_all', async () => {
    const { dir, read, edit } = setup();
    writeFileSync(join(dir, 'f.txt'), 'x = 1\ny = 2\nx = 1\nx = 1\n');
    await read('f.txt');
    await expect(edit({ path: 'f.txt', old_string: 'x = 1', new_string: 'x = 9' })).rejects.toThrow(/matches 3 places in f\.txt \(lines 1, 3, 4\).*replace_all/s);
    const out = await edit({ path: 'f.txt', old_string: 'x = 1', new_string: 'x = 9', replace_all: true });
    expect(out).toMatch(/replaced 3 occurrences/);
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe('x = 9\ny = 2\nx = 9\nx = 9\n');
  });

  it('explains a miss, pointing at a near match that differs in whitespace', async () => {
    const { dir, read, edit } = setup();
    writeFileSync(join(dir, 'f.py'), 'def f():\n    return 1\n');
    await read('f.py');
    await expect(edit({ path: 'f.py', old_string: 'def f():\n  return 1', new_string: 'x' })).rejects.toThrow(/not found.*line 1/s);
    await expect(edit({ path: 'f.py', old_string: 'nothing like it', new_string: 'x' })).rejects.toThrow(/not found.*read_file/s);
  });

  it('rejects identical strings and empty old_string', async () => {
    const { dir, read, edit } = setup();
    writeFileSync(join(dir, 'f.txt'), 'a\n');
    await read('f.txt');
    await expect(edit({ path: 'f.txt', old_string: 'a', new_string: 'a' })).rejects.toThrow(/identical/);
    await expect(edit({ path: 'f.txt', old_string: '', new_string: 'b' })).rejects.toThrow(/empty/);
  });

  it('treats $ patterns in new_string literally', async () => {
    const { dir, read, edit } = setup();
    writeFileSync(join(dir, 'f.txt'), 'price\n');
    await read('f.txt');
    await edit({ path: 'f.txt', old_string: 'price', new_string: "$& costs $1 and $$ and $'" });
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe("$& costs $1 and $$ and $'\n");
  });

  it('edits CRLF files with \\n in old_string and keeps CRLF', async () => {
    const { dir, read, edit } = setup();
    writeFileSync(join(dir, 'w.txt'), 'one\r\ntwo\r\nthree\r\n');
    await read('w.txt');
    await edit({ path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' });
    expect(readFileSync(join(dir, 'w.txt'), 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('proposes a diff and writes nothing until executed', async () => {
    const { dir, ctx, read } = setup();
    writeFileSync(join(dir, 'f.txt'), 'a\nb\nc\n');
    await read('f.txt');
    const p = await editFileTool.pair!.propose({ path: 'f.txt', old_string: 'b', new_string: 'B' }, ctx);
    expect(p.description).toBe('Edit f.txt: replace text at line 2');
    expect(p.preview).toBe('--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
    expect(readFileSync(join(dir, 'f.txt'), 'utf8')).toBe('a\nb\nc\n');
  });

  it('refuses symlinks, hard links and missing files', async () => {
    const { dir, read, edit } = setup();
    writeFileSync(join(dir, 'real.txt'), 'x\n');
    symlinkSync('real.txt', join(dir, 'link.txt'));
    await read('link.txt');
    await expect(edit({ path: 'link.txt', old_string: 'x', new_string: 'y' })).rejects.toThrow(/symbolic link/);
    linkSync(join(dir, 'real.txt'), join(dir, 'hard.txt'));
    await read('hard.txt');
    await expect(edit({ path: 'hard.txt', old_string: 'x', new_string: 'y' })).rejects.toThrow(/hard links/);
    await expect(edit({ path: 'none.txt', old_string: 'x', new_string: 'y' })).rejects.toThrow(/File not found: none\.txt.*write_file/);
    expect(readFileSync(join(dir, 'real.txt'), 'utf8')).toBe('x\n');
  });

  it('declares its risk, pair and disclosure', () => {
    expect(editFileTool.risk).toBe('high-risk');
    expect(editFileTool.pair?.executeName).toBe('execute_edit_file');
    expect(editFileTool.disclosure).toBe('private');
  });
});
