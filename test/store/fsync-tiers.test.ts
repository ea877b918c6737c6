/**
 * Commits that skip the fsync (docs/performance.md): they survive Deskhand being killed at any point, in order, and
 * a call that acts on the world finds the store synced before it runs. (A power loss cannot be staged here; what it
 * may cost is the tail of such commits, which the WAL's ordering keeps consistent.)
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime } from '../../src/main/host/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

describe('commits without an fsync', () => {
  it('every acknowledged one survives a SIGKILL of the writer, as a gap-free prefix', async () => {
    for (const delayMs of [0, 40, 150]) {
      const dataDir = tempDir('deskhand-fsync-');
      const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, '../support/fsync-writer-main.ts'), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
      let acknowledged = 0;
      await new Promise<void>((res, rej) => {
        child.stdout.on('data', (d: Buffer) => {
          for (const m of d.toString().matchAll(/wrote (\d+)/g)) acknowledged = Math.max(acknowledged, Number(m[1]));
          if (acknowledged >= 40) res();
        });
        child.on('exit', () => rej(new Error('the writer exited early')));
      });
      await new Promise((r) => setTimeout(r, delayMs));
      child.kill('SIGKILL');
      await new Promise((r) => child.on('close', r));

      const db = new Database(join(dataDir, 'deskhand.db'));
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const rows = db.prepare("SELECT content FROM messages WHERE conversation_id = 'conv_fsync' ORDER BY id").all() as { content: string }[];
      db.close();
      // Everything the writer was told had been committed is there, and nothing is missing in between.
      expect(rows.length).toBeGreaterThanOrEqual(acknowledged);
      expect(rows.map((r) => JSON.parse(r.content) as string)).toEqual(rows.map((_, i) => `message ${i + 1}`));
    }
  }, 60_000);
});

describe('the run loop', () => {
  let server: ModelServer;
  let store: Store;
  let work: string;

  beforeEach(async () => {
    server = await startModelServer();
    store = new Store(tempDir('deskhand-data-'));
    work = tempDir('deskhand-work-');
    writeFileSync(join(work, 'a.txt'), 'hello\n');
  });

  afterEach(async () => {
    store.close();
    await server.close();
  });

  const provider = () => ({ provider: 'openai' as const, model: 'm', baseURL: server.baseURL, apiKey: 'sk-test' });

  it('syncs the store before a call that writes, not before reads', async () => {
    const syncs: { targetExisted: boolean }[] = [];
    const sync = store.sync.bind(store);
    store.sync = () => {
      syncs.push({ targetExisted: existsSync(join(work, 'b.txt')) });
      sync();
    };
    let skipped = 0;
    const withoutFsync = store.withoutFsync.bind(store);
    store.withoutFsync = <T>(fn: () => T): T => {
      skipped++;
      return withoutFsync(fn);
    };
    const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null });

    // Reads only: their steps skip the fsync, and nothing asks for a sync.
    server.enqueue(reply().tool('stat', { path: 'a.txt' }), reply().tool('read_file', { path: 'a.txt' }), reply().text('read'));
    const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
    expect((await runtime.sendMessage(conv.id, 'look', { provider: provider(), interactive: false })).status).toBe('finished');
    expect(skipped).toBeGreaterThanOrEqual(4);
    expect(syncs).toEqual([]);

    // A write after a read: the store is synced before the file exists.
    server.enqueue(reply().tool('stat', { path: 'a.txt' }), reply().tool('write_file', { path: 'b.txt', content: 'new\n' }), reply().text('wrote'));
    expect((await runtime.sendMessage(conv.id, 'write', { provider: provider(), interactive: false })).status).toBe('finished');
    expect(existsSync(join(work, 'b.txt'))).toBe(true);
    expect(syncs[0]).toEqual({ targetExisted: false });
    // What the calls recorded is all there.
    const calls = store.toolCallsForConversation(conv.id).map((c) => `${c.tool}:${c.status}`);
    expect(calls.sort()).toEqual(['read_file:done', 'stat:done', 'stat:done', 'write_file:done']);
  });
});
