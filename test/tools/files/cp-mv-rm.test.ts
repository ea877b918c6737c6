import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Classification, ClassifyContext, ToolDefinition } from '../../../src/main/runtime/tool';
import { createCpTool } from '../../../src/main/tools/files/cp';
import { createMvTool } from '../../../src/main/tools/files/mv';
import { createRmTool } from '../../../src/main/tools/files/rm';
import { makeContext, makeState, tempDir } from '../../support/tool-context';

/** Deskhand's data dir the tools are built with (rm and mv never touch it). */
const dataDir = tempDir('deskhand-data-');
const mvTool = createMvTool(dataDir);
const cpTool = createCpTool(dataDir);
const rmTool = createRmTool(dataDir);

/** A tool's own judgement of one call (its declared effects' assessment). */
async function classify<P extends z.ZodType>(tool: ToolDefinition<P>, args: z.infer<P>, cctx: ClassifyContext): Promise<Classification> {
  const effects = await tool.effects!(args, cctx);
  if (!effects.assessment) throw new Error('no assessment in the declared effects');
  return effects.assessment;
}

function setup() {
  const dir = tempDir();
  const ctx = makeContext(dir, { dataDir });
  const cctx: ClassifyContext = { cwd: dir, workspaceRoots: [dir], dataDir: ctx.dataDir };
  writeFileSync(join(dir, 'a.txt'), 'A\n');
  writeFileSync(join(dir, 'b.txt'), 'B\n');
  mkdirSync(join(dir, 'pkg/sub'), { recursive: true });
  writeFileSync(join(dir, 'pkg/sub/x.txt'), 'X\n');
  symlinkSync('sub/x.txt', join(dir, 'pkg/link'));
  mkdirSync(join(dir, 'dest'));
  return { dir, ctx, cctx };
}

describe('cp', () => {
  it('classifies low-risk unless force replaces an existing destination', async () => {
    const { cctx } = setup();
    const fresh = await classify(cpTool, { source: 'a.txt', destination: 'new.txt' }, cctx);
    expect(fresh.risk).toBe('low-risk');
    expect(fresh.reasons.join(' ')).toMatch(/nothing existing is replaced/);
    const noForce = await classify(cpTool, { source: 'a.txt', destination: 'b.txt' }, cctx);
    expect(noForce.risk).toBe('low-risk');
    expect(noForce.reasons.join(' ')).toMatch(/will refuse/);
    const forced = await classify(cpTool, { source: 'a.txt', destination: 'b.txt', force: true }, cctx);
    expect(forced.risk).toBe('high-risk');
    expect(forced.reasons.join(' ')).toMatch(/force replaces the existing file/);
    expect(forced.rulePattern).toBeNull();
    // force with nothing to replace stays low-risk
    expect((await classify(cpTool, { source: 'a.txt', destination: 'c.txt', force: true }, cctx)).risk).toBe('low-risk');
    // into an existing folder: the target is dest/a.txt
    expect((await classify(cpTool, { source: 'a.txt', destination: 'dest', force: true }, cctx)).risk).toBe('low-risk');
  });

  it('copies files, refuses to replace without force, replaces with force', async () => {
    const { dir, ctx } = setup();
    chmodSync(join(dir, 'a.txt'), 0o600);
    expect((await cpTool.execute({ source: 'a.txt', destination: 'copies/a2.txt' }, ctx)).output).toBe('Copied a.txt to copies/a2.txt.');
    expect(readFileSync(join(dir, 'copies/a2.txt'), 'utf8')).toBe('A\n');
    expect(statSync(join(dir, 'copies/a2.txt')).mode & 0o777).toBe(0o600);
    await expect(cpTool.execute({ source: 'a.txt', destination: 'b.txt' }, ctx)).rejects.toThrow(/already exists.*force: true/);
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('B\n');
    await cpTool.execute({ source: 'a.txt', destination: 'b.txt', force: true }, ctx);
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('A\n');
  });

  it('copies into an existing folder and copies trees keeping links as links', async () => {
    const { dir, ctx } = setup();
    await cpTool.execute({ source: 'a.txt', destination: 'dest' }, ctx);
    expect(readFileSync(join(dir, 'dest/a.txt'), 'utf8')).toBe('A\n');
    const out = (await cpTool.execute({ source: 'pkg', destination: 'pkg2' }, ctx)).output;
    expect(out).toMatch(/Copied pkg to pkg2 \(3 entries\)/);
    expect(readFileSync(join(dir, 'pkg2/sub/x.txt'), 'utf8')).toBe('X\n');
    expect(lstatSync(join(dir, 'pkg2/link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'pkg2/link'))).toBe('sub/x.txt');
  });

  it('replaces a folder with force, refuses kind changes and copying into itself', async () => {
    const { dir, ctx } = setup();
    mkdirSync(join(dir, 'old/pkg'), { recursive: true });
    writeFileSync(join(dir, 'old/pkg/stale.txt'), 'stale');
    // `old` exists, so the copy would land at old/pkg, which exists too.
    await expect(cpTool.execute({ source: 'pkg', destination: 'old' }, ctx)).rejects.toThrow(/old\/pkg already exists \(folder\).*force: true/);
    expect(existsSync(join(dir, 'old/pkg/stale.txt'))).toBe(true);
    await cpTool.execute({ source: 'pkg', destination: 'old', force: true }, ctx);
    expect(existsSync(join(dir, 'old/pkg/stale.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'old/pkg/sub/x.txt'), 'utf8')).toBe('X\n');
    expect(readdirSync(join(dir, 'old')).filter((n) => n.includes('deskhand-tmp'))).toEqual([]);
    // A file never replaces a folder (or the reverse), even with force.
    mkdirSync(join(dir, 'box/a.txt'), { recursive: true });
    await expect(cpTool.execute({ source: 'a.txt', destination: 'box', force: true }, ctx)).rejects.toThrow(/Cannot replace the folder box\/a\.txt with a file/);
    await expect(cpTool.execute({ source: 'pkg', destination: 'pkg/sub/inner' }, ctx)).rejects.toThrow(/into itself/);
    await expect(cpTool.execute({ source: 'missing', destination: 'x' }, ctx)).rejects.toThrow(/not found: missing/);
  });

  it('proposes a description naming what is replaced', async () => {
    const { ctx } = setup();
    expect((await cpTool.pair!.propose({ source: 'a.txt', destination: 'b.txt', force: true }, ctx)).description).toBe(
      'Copy file a.txt to b.txt (replacing the existing file)',
    );
    await expect(cpTool.pair!.propose({ source: 'a.txt', destination: 'b.txt' }, ctx)).rejects.toThrow(/force/);
  });
});

describe('mv', () => {
  it('classifies like cp', async () => {
    const { cctx } = setup();
    expect((await classify(mvTool, { source: 'a.txt', destination: 'z.txt' }, cctx)).risk).toBe('low-risk');
    expect((await classify(mvTool, { source: 'a.txt', destination: 'b.txt' }, cctx)).risk).toBe('low-risk');
    expect((await classify(mvTool, { source: 'a.txt', destination: 'b.txt', force: true }, cctx)).risk).toBe('high-risk');
    expect((await classify(mvTool, { source: 'missing', destination: 'b.txt', force: true }, cctx)).reasons[0]).toMatch(/will fail/);
  });

  it('renames, moves into folders, refuses to replace without force', async () => {
    const { dir, ctx } = setup();
    await mvTool.execute({ source: 'a.txt', destination: 'renamed.txt' }, ctx);
    expect(existsSync(join(dir, 'a.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'renamed.txt'), 'utf8')).toBe('A\n');
    await mvTool.execute({ source: 'renamed.txt', destination: 'dest' }, ctx);
    expect(readFileSync(join(dir, 'dest/renamed.txt'), 'utf8')).toBe('A\n');
    await expect(mvTool.execute({ source: 'dest/renamed.txt', destination: 'b.txt' }, ctx)).rejects.toThrow(/already exists.*force/);
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('B\n');
    await mvTool.execute({ source: 'dest/renamed.txt', destination: 'b.txt', force: true }, ctx);
    expect(readFileSync(join(dir, 'b.txt'), 'utf8')).toBe('A\n');
  });

  it('replaces a folder with force and moves links as links', async () => {
    const { dir, ctx } = setup();
    mkdirSync(join(dir, 'other/pkg'), { recursive: true });
    writeFileSync(join(dir, 'other/pkg/old.txt'), 'old');
    await expect(mvTool.execute({ source: 'pkg', destination: 'other' }, ctx)).rejects.toThrow(/other\/pkg already exists/);
    await mvTool.execute({ source: 'pkg', destination: 'other', force: true }, ctx);
    expect(existsSync(join(dir, 'pkg'))).toBe(false);
    expect(existsSync(join(dir, 'other/pkg/old.txt'))).toBe(false);
    expect(readFileSync(join(dir, 'other/pkg/sub/x.txt'), 'utf8')).toBe('X\n');
    expect(readdirSync(join(dir, 'other')).filter((n) => n.includes('deskhand-tmp'))).toEqual([]);
    await mvTool.execute({ source: 'other/pkg/link', destination: 'moved-link' }, ctx);
    expect(lstatSync(join(dir, 'moved-link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'moved-link'))).toBe('sub/x.txt');
  });

  const shm = '/dev/shm';
  const otherDevice = existsSync(shm) && statSync(shm).dev !== statSync(tempDir()).dev;
  it.skipIf(!otherDevice)('moves across devices by copying, then removing the original', async () => {
    const { dir, ctx } = setup();
    const far = mkdtempSync(join(shm, 'deskhand-mv-'));
    try {
      const out = (await mvTool.execute({ source: 'pkg', destination: join(far, 'pkg') }, ctx)).output;
      expect(out).toMatch(/copied across devices/);
      expect(existsSync(join(dir, 'pkg'))).toBe(false);
      expect(readFileSync(join(far, 'pkg/sub/x.txt'), 'utf8')).toBe('X\n');
      expect(readlinkSync(join(far, 'pkg/link'))).toBe('sub/x.txt');
      await mvTool.execute({ source: 'a.txt', destination: join(far, 'a.txt') }, ctx);
      expect(readFileSync(join(far, 'a.txt'), 'utf8')).toBe('A\n');
      expect(existsSync(join(dir, 'a.txt'))).toBe(false);
    } finally {
      rmSync(far, { recursive: true, force: true });
    }
  });

  it('refuses moving a folder into itself or moving protected folders', async () => {
    const { dir, ctx } = setup();
    await expect(mvTool.execute({ source: 'pkg', destination: 'pkg/sub/deeper' }, ctx)).rejects.toThrow(/into itself/);
    await expect(mvTool.execute({ source: dir, destination: join(dir, '..', 'elsewhere') }, ctx)).rejects.toThrow(/workspace root/);
  });

  it('declares its metadata', () => {
    expect(mvTool.risk).toBe('high-risk');
    expect(mvTool.pair?.executeName).toBe('execute_mv');
    expect(cpTool.pair?.executeName).toBe('execute_cp');
    expect(mvTool.disclosure).toBe('public');
    expect(cpTool.disclosure).toBe('public');
  });
});

describe('rm', () => {
  it('removes files; folders need recursive', async () => {
    const { dir, ctx } = setup();
    expect((await rmTool.execute({ path: 'a.txt' }, ctx)).output).toBe('Removed file a.txt.');
    expect(existsSync(join(dir, 'a.txt'))).toBe(false);
    await expect(rmTool.execute({ path: 'pkg' }, ctx)).rejects.toThrow(/recursive: true/);
    expect(existsSync(join(dir, 'pkg'))).toBe(true);
    const p = await rmTool.pair!.propose({ path: 'pkg', recursive: true }, ctx);
    expect(p.description).toMatch(/Remove folder pkg and everything inside \(2 files, 1 subfolder/);
    expect(p.preview).toContain('sub/x.txt');
    await rmTool.execute({ path: 'pkg', recursive: true }, ctx);
    expect(existsSync(join(dir, 'pkg'))).toBe(false);
    await expect(rmTool.execute({ path: 'pkg' }, ctx)).rejects.toThrow(/not found/);
  });

  it('removes a link, not its target', async () => {
    const { dir, ctx } = setup();
    symlinkSync(join(dir, 'pkg'), join(dir, 'dirlink'));
    await rmTool.execute({ path: 'dirlink' }, ctx);
    expect(existsSync(join(dir, 'dirlink'))).toBe(false);
    expect(existsSync(join(dir, 'pkg/sub/x.txt'))).toBe(true);
    // A link to the workspace root is only a link.
    symlinkSync(dir, join(dir, 'rootlink'));
    await rmTool.execute({ path: 'rootlink' }, ctx);
    expect(existsSync(dir)).toBe(true);
  });

  it('refuses the workspace root, its parents, the cwd, the home folder and /', async () => {
    const { dir, ctx } = setup();
    await expect(rmTool.execute({ path: '.', recursive: true }, ctx)).rejects.toThrow(/workspace root/);
    await expect(rmTool.execute({ path: dir, recursive: true }, ctx)).rejects.toThrow(/workspace root/);
    await expect(rmTool.execute({ path: '..', recursive: true }, ctx)).rejects.toThrow(/contains the workspace root/);
    await expect(rmTool.execute({ path: '/', recursive: true }, ctx)).rejects.toThrow(/root of the file system/);
    await expect(rmTool.execute({ path: '~', recursive: true }, ctx)).rejects.toThrow(/home folder/);
    await expect(rmTool.pair!.propose({ path: homedir(), recursive: true }, ctx)).rejects.toThrow(/home folder/);
    // The cwd (after a cd into a subfolder) is protected too.
    const sub = join(dir, 'pkg');
    const inSub = makeContext(sub, { state: makeState(sub, [dir]) });
    await expect(rmTool.execute({ path: '.', recursive: true }, inSub)).rejects.toThrow(/working directory/);
    expect(existsSync(dir)).toBe(true);
  });

  it('declares its metadata', () => {
    expect(rmTool.risk).toBe('high-risk');
    expect(rmTool.pair?.executeName).toBe('execute_rm');
    expect(rmTool.disclosure).toBe('public');
  });
});
