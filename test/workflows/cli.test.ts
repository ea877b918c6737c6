/**
 * `deskhand workflows list|show|cancel`, run in-process on the same data dir as a live runtime (its own store
 * connection, as another process would have): the list and show read the run, and a cancel written by the command
 * is noticed by the runtime, which stops the script and its child.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { workflowsCommand } from '../../src/main/host/cli/workflows';
import { workflowsModule } from '../../src/main/services/store/modules/workflows';
import { reply, type ReplyInput } from '../support/model-server';
import { firstUser, openSubHarness, type SubHarness } from '../subagents/harness';

let h: SubHarness;
afterEach(async () => {
  vi.restoreAllMocks();
  await h?.close();
});

async function cli(args: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    const code = await workflowsCommand(args);
    return { code, out };
  } finally {
    spy.mockRestore();
  }
}

async function until<T>(what: () => T | undefined | null | false, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('deskhand workflows', () => {
  it('lists and shows a running workflow with its phase and progress, and cancels it from another connection', async () => {
    h = await openSubHarness();
    const script = `await phase('Gather', async () => { progress('asking one agent'); return agent('CHILD hang', { description: 'gather' }); }); return 'no';`;
    const parent: ReplyInput[] = [reply().tool('workflow', { script, args: 'x' }), reply().text('started')];
    h.server.setFallback((req) => (firstUser(req).includes('CHILD') ? reply().hang() : (parent.shift() ?? { status: 500, message: 'none' })));
    const conv = h.runtime.createConversation({ folder: h.work, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['workflows', 'subagents'], true); // loaded from the first request, as a person enabling them would
    await h.runtime.sendMessage(conv.id, 'go', { provider: h.provider(), interactive: false });
    const rows = h.store.module(workflowsModule);
    const [wf] = rows.forConversation(conv.id);
    await until(() => h.runtime.subagents.list(conv.id)[0]?.status === 'running');

    const list = await cli(['list', '--data-dir', h.dataDir]);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(new RegExp(`${wf!.id}  running .* inline .* 1 agents .* phase Gather \\(asking one agent\\)`));
    const show = await cli(['show', wf!.id, '--data-dir', h.dataDir]);
    expect(show.out).toContain('phase Gather [running]');
    expect(show.out).toMatch(/phase +Gather\n.*progress +asking one agent/);
    expect(show.out).toContain(`task ${wf!.task_id}  args x`);

    const cancel = await cli(['cancel', wf!.id, '--data-dir', h.dataDir, '--reason', 'not needed']);
    expect(cancel.out).toContain(`${wf!.id} cancelled`);
    // The runtime's process notices and stops the child it started.
    const child = await until(() => {
      const c = h.runtime.subagents.list(conv.id)[0]!;
      return c.status === 'cancelled' ? c : null;
    });
    expect(child.error).toMatch(/its workflow stopped: not needed/);
    expect(rows.get(wf!.id)).toMatchObject({ status: 'cancelled', error: 'not needed' });
    expect(h.store.tasks.getTask(wf!.task_id!)!.status).toBe('cancelled');
    expect((await cli(['cancel', wf!.id, '--data-dir', h.dataDir])).out).toContain('already cancelled');
    await expect(workflowsCommand(['show', 'wf_nope', '--data-dir', h.dataDir])).rejects.toThrow(/workflows show needs a workflow id/);
  });
});
