import { chmodSync, existsSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cdTool } from '../../../src/main/tools/files/cd';
import { lsTool } from '../../../src/main/tools/files/ls';
import { mkdirTool } from '../../../src/main/tools/files/mkdir';
import { pwdTool } from '../../../src/main/tools/files/pwd';
import { statTool } from '../../../src/main/tools/files/stat';
import { makeContext, tempDir } from '../../support/tool-context';

function tree(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'src/lib'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), 'x'.repeat(2048));
  writeFileSync(join(dir, 'src/index.ts'), 'export {};\n');
  writeFileSync(join(dir, 'src/lib/util.ts'), '');
  writeFileSync(join(dir, '.hidden'), 'h');
  mkdirSync(join(dir, '.git'));
  writeFileSync(join(dir, '.git/HEAD'), 'ref');
  symlinkSync('README.md', join(dir, 'readme-link'));
  return dir;
}

describe('ls', () => {
  it('lists a folder with folders marked and sizes, hidden entries only with all', async () => {
    const dir = tree();
    const ctx = makeContext(dir);
    const out = (await lsTool.execute({}, ctx)).output;
    expect(out.split('\n')).toEqual([`${dir}:`, 'README.md  2.0 KB', 'readme-link -> README.md', 'src/']);
    const all = (await lsTool.execute({ all: true }, ctx)).output;
    expect(all).toContain('.hidden  1 B');
    expect(all).toContain('.git/');
  });

  it('recurses, filters by pattern and stops at the limit with a notice', async () => {
    const dir = tree();
    const ctx = makeContext(dir);
    const rec = (await lsTool.execute({ recursive: true }, ctx)).output.split('\n').slice(1);
    expect(rec).toEqual(['README.md  2.0 KB', 'readme-link -> README.md', 'src/', 'src/index.ts  11 B', 'src/lib/', 'src/lib/util.ts  0 B']);
    const ts = (await lsTool.execute({ recursive: true, pattern: '*.ts' }, ctx)).output.split('\n').slice(1);
    expect(ts).toEqual(['src/index.ts  11 B', 'src/lib/util.ts  0 B']);
    const limited = (await lsTool.execute({ recursive: true, limit: 2 }, ctx)).output;
    expect(limited.split('\n').slice(1, 3)).toEqual(['README.md  2.0 KB', 'readme-link -> README.md']);
    expect(limited).toMatch(/stopped at 2 entries; more exist/);
  });

  it('has a default limit of 200', async () => {
    const dir = tempDir();
    for (let i = 0; i < 250; i++) writeFileSync(join(dir, `f${String(i).padStart(3, '0')}`), '');
    const out = (await lsTool.execute({}, makeContext(dir))).output;
    expect(out.split('\n').filter((l) => l.startsWith('f'))).toHaveLength(200);
    expect(out).toMatch(/stopped at 200 entries/);
  });

  it('explains files and missing folders', async () => {
    const dir = tree();
    const ctx = makeContext(dir);
    await expect(lsTool.execute({ path: 'README.md' }, ctx)).rejects.toThrow(/is a file, not a folder/);
    await expect(lsTool.execute({ path: 'nope' }, ctx)).rejects.toThrow(/Folder not found: nope/);
  });
});

describe('stat', () => {
  it('reports type, size, mode, mtime and nlink; symlinks with their target; missing paths as exists: false', async () => {
    const dir = tree();
    const ctx = makeContext(dir);
    chmodSync(join(dir, 'README.md'), 0o640);
    const file = (await statTool.execute({ path: 'README.md' }, ctx)).output;
    expect(file).toContain('exists: true');
    expect(file).toContain('type: file');
    expect(file).toContain('size: 2048 bytes (2.0 KB)');
    expect(file).toContain('mode: 0640 (rw-r-----)');
    expect(file).toContain(`modified: ${statSync(join(dir, 'README.md')).mtime.toISOString()}`);
    expect(file).toContain('nlink: 1');
    expect((await statTool.execute({ path: 'src' }, ctx)).output).toContain('type: directory');
    const link = (await statTool.execute({ path: 'readme-link' }, ctx)).output;
    expect(link).toContain('type: symlink');
    expect(link).toContain('target: README.md');
    expect(link).toContain('target type: file');
    symlinkSync('gone', join(dir, 'broken'));
    expect((await statTool.execute({ path: 'broken' }, ctx)).output).toContain('broken link');
    expect((await statTool.execute({ path: 'missing' }, ctx)).output).toBe(`path: ${join(dir, 'missing')}\nexists: false`);
  });
});

describe('pwd and cd', () => {
  it('cd changes the conversation cwd used by later calls', async () => {
    const dir = tree();
    const ctx = makeContext(dir);
    expect((await pwdTool.execute({}, ctx)).output).toBe(dir);
    expect((await cdTool.execute({ path: 'src/lib' }, ctx)).output).toBe(`Working directory is now ${join(dir, 'src/lib')}`);
    expect(ctx.state.cwd).toBe(join(dir, 'src/lib'));
    expect((await pwdTool.execute({}, ctx)).output).toBe(join(dir, 'src/lib'));
    await cdTool.execute({ path: '..' }, ctx);
    expect(ctx.state.cwd).toBe(join(dir, 'src'));
    await cdTool.execute({ path: '~' }, ctx);
    expect(ctx.state.cwd).toBe(homedir());
  });

  it('refuses files and missing folders', async () => {
    const dir = tree();
    const ctx = makeContext(dir);
    await expect(cdTool.execute({ path: 'README.md' }, ctx)).rejects.toThrow(/is a file, not a folder/);
    await expect(cdTool.execute({ path: 'nowhere' }, ctx)).rejects.toThrow(/Folder not found/);
    expect(ctx.state.cwd).toBe(dir);
  });
});

describe('mkdir', () => {
  it('creates parents by default, is a no-op for existing folders, proposes a description', async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    const p = await mkdirTool.pair!.propose({ path: 'a/b/c' }, ctx);
    expect(p.description).toBe('Create folder a/b/c (and missing parents)');
    expect(existsSync(join(dir, 'a'))).toBe(false);
    expect((await mkdirTool.execute({ path: 'a/b/c' }, ctx)).output).toBe('Created folder a/b/c.');
    expect(statSync(join(dir, 'a/b/c')).isDirectory()).toBe(true);
    expect((await mkdirTool.execute({ path: 'a/b/c' }, ctx)).output).toMatch(/already exists; nothing changed/);
  });

  it('with parents false needs the parent; refuses a file in the way', async () => {
    const dir = tempDir();
    const ctx = makeContext(dir);
    await expect(mkdirTool.execute({ path: 'x/y', parents: false }, ctx)).rejects.toThrow(/parents: true/);
    await mkdirTool.execute({ path: 'x', parents: false }, ctx);
    writeFileSync(join(dir, 'f'), '');
    await expect(mkdirTool.execute({ path: 'f' }, ctx)).rejects.toThrow(/not a folder/);
  });

  it('is low-risk with an execute_mkdir pair', () => {
    expect(mkdirTool.risk).toBe('low-risk');
    expect(mkdirTool.pair?.executeName).toBe('execute_mkdir');
    expect(mkdirTool.disclosure).toBe('public');
  });
});
