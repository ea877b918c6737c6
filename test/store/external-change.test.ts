import { describe, expect, it } from 'vitest';
import { ExternalChangeWatcher } from '../../src/main/services/store/external-change';
import { Store } from '../../src/main/services/store/store';
import { storeChild } from '../support/store-child';
import { tempDir } from '../support/tool-context';

/** No safety re-check within a test's lifetime: only the file watch can make these listeners fire. */
const WATCH_ONLY = { externalChangeSafetyMs: 3_600_000 };

function nextChange(store: Store, seen: { n: number }): Promise<void> {
  return new Promise<void>((resolve) => {
    const off = store.onExternalChange(() => {
      off();
      resolve();
    });
  }).then(() => {
    seen.n++;
  });
}

describe('onExternalChange', () => {
  it('fires when another connection commits, once per commit, never for its own writes', async () => {
    const dataDir = tempDir();
    const a = new Store(dataDir, WATCH_ONLY);
    const b = new Store(dataDir, WATCH_ONLY);
    let fired = 0;
    const off = a.onExternalChange(() => fired++);
    const seen = { n: 0 };
    for (const round of [1, 2, 3]) {
      // Own writes first: they touch the same files, and must not count.
      for (let i = 0; i < 5; i++) a.createConversation({ id: `own_${round}_${i}`, title: 't', folder: '/tmp', policy: 'none' });
      const change = nextChange(a, seen);
      b.createConversation({ id: `other_${round}`, title: 't', folder: '/tmp', policy: 'none' });
      await change;
      expect(a.getConversation(`other_${round}`)).toBeDefined();
      expect(fired).toBe(round);
    }
    off();
    a.close();
    b.close();
  });

  it('fires for a write by another process', async () => {
    const dataDir = tempDir();
    const store = new Store(dataDir, WATCH_ONLY);
    const child = storeChild('write', dataDir, 'writer');
    await child.printed('ready');
    for (const name of ['from_child_1', 'from_child_2']) {
      const change = nextChange(store, { n: 0 });
      child.send(name);
      await change;
      expect(store.getConversation(name)).toMatchObject({ id: name });
    }
    child.proc.stdin.end();
    expect((await child.exited).code).toBe(0);
    store.close();
  });

  it('stops watching when the last listener leaves or the store closes', async () => {
    const dataDir = tempDir();
    const a = new Store(dataDir, WATCH_ONLY);
    const b = new Store(dataDir, WATCH_ONLY);
    let stale = 0;
    a.onExternalChange(() => stale++)();
    const change = nextChange(a, { n: 0 });
    b.createConversation({ id: 'x', title: 't', folder: '/tmp', policy: 'none' });
    await change;
    expect(stale).toBe(0);
    a.close();
    expect(a.onExternalChange(() => undefined)).toBeTypeOf('function');
    b.close();
  });

  it('a listener that comes just after the last one left hears only what is committed from then on (the watch is kept a moment between them)', () => {
    let version = 1;
    const watcher = new ExternalChangeWatcher(tempDir(), 'deskhand.db', () => version, 3_600_000);
    const heard: string[] = [];
    for (const child of ['one', 'two', 'three']) {
      // Another connection commits while nobody listens (a map between two children).
      version++;
      const off = watcher.add(() => heard.push(child));
      watcher.check();
      expect(heard).toEqual(heard.filter((h) => h !== child));
      // Its own commit, while it listens: heard once.
      version++;
      watcher.check();
      watcher.check();
      off();
      off();
      // Gone: never called again.
      version++;
      watcher.check();
    }
    expect(heard).toEqual(['one', 'two', 'three']);
    watcher.close();
    expect(watcher.add(() => heard.push('after close'))).toBeTypeOf('function');
    version++;
    watcher.check();
    expect(heard).toEqual(['one', 'two', 'three']);
  });
});
