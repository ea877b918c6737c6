import { createHash } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_MAX_LINE_CHARS, readCounters, readFileTool, resetReadCounters } from '../../../src/main/tools/files/read-file';
import { makeContext, tempDir } from '../../support/tool-context';

function lines(n: number, make: (i: number) => string = (i) => `line ${i}`): string {
  return Array.from({ length: n }, (_, k) => make(k + 1)).join('\n') + '\n';
}

/** The output without its last line, the edit snapshot. */
function withoutSnapshot(output: string): string {
  return output.replace(/\n\[snapshot: [A-Za-z0-9_-]{16}\]$/, '');
}

/** The line numbers shown in read_file output (numbered lines only, notices skipped). */
function numbersOf(output: string): number[] {
  return output
    .split('\n')
    .map((l) => /^\s*(-?\d+)\t/.exec(l)?.[1])
    .filter((x): x is string => x !== undefined)
    .map(Number);
}

describe('read_file', () => {
  const dir = tempDir();
  const ctx = makeContext(dir);
  const read = (args: Parameters<typeof readFileTool.execute>[0]) => readFileTool.execute(args, ctx).then((r) => r.output);

  it('prints numbered lines like cat -n', async () => {
    writeFileSync(join(dir, 'small.txt'), 'alpha\nbeta\n');
    expect(withoutSnapshot(await read({ path: 'small.txt' }))).toBe('     1\talpha\n     2\tbeta');
  });

  it('reads a last line without a trailing newline, strips CR and a BOM', async () => {
    writeFileSync(join(dir, 'crlf.txt'), '\uFEFFone\r\ntwo\r\nthree');
    expect(withoutSnapshot(await read({ path: 'crlf.txt' }))).toBe('     1\tone\n     2\ttwo\n     3\tthree');
  });

  it('caps at 1000 lines and says which line_offset continues', async () => {
    writeFileSync(join(dir, 'long.txt'), lines(2500));
    const first = await read({ path: 'long.txt' });
    const nums = numbersOf(first);
    expect(nums.length).toBe(1000);
    expect(nums[0]).toBe(1);
    expect(nums.at(-1)).toBe(1000);
    expect(first).toContain('line_offset=1001');
    const second = await read({ path: 'long.txt', line_offset: 1001, n_lines: 5 });
    expect(numbersOf(second)).toEqual([1001, 1002, 1003, 1004, 1005]);
    expect(second).toContain('     1001\tline 1001'.slice(-15));
    expect(second).toContain('line_offset=1006');
  });

  it('n_lines above 1000 is capped with a notice', async () => {
    const out = await read({ path: 'long.txt', n_lines: 5000 });
    expect(numbersOf(out).length).toBe(1000);
    expect(out).toMatch(/capped at 1000/);
  });

  it('caps at 100 KB per call and continues exactly where it stopped', async () => {
    const row = (i: number) => `${String(i).padStart(5, '0')} ${'x'.repeat(294)}`; // ~300 bytes a line
    writeFileSync(join(dir, 'wide.txt'), lines(900, row));
    const out = await read({ path: 'wide.txt' });
    const nums = numbersOf(out);
    expect(nums.length).toBeGreaterThan(300);
    expect(nums.length).toBeLessThan(345);
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(100 * 1024 + 400);
    expect(out).toMatch(/100 KB/);
    const next = nums.at(-1)! + 1;
    expect(out).toContain(`line_offset=${next}`);
    const cont = await read({ path: 'wide.txt', line_offset: next, n_lines: 1 });
    expect(cont).toContain(row(next));
  });

  it('negative line_offset reads from the end with real line numbers in small files', async () => {
    const out = await read({ path: 'long.txt', line_offset: -20 });
    expect(numbersOf(out)).toEqual(Array.from({ length: 20 }, (_, i) => 2481 + i));
    expect(out).not.toMatch(/line_offset=/);
    const window = await read({ path: 'long.txt', line_offset: -10, n_lines: 3 });
    expect(numbersOf(window)).toEqual([2491, 2492, 2493]);
    expect(window).toContain('line_offset=2494');
  });

  it('a negative offset larger than the file starts at line 1', async () => {
    const out = await read({ path: 'small.txt', line_offset: -50 });
    expect(numbersOf(out)).toEqual([1, 2]);
    expect(out).toMatch(/only 2 lines/);
  });

  it('an offset past the end says how long the file is', async () => {
    const out = await read({ path: 'small.txt', line_offset: 10 });
    expect(out).toMatch(/has 2 lines/);
    expect(out).toMatch(/line_offset=-/);
  });

  it('cuts very long lines and says so', async () => {
    writeFileSync(join(dir, 'minified.js'), `${'a'.repeat(10_000)}\nshort\n`);
    const out = await read({ path: 'minified.js' });
    const first = out.split('\n')[0] as string;
    expect(first.length).toBeLessThan(READ_MAX_LINE_CHARS + 100);
    expect(first).toMatch(/line cut at/);
    expect(out).toContain('     2\tshort');
    expect(out).toMatch(/longer than 2000 characters/);
  });

  it('refuses binary files, images, videos and audio, naming read_media_file for media (by extension or by content)', async () => {
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([0x41, 0x00, 0x42, 0x0a]));
    await expect(read({ path: 'blob.bin' })).rejects.toThrow(/binary file.*use stat/);
    const cases: [string, string | Buffer, RegExp][] = [
      ['photo.png', 'not really a png', /photo\.png is an image .*text only\. Use read_media_file with path "photo\.png" to see it/],
      ['PHOTO.JPEG', 'x', /is an image .*read_media_file with path "PHOTO\.JPEG"/],
      ['clip.mp4', 'x', /clip\.mp4 is a video .*read_media_file with path "clip\.mp4" to see sampled frames/],
      ['clip.WebM', 'x', /is a video .*read_media_file/],
      ['talk.mp3', 'x', /talk\.mp3 is an audio file .*read_media_file .*analyze_media transcribes speech/],
      ['talk.flac', 'x', /is an audio file .*read_media_file/],
      // No media extension: the first bytes say what it is.
      ['picture.dat', Buffer.concat([Buffer.from([0x89]), Buffer.from('PNG\r\n\x1a\n'), Buffer.alloc(16)]), /picture\.dat is an image \(image\/png, .*Use read_media_file with path "picture\.dat"/],
      ['movie.bin', Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(16)]), /movie\.bin is a video \(video\/mp4, .*read_media_file/],
    ];
    for (const [name, bytes, message] of cases) {
      writeFileSync(join(dir, name), bytes);
      await expect(read({ path: name }), name).rejects.toThrow(message);
    }
  });

  it('tells a file without an extension by its signature, not only by a NUL byte (Spec II: points to read_media_file or read_pdf)', async () => {
    // None of these has a NUL byte in its first bytes (a PNG cut after its signature, a JPEG whose first segment has
    // no zero, a GIF with non-zero sizes, a WebP and a WAV whose RIFF sizes have no zero byte, a PDF).
    const cases: [string, Buffer, RegExp][] = [
      ['shot', Buffer.concat([Buffer.from([0x89]), Buffer.from('PNG\r\n\x1a\nIHDR then text-looking bytes\n')]), /shot is an image \(image\/png, .*Use read_media_file with path "shot"/],
      ['photo', Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe1, 0x11, 0x11]), Buffer.from('Exif-like text\n')]), /photo is an image \(image\/jpeg, .*read_media_file with path "photo"/],
      ['anim', Buffer.from('GIF89a\x10\x10\x10\x10 then more\n', 'latin1'), /anim is an image \(image\/gif, .*read_media_file/],
      ['pic', Buffer.from('RIFF\x11\x22\x33\x44WEBPVP8 \x11\x11\x11\x11 data\n', 'latin1'), /pic is an image \(image\/webp, .*read_media_file/],
      ['voice', Buffer.from('RIFF\x11\x22\x33\x44WAVEfmt \x10\x10\x10\x10\n', 'latin1'), /voice is an audio file \(audio\/wav, .*read_media_file/],
      ['report', Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n', 'latin1'), /report is a PDF \(.*\); read_file reads text only\. Use read_pdf with path "report" for its text/],
    ];
    for (const [name, bytes, message] of cases) {
      expect(bytes.includes(0), name).toBe(false);
      writeFileSync(join(dir, name), bytes);
      await expect(read({ path: name }), name).rejects.toThrow(message);
    }
    // Text that merely starts like a signature's letters is still text.
    for (const text of ['GIFs are fun\n', 'ID3 tags, explained\n', 'RIFF notes\n', 'BMW parts list\n', 'OggS? no\n']) {
      writeFileSync(join(dir, 'notes'), text);
      expect(await read({ path: 'notes' }), text).toContain(text.trim());
    }
  });

  it('gives actionable errors for folders and missing files', async () => {
    mkdirSync(join(dir, 'sub'), { recursive: true });
    await expect(read({ path: 'sub' })).rejects.toThrow(/folder.*ls/);
    await expect(read({ path: 'nope.txt' })).rejects.toThrow(/File not found: nope\.txt\. Use find or ls/);
    await expect(read({ path: 'nope.txt' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('records a snapshot of the file it read (absolute path, mtime, size, inode, content hash)', async () => {
    await read({ path: 'small.txt', n_lines: 1 });
    const abs = join(dir, 'small.txt');
    const st = statSync(abs);
    const sha256 = createHash('sha256').update(readFileSync(abs)).digest('hex');
    expect(ctx.state.getFileSnapshot(abs)).toEqual({ path: abs, mtimeMs: st.mtimeMs, size: st.size, ino: st.ino, sha256 });
  });

  it('resolves ~ and relative paths against the working directory', async () => {
    const sub = join(dir, 'sub');
    writeFileSync(join(sub, 'inner.txt'), 'inner\n');
    const subCtx = makeContext(sub);
    expect((await readFileTool.execute({ path: '../small.txt' }, subCtx)).output).toContain('alpha');
    expect((await readFileTool.execute({ path: 'inner.txt' }, subCtx)).output).toContain('inner');
  });

  it('empty files read as empty', async () => {
    writeFileSync(join(dir, 'empty.txt'), '');
    expect(await read({ path: 'empty.txt' })).toMatch(/empty/);
  });

  it('stops when the call is aborted', async () => {
    const c = makeContext(dir);
    c.abort();
    await expect(readFileTool.execute({ path: 'long.txt' }, c)).rejects.toMatchObject({ code: 'aborted' });
  });
});

describe('read_file on a 1 GB sparse file', () => {
  const dir = tempDir();
  const path = join(dir, 'huge.log');
  const GB = 1024 ** 3;
  const tail = lines(100, (i) => `tail line ${i}`);
  const head = lines(300, (i) => `head line ${i} ${'.'.repeat(20)}`); // > 8 KB of text before the hole

  beforeAll(() => {
    const fd = openSync(path, 'w');
    writeSync(fd, head, 0);
    ftruncateSync(fd, GB);
    writeSync(fd, tail, GB - Buffer.byteLength(tail));
    closeSync(fd);
  });
  afterAll(() => unlinkSync(path));

  it('numbers the last lines from the end, without reading the gigabyte before them', async () => {
    const ctx = makeContext(dir);
    resetReadCounters();
    const out = (await readFileTool.execute({ path: 'huge.log', line_offset: -20 }, ctx)).output;
    expect(numbersOf(out)).toEqual(Array.from({ length: 20 }, (_, i) => -20 + i));
    expect(out).toContain('    -1\ttail line 100');
    expect(out).toContain('   -20\ttail line 81');
    expect(out).toContain('numbered from the end (-1 = the last line');
    // Only the tail was read: a tail read costs what a head read costs.
    expect(readCounters.bytesRead).toBeLessThan(256 * 1024);
  });

  it('pages from the end with numbers that line_offset takes', async () => {
    const ctx = makeContext(dir);
    const out = (await readFileTool.execute({ path: 'huge.log', line_offset: -40, n_lines: 5 }, ctx)).output;
    expect(numbersOf(out)).toEqual([-40, -39, -38, -37, -36]);
    expect(out).toContain('tail line 61');
    expect(out).toContain('line_offset=-35');
    const next = (await readFileTool.execute({ path: 'huge.log', line_offset: -35, n_lines: 2 }, ctx)).output;
    expect(numbersOf(next)).toEqual([-35, -34]);
    expect(next).toContain('   -35\ttail line 66');
  });

  it('reads the head without touching the rest', async () => {
    const ctx = makeContext(dir);
    resetReadCounters();
    const out = (await readFileTool.execute({ path: 'huge.log', n_lines: 5 }, ctx)).output;
    expect(numbersOf(out)).toEqual([1, 2, 3, 4, 5]);
    expect(out).toContain('line_offset=6');
    expect(readCounters.bytesRead).toBeLessThan(256 * 1024);
  });
});
