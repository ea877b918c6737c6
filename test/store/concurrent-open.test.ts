import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORE_MODULES } from '../../src/main/services/store/modules/index';
import { rawAll } from '../support/raw-db';
import { storeChild } from '../support/store-child';
import { tempDir } from '../support/tool-context';

const PROCESSES = 8;

describe('several processes opening a new data folder at once', () => {
  it.each([1, 2, 3])('all succeed and migrate it once (round %i)', async () => {
    const dataDir = join(tempDir(), 'new-data-folder');
    const children = Array.from({ length: PROCESSES }, (_, i) => storeChild('open', dataDir, `conv_${i}`));
    // Every child is loaded and waiting before any opens the store, so the opens overlap as much as they can.
    await Promise.all(children.map((c) => c.printed('ready')));
    for (const c of children) c.send('go');
    const exits = await Promise.all(children.map((c) => c.exited));
    expect(exits.map((e) => `${e.code} ${e.stderr.trim()}`)).toEqual(children.map(() => '0 '));
    expect(rawAll<{ id: string }>(dataDir, 'SELECT id FROM conversations ORDER BY id').map((r) => r.id)).toEqual(children.map((_, i) => `conv_${i}`));
    const books = rawAll<{ name: string; version: number }>(dataDir, 'SELECT name, version FROM schema_modules');
    expect(new Map(books.map((b) => [b.name, b.version]))).toEqual(new Map(STORE_MODULES.map((m) => [m.name, m.migrations.length])));
  });
});
