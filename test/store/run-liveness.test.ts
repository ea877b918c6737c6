import { describe, expect, it } from 'vitest';
import { processStartTime, selfIdentity } from '../../src/main/services/processes/proc-info';
import { Store, runOwnerAlive } from '../../src/main/services/store/store';
import { rawGet, rawRun } from '../support/raw-db';
import { storeChild } from '../support/store-child';
import { tempDir } from '../support/tool-context';

type Owner = { owner_pid: number | null; owner_start: string | null };

describe('run liveness by pid and start time', () => {
  it('a run owned by another process is alive while that process runs, and not once it is gone', async () => {
    const dataDir = tempDir();
    const child = storeChild('own-run', dataDir, 'r_child');
    await child.printed('ready');
    const store = new Store(dataDir);
    const run = store.getRun('r_child')!;
    expect(run.owner_pid).toBe(child.proc.pid);
    expect(run.owner_start).toBe(processStartTime(child.proc.pid!));
    expect(runOwnerAlive(run)).toBe(true);
    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    expect(runOwnerAlive(store.getRun('r_child')!)).toBe(false);
    store.close();
  });

  it('a live process that got the owner pid later is not the owner', () => {
    const dataDir = tempDir();
    const store = new Store(dataDir);
    store.createConversation({ id: 'c', title: 't', folder: '/tmp', policy: 'none' });
    store.createRun({ id: 'r', conversation_id: 'c', policy: 'none', provider: 'openai', model: 'm', base_url: null });
    expect(runOwnerAlive(store.getRun('r')!)).toBe(true);
    // As a crashed owner leaves it when the kernel has since handed its pid to this (live) process.
    expect(rawRun(dataDir, "UPDATE runs SET owner_pid = ?, owner_start = 'earlier-process-start' WHERE id = 'r'", process.pid)).toBe(1);
    // Written through another connection in this same stretch of code: the store's reads share the stretch's snapshot
    // (Sql's read snapshot), so the stretch ends first, as it would before any later read of the real owner.
    store.settle();
    expect(runOwnerAlive(store.getRun('r')!)).toBe(false);
    store.close();
  });

  it('createRun, claimRun and updateRun keep owner_start with owner_pid', () => {
    const dataDir = tempDir();
    const store = new Store(dataDir);
    const me = selfIdentity();
    const owner = () => rawGet<Owner>(dataDir, "SELECT owner_pid, owner_start FROM runs WHERE id = 'r'");
    store.createConversation({ id: 'c', title: 't', folder: '/tmp', policy: 'none' });
    expect(store.createRun({ id: 'r', conversation_id: 'c', policy: 'none', provider: 'openai', model: 'm', base_url: null })).toMatchObject({ owner_pid: me.pid, owner_start: me.start });
    expect(owner()).toEqual({ owner_pid: me.pid, owner_start: me.start });
    store.updateRun('r', { status: 'parked', owner_pid: null });
    expect(owner()).toEqual({ owner_pid: null, owner_start: null });
    expect(runOwnerAlive(store.getRun('r')!)).toBe(false);
    expect(store.claimRun('r', ['parked'])).toBe(true);
    expect(owner()).toEqual({ owner_pid: me.pid, owner_start: me.start });
    store.updateRun('r', { owner_pid: 1 });
    expect(owner()).toEqual({ owner_pid: 1, owner_start: null });
    store.updateRun('r', { owner_pid: process.pid });
    expect(owner()).toEqual({ owner_pid: me.pid, owner_start: me.start });
    store.close();
  });

  it('rows from before start times were recorded fall back to the pid', async () => {
    expect(runOwnerAlive({ owner_pid: process.pid, owner_start: null })).toBe(true);
    expect(runOwnerAlive({ owner_pid: null, owner_start: null })).toBe(false);
    const dataDir = tempDir();
    const child = storeChild('own-run', dataDir, 'r_old');
    await child.printed('ready');
    const pid = child.proc.pid!;
    child.proc.kill('SIGKILL');
    await child.exited;
    expect(runOwnerAlive({ owner_pid: pid, owner_start: null })).toBe(false);
  });
});
