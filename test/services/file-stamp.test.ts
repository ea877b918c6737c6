/**
 * The one file stamp (src/main/services/file-stamp): the caches asked on every step compare it, so every change a
 * person or the model can make to a path must change it, and an untouched path must keep it.
 */
import { mkdirSync, renameSync, rmSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { folderStamp, nothingAt, pathStamp } from '../../src/main/services/file-stamp';
import { tempDir } from '../support/tool-context';

it('says nothing is there for a missing path, a path under a file, and a folder that is not there', () => {
  const dir = tempDir('deskhand-stamp-');
  writeFileSync(join(dir, 'file'), 'x');
  for (const path of [join(dir, 'missing'), join(dir, 'missing', 'deeper')]) {
    expect(pathStamp(path)).toBe('-');
    expect(folderStamp(path)).toBe('-');
  }
  // A path through a file cannot be asked (ENOTDIR) or is reported missing, depending on the platform: nothing there.
  expect(nothingAt(pathStamp(join(dir, 'file', 'inside')))).toBe(true);
  expect(nothingAt(pathStamp(join(dir, 'file')))).toBe(false);
});

it('a link to nothing and a link loop are there (their own stat), with the target part saying why', () => {
  const dir = tempDir('deskhand-stamp-');
  symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
  symlinkSync(join(dir, 'loop-b'), join(dir, 'loop-a'));
  symlinkSync(join(dir, 'loop-a'), join(dir, 'loop-b'));
  expect(pathStamp(join(dir, 'dangling'))).toMatch(/>-$/);
  expect(pathStamp(join(dir, 'loop-a'))).toMatch(/>!ELOOP$/);
  expect(nothingAt(pathStamp(join(dir, 'dangling')))).toBe(false);
  expect(nothingAt(pathStamp(join(dir, 'loop-a')))).toBe(false);
});

it('every change to a file, a link or a folder changes the stamp; asking again without a change does not', () => {
  const dir = tempDir('deskhand-stamp-');
  const file = join(dir, 'settings.json');
  const link = join(dir, 'link.json');
  const folder = join(dir, 'agents');
  mkdirSync(folder);
  writeFileSync(file, '{}');
  writeFileSync(join(dir, 'other.json'), '{"a":1}');
  symlinkSync(file, link);
  writeFileSync(join(folder, 'a.md'), 'A');
  const stamps = () => [pathStamp(file), pathStamp(link), folderStamp(folder)];
  // [what, the change, which stamps (file, link, folder) must differ]. Each change moves a size, an inode, a link or a
  // time set explicitly: two writes in the same clock tick may carry the same times, so no case leans on the clock.
  const changes: [string, () => void, number[]][] = [
    ['the file grown', () => writeFileSync(file, '{ }'), [0, 1]],
    ['the file touched back in time', () => utimesSync(file, 1, 1), [0, 1]],
    ['the link pointed elsewhere', () => (unlinkSync(link), symlinkSync(join(dir, 'other.json'), link)), [1]],
    ['the link target replaced by a rename', () => renameSync(file, join(dir, 'other.json')), [0, 1]],
    ['a definition added', () => writeFileSync(join(folder, 'b.md'), 'B'), [2]],
    ['a definition edited', () => writeFileSync(join(folder, 'a.md'), 'AA'), [2]],
    ['a definition renamed', () => renameSync(join(folder, 'b.md'), join(folder, 'c.md')), [2]],
    ['a definition relinked', () => (rmSync(join(folder, 'c.md')), symlinkSync(join(dir, 'other.json'), join(folder, 'c.md'))), [2]],
    ['the linked definition target edited', () => writeFileSync(join(dir, 'other.json'), '{"a":22}'), [1, 2]],
    ['the folder removed', () => rmSync(folder, { recursive: true }), [2]],
  ];
  let before = stamps();
  expect(stamps()).toEqual(before);
  for (const [what, change, differ] of changes) {
    change();
    const after = stamps();
    for (const i of differ) expect(after[i], what).not.toBe(before[i]);
    expect(stamps(), `${what}: asked again`).toEqual(after);
    before = after;
  }
  expect(before[2]).toBe('-');
});

it('a credential file rewritten in place at the same size, its modification time put back, is scanned again', async () => {
  // The credential scan keeps a file's values by its stamp; the change time (which no `touch` sets back) tells.
  const { credentialFileValues } = await import('../../src/main/runtime/decision/credential-files');
  const dir = tempDir('deskhand-stamp-');
  const file = join(dir, 'deploy.conf');
  const first = 'password=Zq8vLw2hunterX9rTk4mB\n';
  const second = 'password=Pw7nHc3kingsY6uJd1qAb\n';
  expect(second.length).toBe(first.length);
  writeFileSync(file, first);
  utimesSync(file, 1_000_000, 1_000_000);
  expect(credentialFileValues(file).map((v) => v.value)).toEqual(['Zq8vLw2hunterX9rTk4mB']);
  await new Promise((r) => setTimeout(r, 20)); // the clock moves on, so the rewrite's change time differs
  writeFileSync(file, second);
  utimesSync(file, 1_000_000, 1_000_000);
  expect(credentialFileValues(file).map((v) => v.value)).toEqual(['Pw7nHc3kingsY6uJd1qAb']);
});
