/**
 * The fsync tiers (docs/performance.md), by the write barriers themselves: a child process opens the store under
 * `strace -f -e trace=fsync,fdatasync,write` and runs each commit kind N times, and the barriers are counted per kind —
 * an ordinary commit syncs (at least one barrier each), a commit inside `withoutFsync` makes none, `store.sync()` after
 * one makes exactly one, and with nothing unsynced makes none; an ordinary commit or transaction right after one
 * without an fsync still syncs (the connection's setting is put back lazily, by the next write that needs it). Then the run loop: the store is synced before a call
 * that writes runs, not before reads. strace is provisioned by scripts/provision-debian.sh; without it this fails.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

const N = 12;

/** fsync/fdatasync calls in each phase the child announced, from strace's log. */
function barriersPerPhase(log: string): Record<string, number> {
  const counts: Record<string, number> = {};
  let phase = 'open';
  for (const line of log.split('\n')) {
    const mark = /write\(2, "PHASE (\w+)\\n"/.exec(line);
    if (mark) {
      phase = mark[1]!;
      continue;
    }
    // A call another thread interrupted is logged as "<unfinished ...>" and later "resumed": count it once.
    if (/\b(fsync|fdatasync)\(/.test(line) && !/resumed>/.test(line)) counts[phase] = (counts[phase] ?? 0) + 1;
  }
  return counts;
}

describe('write barriers per commit kind, counted with strace', () => {
  it('a full commit syncs, a commit without an fsync does not, store.sync() syncs once and only when something waits', () => {
    const probe = spawnSync('strace', ['-V'], { encoding: 'utf8' });
    if (probe.error) throw new Error(`strace is needed to count the store's fsyncs (${probe.error.message}); install it: apt-get install strace (scripts/provision-debian.sh does)`);
    const dataDir = tempDir('deskhand-fsync-');
    const log = join(tempDir('deskhand-strace-'), 'trace.txt');
    const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=fsync,fdatasync,write', '-e', 'signal=none', '-o', log, process.execPath, '--import', 'tsx', resolve(__dirname, '../support/fsync-count-main.ts'), dataDir, String(N)], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const counts = barriersPerPhase(readFileSync(log, 'utf8'));
    // Every phase was seen (the log was split as the child announced it).
    expect(r.stderr).toMatch(/PHASE full[\s\S]*PHASE without[\s\S]*PHASE sync[\s\S]*PHASE idle[\s\S]*PHASE after[\s\S]*PHASE aftertx[\s\S]*PHASE end/);
    expect(counts.full ?? 0).toBeGreaterThanOrEqual(N);
    expect(counts.without ?? 0).toBe(0);
    expect(counts.sync ?? 0).toBe(N);
    expect(counts.idle ?? 0).toBe(0);
    expect(counts.after ?? 0).toBeGreaterThanOrEqual(N);
    expect(counts.aftertx ?? 0).toBeGreaterThanOrEqual(N);
  }, 150_000);
});

describe('a map of foreground subagents, counted with strace', () => {
  it('syncs per map, not per child: a child\'s run start and end and its row\'s end are synced by the parent\'s call result', () => {
    const n = 8;
    const dataDir = tempDir('deskhand-fsync-map-');
    const work = tempDir('deskhand-fsync-map-work-');
    const log = join(tempDir('deskhand-strace-'), 'trace.txt');
    const r = spawnSync('strace', ['-f', '-qq', '-e', 'trace=fsync,fdatasync,write', '-e', 'signal=none', '-o', log, process.execPath, '--import', 'tsx', resolve(__dirname, '../support/fsync-map-main.ts'), dataDir, work, String(n)], { encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { status: string; children: string[]; result: string | null };
    // Every child ran and ended, and the parent's call result reports each one.
    expect(out.status).toBe('finished');
    expect(out.children).toEqual(Array.from({ length: n }, () => 'finished'));
    for (let i = 0; i < n; i++) expect(out.result).toContain(`ok ${i}`);
    const counts = barriersPerPhase(readFileSync(log, 'utf8'));
    expect(r.stderr).toMatch(/PHASE map[\s\S]*PHASE end/);
    // Three full commits per child before (its run's start, its run's end, its row's end): at least 3n. Now the
    // parent's own commits (its message, the sync before the map acts, the children's rows, the result, its end).
    expect(counts.map ?? 0).toBeGreaterThan(0);
    expect(counts.map ?? 0).toBeLessThan(n);
  }, 150_000);
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
