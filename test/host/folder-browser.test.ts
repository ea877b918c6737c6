/**
 * listFolders (issue 34 item 7) through the path guard: sub-folders only, hidden ones on request, and what the guard
 * calls sensitive (credentials folders by any of their names, links to them, Deskhand's data, git hooks) neither
 * listed nor opened, however the path is spelled.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listFolders } from '../../src/main/host/app/groups/folders';
import { tempDir } from '../support/tool-context';

// Made at load: the tables below name paths inside it.
const home = tempDir('deskhand-folders-');
const ctx = { home, dataDir: join(home, '.deskhand') };
const names = (path: string, hidden = false) => listFolders({ path, hidden }, ctx).folders.map((f) => f.name);

beforeAll(() => {
  for (const d of ['work/a', 'work/b', 'work/.cache', '.ssh', '.gnupg', '.aws', '.deskhand/logs', 'work/.git/hooks', 'work/repo/.git/hooks']) mkdirSync(join(home, d), { recursive: true });
  writeFileSync(join(home, 'work', 'file.txt'), 'x');
  symlinkSync(join(home, '.ssh'), join(home, 'work', 'keys'));
  symlinkSync(join(home, 'work', 'a'), join(home, 'work', 'a-link'));
  symlinkSync(join(home, 'nowhere'), join(home, 'work', 'broken'));
});

describe('listFolders', () => {
  it('lists sub-folders (links to folders too), hidden ones only when asked, never sensitive ones', () => {
    expect(names(join(home, 'work'))).toEqual(['a', 'a-link', 'b', 'repo']);
    expect(names(join(home, 'work'), true)).toEqual(['a', 'a-link', 'b', 'repo', '.cache', '.git']);
    expect(names(home, true)).toEqual(['work']);
    expect(names(join(home, 'work', '.git'), true)).toEqual([]);
  });

  it('starts at home and takes ~', () => {
    expect(listFolders({ hidden: false }, ctx).path).toBe(home);
    expect(listFolders({ path: '~/work', hidden: false }, ctx).path).toBe(join(home, 'work'));
    expect(listFolders({ path: join(home, 'work'), hidden: false }, ctx).parent).toBe(home);
  });

  it.each([
    ['~/.ssh', /credentials/],
    [join(home, '.gnupg'), /credentials/],
    [join(home, 'work', '..', '.aws'), /credentials/],
    [join(home, 'work', 'keys'), /credentials/],
    [`${join(home, '.ssh')}/`, /credentials/],
    [join(home, '.deskhand'), /Deskhand's own/],
    [join(home, '.deskhand', 'logs'), /Deskhand's own/],
    [join(home, 'work', '.git', 'hooks'), /hooks/],
    [join(home, 'work', 'repo', '.git', 'hooks'), /hooks/],
  ])('refuses to open %s', (path, why) => {
    expect(() => listFolders({ path, hidden: true }, ctx)).toThrow(why);
  });

  it.each([
    ['work', /full path/],
    [join(home, 'missing'), /does not exist/],
    [join(home, 'work', 'file.txt'), /is a file/],
    [join(home, 'work', 'broken'), /does not exist/],
  ])('says what is wrong with %s', (path, why) => {
    expect(() => listFolders({ path, hidden: false }, ctx)).toThrow(why);
  });
});
