/**
 * The contract's `schedule` method (the Settings → Schedule section) through the real dispatch: the list with next
 * fire times and what holds each, snooze, pause/resume, run now (the woken run reaches the model and its run id shows
 * in the fire history), cancel, and refusals for bad ids.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDispatch } from '../../src/main/host/app/dispatch';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let server: ModelServer;
let h: Harness;

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  process.env.DESKHAND_OS_SCHEDULER = 'none';
  process.env.DESKHAND_NOTIFY = 'off';
  h = openHarness({ dataDir: tempDir('deskhand-sched-host-'), override: { provider: 'openai-compatible', model: 'm', baseURL: server.baseURL, apiKey: null } });
});
afterEach(() => {
  h.close();
  delete process.env.DESKHAND_OS_SCHEDULER;
  delete process.env.DESKHAND_NOTIFY;
});

const call = async (params: unknown) => {
  const reply = await createDispatch(h.service, h.log)('schedule', params, { source: 'test', bytes: 10 });
  return reply;
};

describe('schedule (contract method)', () => {
  it('lists, snoozes, pauses, resumes, runs now and cancels', async () => {
    const conv = h.runtime.createConversation({ folder: tempDir('deskhand-sched-host-work-'), policy: 'low-risk' });
    h.store.createRun({ id: 'run_seed', conversation_id: conv.id, policy: 'low-risk', provider: 'openai-compatible', model: 'm', base_url: server.baseURL });
    h.store.updateRun('run_seed', { status: 'finished' });
    const rem = (await h.runtime.schedules.addReminder({ when: '1h', text: 'Call Ana', conversationId: conv.id })).row;
    const trg = (await h.runtime.schedules.registerTrigger({ cron: '0 9 * * *', prompt: 'HOST-RUN-3 morning check', conversationId: conv.id })).row;
    let r = await call({});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const listed = r.result as { items: { id: string; nextAtText: string; heldBy: string; status: string }[] };
    expect(listed.items.map((i) => i.id).sort()).toEqual([rem.id, trg.id].sort());
    expect(listed.items.find((i) => i.id === rem.id)!.nextAtText).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d/);
    expect(listed.items.find((i) => i.id === rem.id)!.heldBy).toMatch(/^Rings only while Deskhand runs/);

    r = await call({ action: 'snooze', id: rem.id, minutes: 5 });
    expect(r.ok && (r.result as { message: string }).message).toBe(`Snoozed ${rem.id} for 5 min.`);
    expect(Math.abs(h.runtime.schedules.get(rem.id)!.next_at! - Date.now() - 300_000)).toBeLessThan(5000);

    await call({ action: 'pause', id: trg.id });
    expect(h.runtime.schedules.get(trg.id)!.status).toBe('paused');
    await call({ action: 'resume', id: trg.id });
    expect(h.runtime.schedules.get(trg.id)!.status).toBe('active');

    server.enqueue(reply().text('All good this morning.'));
    r = await call({ action: 'runNow', id: trg.id });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('HOST-RUN-3 morning check');
    const fires = (r.ok ? r.result : { fires: [] }) as { fires: { scheduleId: string; status: string; runId: string | null; via: string }[] };
    expect(fires.fires[0]).toMatchObject({ scheduleId: trg.id, status: 'ran', via: 'now', runId: expect.stringMatching(/^run_/) });

    r = await call({ action: 'cancel', id: rem.id });
    expect(r.ok && (r.result as { message: string }).message).toBe(`Cancelled ${rem.id}.`);
    expect(h.runtime.schedules.get(rem.id)!.status).toBe('cancelled');

    r = await call({ action: 'cancel', id: 'rem_00000000' });
    expect(r).toMatchObject({ ok: false, error: { code: 'not_found' } });
    r = await call({ action: 'pause', id: '../etc' });
    expect(r).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringMatching(/Not a reminder or trigger id/) } });
    await h.runtime.schedules.cancel(trg.id);
  });
});
