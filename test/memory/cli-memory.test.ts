/**
 * `deskhand memory list|show|rm|accept|export` and `deskhand goals list|show` on the built binary against a real data
 * dir: what the person sees of records, receipts and goals, and that rm and accept leave receipts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/main/services/store/store';
import { StoreMemoryService } from '../../src/main/services/memory/memory-service';
import { StoreGoalService } from '../../src/main/services/goals/goal-service';
import { requireBuild, runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';

beforeAll(() => requireBuild());

describe('deskhand memory', () => {
  it('lists, shows with receipts, accepts, removes and exports', { timeout: 180_000 }, async () => {
    const dataDir = tempDir('deskhand-data-');
    const work = tempDir('deskhand-work-');
    const store = new Store(dataDir);
    const memory = new StoreMemoryService(store);
    const active = memory.add({ scope: 'user', topic: 'editor', body: 'Uses vim.', quote: 'I use vim' }, { folder: work, actor: 'test' }).record;
    const proposed = memory.add({ scope: 'workspace', topic: 'tests', body: 'Run vitest.', quote: 'run vitest' }, { folder: work, actor: 'extraction', status: 'proposed', source: 'extraction' }).record;
    const conv = store.createConversation({ id: 'conv_cli', title: 't', folder: work, policy: 'read-only' });
    new StoreGoalService(store).create(conv.id, { objective: 'Ship it', criteria: ['tests pass'], budget: { turns: 3 } });
    store.close();
    const d = ['--data-dir', dataDir];

    const list = await runCli(['memory', 'list', ...d]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${active.id}\\s+memory\\s+user\\s+active\\s+editor`));
    expect(list.stdout).toMatch(new RegExp(`${proposed.id}\\s+memory\\s+workspace\\s+proposed\\s+tests`));
    expect((await runCli(['memory', 'list', '--status', 'proposed', ...d])).stdout).not.toContain(active.id);

    const accepted = await runCli(['memory', 'accept', proposed.id, ...d]);
    expect(accepted.stdout).toContain(`Accepted ${proposed.id}`);
    const removed = await runCli(['memory', 'rm', active.id, ...d]);
    expect(removed.stdout).toMatch(/Removed mem_\w+ \(receipt rcpt_\w+\)\.\n--- before\n\+\+\+ \/dev\/null/);
    const show = await runCli(['memory', 'show', active.id, ...d]);
    expect(show.stdout).toContain(`${active.id} was removed.`);
    expect(show.stdout).toMatch(/add by test[\s\S]*remove by person \(deskhand memory\)/);

    const exported = JSON.parse((await runCli(['memory', 'export', '--json', ...d])).stdout) as { records: { id: string; status: string; receipts: { action: string }[] }[] };
    expect(exported.records.map((r) => [r.id, r.status, r.receipts.map((x) => x.action)])).toEqual([[proposed.id, 'active', ['propose', 'accept']]]);

    const missing = await runCli(['memory', 'rm', 'mem_nope', ...d]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('No memory record mem_nope');

    const goals = await runCli(['goals', 'list', ...d]);
    expect(goals.stdout).toMatch(/goal_\w+\s+active\s+turns 0\/3\s+Ship it/);
  });
});
