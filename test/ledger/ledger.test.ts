/**
 * The change ledger on its own (services/ledger, docs/rewind.md), over a real store and real temp folders: what a
 * step changed, by kind (modes and links included); rewinding it byte for byte; what is never touched (`.git`) or
 * never kept (ignored folders, files over the cap); a process killed with SIGKILL mid-step and several processes on
 * one data folder leave a ledger whose changes chain exactly (each path's next change starts where the last ended)
 * and rewind the tree to its first state.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeLedger, type ChangeSet } from '../../src/main/services/ledger';
import { ledgerModule } from '../../src/main/services/store/modules/ledger';
import { Store } from '../../src/main/services/store/store';
import { tempDir } from '../support/tool-context';

const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) if (s.isOpen) s.close();
});

let watching = true;

function open(dataDir = tempDir('deskhand-ledger-data-'), maxFileBytes?: number): { store: Store; ledger: ChangeLedger; dataDir: string } {
  const store = new Store(dataDir);
  stores.push(store);
  return { store, ledger: new ChangeLedger(store, dataDir, { watch: watching, ...(maxFileBytes ? { maxFileBytes } : {}) }), dataDir };
}

/** Every path under `root` with its bytes (or link target) and mode, `.git` included. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const abs = join(dir, name);
      const st = lstatSync(abs);
      const rel = abs.slice(root.length + 1);
      if (st.isSymbolicLink()) out[rel] = `link:${readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        out[rel] = `dir:${(st.mode & 0o7777).toString(8)}`;
        walk(abs);
      } else out[rel] = `file:${(st.mode & 0o7777).toString(8)}:${readFileSync(abs).toString('base64')}`;
    }
  };
  walk(root);
  return out;
}

const scope = (root: string, runId = 'run_1') => ({ conversationId: 'conv_1', runId, roots: [root] });

/** Each path's changes, in order, start where the one before ended (nothing lost, nothing counted twice). */
function expectChained(store: Store): void {
  const q = store.module(ledgerModule);
  const last = new Map<string, string | null>();
  for (const set of q.allSets()) {
    for (const c of q.changesOf(set.id)) {
      const strip = (s: string | null) => (s ? JSON.stringify({ ...(JSON.parse(s) as object), mtime: 0 }) : null);
      if (last.has(c.path)) expect(strip(c.before), `${c.path} in ${set.id}`).toBe(last.get(c.path));
      last.set(c.path, strip(c.after));
    }
  }
}

describe.each([
  ['with folder watchers', true],
  ['scanning whole roots', false],
])('change ledger (%s)', (_name, watch) => {
  beforeEach(() => {
    watching = watch;
  });
  it('records created, modified, deleted, mode and link changes of one step and rewinds them byte for byte; redo brings them back', async () => {
    const { ledger } = open();
    const root = tempDir('deskhand-ledger-work-');
    writeFileSync(join(root, 'a.txt'), 'one\n');
    writeFileSync(join(root, 'b.sh'), '#!/bin/sh\n');
    writeFileSync(join(root, 'gone.bin'), Buffer.from([0, 255, 1]));
    chmodSync(join(root, 'gone.bin'), 0o640);
    symlinkSync('a.txt', join(root, 'link'));
    mkdirSync(join(root, 'dir'));
    writeFileSync(join(root, 'dir', 'inner.txt'), 'inner\n');
    const before = snapshot(root);

    const after = await ledger.beginStep(scope(root));
    writeFileSync(join(root, 'a.txt'), 'two\n');
    chmodSync(join(root, 'b.sh'), 0o755);
    rmSync(join(root, 'gone.bin'));
    rmSync(join(root, 'link'));
    symlinkSync('b.sh', join(root, 'link'));
    rmSync(join(root, 'dir'), { recursive: true });
    mkdirSync(join(root, 'new', 'deep'), { recursive: true });
    writeFileSync(join(root, 'new', 'deep', 'c.txt'), 'c\n');
    await after();
    const changed = snapshot(root);

    const sets = ledger.setsOf('conv_1');
    expect(sets).toHaveLength(1);
    const kinds = Object.fromEntries(sets[0]!.changes.map((c) => [c.path.slice(root.length + 1), c.kind]));
    expect(kinds).toEqual({ 'a.txt': 'modified', 'b.sh': 'mode', 'gone.bin': 'deleted', link: 'modified', dir: 'deleted', 'dir/inner.txt': 'deleted', new: 'created', 'new/deep': 'created', 'new/deep/c.txt': 'created' });

    const dry = await ledger.rewind('conv_1', sets, { dryRun: true, note: null, roots: [root] });
    expect(dry.items).toHaveLength(9);
    expect(snapshot(root)).toEqual(changed);

    const result = await ledger.rewind('conv_1', sets, { dryRun: false, note: null, roots: [root] });
    expect(result.items.every((i) => ['restored', 'removed', 'recreated'].includes(i.action)), JSON.stringify(result.items)).toBe(true);
    expect(snapshot(root)).toEqual(before);

    const rewindSet = ledger.getSet(result.setId!)!;
    await ledger.rewind('conv_1', [rewindSet], { dryRun: false, note: null, roots: [root] });
    expect(snapshot(root)).toEqual(changed);
  });

  it('keeps a file changed since by someone else and names it; the rest is rewound', async () => {
    const { ledger } = open();
    const root = tempDir('deskhand-ledger-work-');
    writeFileSync(join(root, 'mine.txt'), 'agent before\n');
    writeFileSync(join(root, 'theirs.txt'), 'before\n');
    await (await ledger.beginStep(scope(root)))();
    const after = await ledger.beginStep(scope(root));
    writeFileSync(join(root, 'mine.txt'), 'agent after\n');
    writeFileSync(join(root, 'theirs.txt'), 'agent wrote\n');
    await after();
    writeFileSync(join(root, 'theirs.txt'), 'the person wrote\n');
    const result = await ledger.rewind('conv_1', ledger.setsOf('conv_1'), { dryRun: false, note: null, roots: [root] });
    expect(Object.fromEntries(result.items.map((i) => [i.path.slice(root.length + 1), i.action]))).toEqual({ 'mine.txt': 'restored', 'theirs.txt': 'kept' });
    expect(readFileSync(join(root, 'mine.txt'), 'utf8')).toBe('agent before\n');
    expect(readFileSync(join(root, 'theirs.txt'), 'utf8')).toBe('the person wrote\n');
  });

  it('never reads or restores .git; lists an ignored folder as changed, not kept; names a file over the cap as not restorable', async () => {
    const { ledger, store } = open(undefined, 64);
    const root = tempDir('deskhand-ledger-work-');
    mkdirSync(join(root, '.git', 'refs'), { recursive: true });
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(root, '.gitignore'), 'build/\n');
    mkdirSync(join(root, 'node_modules', 'pkg'), { recursive: true });
    mkdirSync(join(root, 'build'));
    writeFileSync(join(root, 'big.dat'), 'x'.repeat(100));
    await (await ledger.beginStep(scope(root)))();
    expect(store.module(ledgerModule).files(root).map((r) => r.rel).sort()).toEqual(['.gitignore', 'big.dat', 'build', 'node_modules']);

    const after = await ledger.beginStep(scope(root));
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/other\n');
    writeFileSync(join(root, 'node_modules', 'added.js'), 'x');
    writeFileSync(join(root, 'build', 'out.o'), 'x');
    writeFileSync(join(root, 'big.dat'), 'y'.repeat(100));
    await after();
    const set = ledger.setsOf('conv_1')[0]!;
    const byPath = Object.fromEntries(set.changes.map((c) => [c.path.slice(root.length + 1), c]));
    expect(Object.keys(byPath).sort()).toEqual(['big.dat', 'build', 'node_modules']);
    expect(byPath['node_modules']!.after!.type).toBe('ignored');
    expect(byPath['big.dat']!.restorable).toBe(false);
    const result = await ledger.rewind('conv_1', [set], { dryRun: false, note: null, roots: [root] });
    expect(result.items.map((i) => i.action)).toEqual(['not-restorable', 'not-restorable', 'not-restorable']);
    expect(readFileSync(join(root, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/other\n');
    expect(readFileSync(join(root, 'big.dat'), 'utf8')).toBe('y'.repeat(100));
  });

  it('attributes a change seen before a step to the run between two of its steps, and to nobody before its first', async () => {
    const { ledger } = open();
    const root = tempDir('deskhand-ledger-work-');
    await (await ledger.beginStep(scope(root, 'run_a')))();
    writeFileSync(join(root, 'background.txt'), 'from a job\n');
    await (await ledger.beginStep(scope(root, 'run_a')))();
    writeFileSync(join(root, 'person.txt'), 'from the person\n');
    await (await ledger.beginStep(scope(root, 'run_b')))();
    const sets: ChangeSet[] = ledger.setsOf('conv_1');
    expect(sets.map((s) => [s.source, s.runId, s.changes.map((c) => c.path.slice(root.length + 1))])).toEqual([['between', 'run_a', ['background.txt']]]);
  });

  it('prunes change sets by age and size and deletes the blobs nothing references', async () => {
    const { ledger } = open();
    const root = tempDir('deskhand-ledger-work-');
    writeFileSync(join(root, 'f.txt'), 'v0'.repeat(1000));
    await (await ledger.beginStep(scope(root)))();
    for (let i = 1; i <= 3; i++) {
      const after = await ledger.beginStep(scope(root));
      writeFileSync(join(root, 'f.txt'), `v${i}`.repeat(1000));
      await after();
    }
    expect(ledger.setsOf('conv_1')).toHaveLength(3);
    const pruned = ledger.prune({ maxBytes: 1, maxAgeMs: 3_600_000, graceMs: 0 });
    expect(pruned.setsDropped).toBe(3);
    expect(ledger.setsOf('conv_1')).toHaveLength(0);
    // Only the current bytes (the cache's) stay: the next change can still be taken back.
    expect(pruned.keptBytes).toBe(2000);
    const after = await ledger.beginStep(scope(root));
    writeFileSync(join(root, 'f.txt'), 'v9');
    await after();
    await ledger.rewind('conv_1', ledger.setsOf('conv_1'), { dryRun: false, note: null, roots: [root] });
    expect(readFileSync(join(root, 'f.txt'), 'utf8')).toBe('v3'.repeat(1000));
  });
});

describe('change ledger: folder watchers and whole scans agree', () => {
  it('records the same paths and kinds, step after step, for random changes across folders', async () => {
    const root = tempDir('deskhand-ledger-work-');
    watching = true;
    const watched = open();
    watching = false;
    const scanned = open();
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const dirs = ['', 'a', 'a/b', 'c'];
    for (const d of dirs) mkdirSync(join(root, d), { recursive: true });
    for (let step = 0; step < 40; step++) {
      const runId = `run_${step}`;
      const afterW = await watched.ledger.beginStep(scope(root, runId));
      const afterS = await scanned.ledger.beginStep(scope(root, runId));
      for (let k = 0; k < 3; k++) {
        const d = join(root, dirs[rand(dirs.length)]!);
        if (!existsSync(d)) mkdirSync(d, { recursive: true });
        const f = join(d, `f${rand(4)}.txt`);
        switch (rand(6)) {
          case 0:
          case 1:
            writeFileSync(f, `step ${step} ${k}\n`);
            break;
          case 2:
            rmSync(f, { force: true });
            break;
          case 3:
            if (existsSync(f)) chmodSync(f, rand(2) ? 0o755 : 0o644);
            break;
          case 4:
            mkdirSync(join(d, `new${step}`, 'deep'), { recursive: true });
            writeFileSync(join(d, `new${step}`, 'deep', 'x.txt'), 'x');
            break;
          default:
            if (d !== root && rand(3) === 0) rmSync(d, { recursive: true, force: true });
        }
      }
      await afterW();
      await afterS();
      const seen = (l: ChangeLedger) =>
        l
          .setsOf('conv_1')
          .filter((s) => s.runId === runId)
          .flatMap((s) => s.changes.map((c) => `${c.kind} ${c.path.slice(root.length)}`))
          .sort();
      expect(seen(watched.ledger), `step ${step}`).toEqual(seen(scanned.ledger));
    }
    watched.ledger.close();
  }, 60_000);
});

function child(dataDir: string, root: string, name: string, steps?: number) {
  const proc = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, 'ledger-child-main.ts'), dataDir, root, name, ...(steps ? [String(steps)] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  proc.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: string | null; err: string }>((res) => proc.on('close', (code, signal) => res({ code, signal, err })));
  const printed = (line: string) =>
    new Promise<void>((res, rej) => {
      const t = setInterval(() => {
        if (!out.split('\n').includes(line)) return;
        clearInterval(t);
        res();
      }, 20);
      void exited.then((e) => {
        clearInterval(t);
        if (out.split('\n').includes(line)) res();
        else rej(new Error(`child ended (${e.code ?? e.signal}): ${e.err}`));
      });
    });
  return { proc, printed, exited };
}

describe('change ledger across processes', () => {
  it('a process killed with SIGKILL mid-step leaves a ledger that chains, and rewinding everything restores the first tree', async () => {
    const dataDir = tempDir('deskhand-ledger-data-');
    const root = tempDir('deskhand-ledger-work-');
    writeFileSync(join(root, 'shared.txt'), 'original\n');
    const first = snapshot(root);
    const { ledger, store } = open(dataDir);
    await (await ledger.beginStep(scope(root, 'run_parent')))();
    const c = child(dataDir, root, 'killed');
    await c.printed('scanning');
    await new Promise((r) => setTimeout(r, 400 + Math.random() * 400));
    c.proc.kill('SIGKILL');
    expect((await c.exited).signal).toBe('SIGKILL');
    // A scan now records whatever the killed step left (as found outside any step), then everything rewinds.
    await (await ledger.beginStep(scope(root, 'run_parent')))();
    expectChained(store);
    const all = store.module(ledgerModule).allSets().map((s) => ledger.getSet(s.id)!);
    const result = await ledger.rewind('conv_1', all, { dryRun: false, note: null, roots: [root] });
    expect(result.items.filter((i) => i.action === 'kept' || i.action === 'not-restorable')).toEqual([]);
    expect(snapshot(root)).toEqual(first);
  }, 60_000);

  it('two processes scanning one root at once record every change once', async () => {
    const dataDir = tempDir('deskhand-ledger-data-');
    const root = tempDir('deskhand-ledger-work-');
    writeFileSync(join(root, 'shared.txt'), 'original\n');
    const first = snapshot(root);
    const { ledger, store } = open(dataDir);
    await (await ledger.beginStep(scope(root, 'run_parent')))();
    const a = child(dataDir, root, 'one', 40);
    const b = child(dataDir, root, 'two', 40);
    const [ea, eb] = await Promise.all([a.exited, b.exited]);
    expect([ea.code, eb.code], ea.err + eb.err).toEqual([0, 0]);
    await (await ledger.beginStep(scope(root, 'run_parent')))();
    expectChained(store);
    const all = store.module(ledgerModule).allSets().map((s) => ledger.getSet(s.id)!);
    await ledger.rewind('conv_1', all, { dryRun: false, note: null, roots: [root] });
    expect(snapshot(root)).toEqual(first);
    expect(existsSync(join(root, 'one'))).toBe(false);
    expect(statSync(root).isDirectory()).toBe(true);
  }, 120_000);
});
