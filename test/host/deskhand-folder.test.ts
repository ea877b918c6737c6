/**
 * The Deskhand folder (issue 52 item 7): a host whose default folder is the home folder offers `~/Deskhand` (here moved
 * by DESKHAND_WORK_FOLDER) instead, says whether it exists, and createConversation makes it only when asked to and only
 * for that folder; every other folder asked to be made is refused and nothing is created.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let h: Harness;
let root: string;
let folder: string;
beforeEach(() => {
  root = tempDir('deskhand-folder-');
  folder = join(root, 'Deskhand');
  h = openHarness({ dataDir: tempDir('deskhand-folder-data-'), env: { DESKHAND_WORK_FOLDER: folder } });
});
afterEach(() => h.close());

describe('the Deskhand folder', () => {
  it('is offered instead of the home folder, and said not to exist yet', async () => {
    const info = await h.service.getHostInfo();
    expect(info.defaultFolder).toBe(folder);
    expect(info.deskhandFolder).toEqual({ path: folder, exists: false });
  });

  it.each([
    ['a sibling', () => join(root, 'Other')],
    ['a folder inside it', () => join(folder, 'inner')],
    ['its parent made anew', () => join(root, 'new-parent', 'Deskhand')],
    ['a relative path', () => 'Deskhand'],
    ['the home spelling', () => '~/Deskhand'],
    ['a dotted spelling of a sibling', () => join(folder, '..', 'Elsewhere')],
  ])('is the only folder made on request: %s is refused', async (_name, path) => {
    await expect(h.service.createConversation({ folder: path(), policy: 'read-only', createFolder: true })).rejects.toThrow(/Only the Deskhand folder/);
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(join(root, 'Other'))).toBe(false);
    expect(existsSync(join(root, 'Elsewhere'))).toBe(false);
    expect(existsSync(join(root, 'new-parent'))).toBe(false);
  });

  it('is not made without the request, and is made with it (also spelled with a trailing slash)', async () => {
    await expect(h.service.createConversation({ folder, policy: 'read-only' })).rejects.toThrow(/is not an existing folder/);
    expect(existsSync(folder)).toBe(false);
    const c = await h.service.createConversation({ folder: `${folder}/`, policy: 'read-only', createFolder: true });
    expect(statSync(folder).isDirectory()).toBe(true);
    expect(c.folder).toBe(folder);
    expect((await h.service.getHostInfo()).deskhandFolder.exists).toBe(true);
  });
});
