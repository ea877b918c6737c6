/**
 * Scheduling in the desktop app on the fake Electron: the tray lists upcoming reminders (snooze, dismiss) and
 * scheduled prompts (run now, pause/resume), "Stop all runs" stops a running run, and the in-app ticker rings a due
 * reminder that no OS job holds as a native notification whose click opens its conversation and whose buttons
 * (Snooze, Dismiss) act, and a second launch with `--open-schedule` opens a reminder's conversation. The OS scheduler is off here
 * (DESKHAND_OS_SCHEDULER=none): the real atd is exercised in test/schedule/.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { until } from '../support/tasks';
import { launch, quitApp } from './harness';
import { fake } from './fake-electron';

let server: ModelServer;

beforeEach(async () => {
  process.env.DESKHAND_OS_SCHEDULER = 'none';
  process.env.DESKHAND_SCHEDULE_TICK_MS = '200';
  server = await startModelServer();
});
afterEach(async () => {
  if (fake.exitCode === null) await quitApp();
  await server.close();
  delete process.env.DESKHAND_OS_SCHEDULER;
  delete process.env.DESKHAND_SCHEDULE_TICK_MS;
});

const labels = () => fake.trays[0]!.menu!.items.map((i) => (i.type === 'separator' ? '—' : `${i.label}${i.enabled ? '' : ' (disabled)'}`));

describe('the schedule in the tray', () => {
  it('shows reminders and scheduled prompts; snooze, dismiss, run now, pause, resume and stop all runs work', async () => {
    const app = await launch({ modelUrl: server.baseURL });
    const api = await app.api();
    const c = await api.createConversation({ folder: app.work, policy: 'low-risk', title: 'plans' });
    server.enqueue(
      reply().tool('add_reminder', { when: '1h', text: 'Water the plants' }).tool('register_trigger', { when: '2h', prompt: 'TRAY-RUN-1 summarize the day' }),
      reply().text('Both set.'),
    );
    await api.sendMessage({ conversationId: c.id, text: 'set them' });
    await until(() => labels().some((l) => /^Scheduled \w{3} \d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)? — TRAY-RUN-1 summarize the day \(disabled\)$/.test(l)), 'the trigger in the tray');
    expect(labels()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Reminder .* — Water the plants \(disabled\)$/),
        'Snooze 10 min: Water the plants',
        'Dismiss: Water the plants',
        'Run now: TRAY-RUN-1 summarize the day',
        'Pause: TRAY-RUN-1 summarize the day',
        'Stop all runs',
      ]),
    );
    const tray = fake.trays[0]!;
    // Read through the app's own view (the tray): a second SQLite copy in this process would not see its writes.
    const reminderTime = () => /^Reminder (.+) — Water the plants/.exec(labels().find((l) => l.startsWith('Reminder ')) ?? '')?.[1] ?? '';
    const before = reminderTime();
    tray.item('Snooze 10 min: Water the plants').click();
    await until(() => reminderTime() !== before, 'the snooze');
    expect(reminderTime() < before).toBe(true); // 10 minutes from now comes before 1 hour from now

    await until(async () => (await api.listConversations({})).conversations.find((x) => x.id === c.id)?.activity === 'idle', 'the first run to end');
    server.enqueue(reply().text('Today went fine.'));
    tray.item('Run now: TRAY-RUN-1 summarize the day').click();
    await until(() => server.requests.some((r) => JSON.stringify(r.body).includes('scheduled prompt trg_')), 'the woken run at the model');
    const ran = await until(() => fake.notifications.find((n) => n.title === 'A scheduled prompt ran'), 'the ran notification');
    expect(ran.body).not.toContain('TRAY-RUN-1'); // the prompt is not shown on the lock screen
    const messages = await api.getMessages({ conversationId: c.id });
    expect(JSON.stringify(messages)).toContain('Today went fine.');
    // Run now does not use up the one-shot: it still waits for its time.
    expect(labels()).toContain('Pause: TRAY-RUN-1 summarize the day');

    tray.item('Pause: TRAY-RUN-1 summarize the day').click();
    await until(() => labels().includes('Resume: TRAY-RUN-1 summarize the day'), 'Resume in the tray');
    expect(labels()).toContain('Scheduled (paused) — TRAY-RUN-1 summarize the day (disabled)');
    tray.item('Resume: TRAY-RUN-1 summarize the day').click();
    await until(() => labels().includes('Pause: TRAY-RUN-1 summarize the day'), 'resumed');

    tray.item('Dismiss: Water the plants').click();
    await until(() => !labels().some((l) => l.includes('Water the plants')), 'the reminder to leave the tray');

    // Stop all runs stops a run in progress.
    server.enqueue(reply().hang());
    const c2 = await api.createConversation({ folder: app.work, policy: 'low-risk', title: 'long' });
    await api.sendMessage({ conversationId: c2.id, text: 'take your time' });
    await until(async () => (await api.listConversations({})).conversations.find((x) => x.id === c2.id)?.activity === 'running', 'the run to start');
    tray.item('Stop all runs').click();
    await until(async () => (await api.listConversations({})).conversations.find((x) => x.id === c2.id)?.activity === 'idle', 'the run to stop');
  }, 60_000);

  it('the in-app ticker rings a due reminder no OS job holds; clicking the notification opens the window', async () => {
    const app = await launch({ modelUrl: server.baseURL });
    const api = await app.api();
    const c = await api.createConversation({ folder: app.work, policy: 'low-risk', title: 'soon' });
    server.enqueue(reply().tool('add_reminder', { when: '2s', text: 'Tea is ready' }), reply().text('Set.'));
    await api.sendMessage({ conversationId: c.id, text: 'remind me' });
    const n = await until(() => fake.notifications.find((x) => x.title === 'Reminder' && x.body === 'Tea is ready'), 'the reminder notification', 15_000);
    expect(n.shown).toBe(true);
    // Ticks every 200 ms here: the claimed fire rings once. A second reminder, set after it rang, is the positive
    // event: by the time it rings, the ticker has run many times past the first, which would have rung again.
    server.enqueue(reply().tool('add_reminder', { when: '1s', text: 'Biscuits too' }), reply().text('Set.'));
    await api.sendMessage({ conversationId: c.id, text: 'and another' });
    await until(() => fake.notifications.find((x) => x.title === 'Reminder' && x.body === 'Biscuits too'), 'the second reminder', 15_000);
    expect(fake.notifications.filter((x) => x.body === 'Tea is ready')).toHaveLength(1);
    const win = await app.window();
    const opened: unknown[] = [];
    const bridge = (await app.world()).mainWorld.deskhand as { on(e: string, l: (p: unknown) => void): () => void };
    bridge.on('openConversation', (p) => opened.push(p));
    win.close();
    expect(win.isVisible()).toBe(false);
    n.clickByPerson();
    // The click opens the window on the reminder's own conversation.
    await until(() => win.isVisible(), 'the window');
    await until(() => opened.length > 0, 'openConversation at the page');
    expect(opened).toEqual([{ conversationId: c.id }]);

    // The buttons (shown where the OS offers them) act through the schedule service: Snooze brings it back.
    const biscuits = fake.notifications.find((x) => x.body === 'Biscuits too')!;
    expect(biscuits.actions.map((a) => a.text)).toEqual(['Snooze 10 min', 'Snooze 1 h', 'Tomorrow 09:00', 'Dismiss']);
    expect(labels().some((l) => l.includes('Biscuits too'))).toBe(false);
    biscuits.pressByPerson('Snooze 10 min');
    await until(() => labels().includes('Snooze 10 min: Biscuits too'), 'the snoozed reminder back in the tray');
    const tea = fake.notifications.find((x) => x.body === 'Tea is ready')!;
    tea.pressByPerson('Snooze 1 h');
    await until(() => labels().includes('Dismiss: Tea is ready'), 'the second snoozed reminder in the tray');
    // Dismiss from a notification ends what is left of it.
    tea.pressByPerson('Dismiss');
    await until(() => !labels().some((l) => l.includes('Tea is ready')), 'the dismissed reminder to leave the tray');
  }, 30_000);

  it('a second launch with --open-schedule (a click on a reminder rung with the app closed) opens its conversation', async () => {
    const app = await launch({ modelUrl: server.baseURL });
    const api = await app.api();
    const c = await api.createConversation({ folder: app.work, policy: 'low-risk', title: 'later' });
    server.enqueue(reply().tool('add_reminder', { when: '1h', text: 'Call back' }), reply().text('Set.'));
    await api.sendMessage({ conversationId: c.id, text: 'remind me' });
    const rem = await until(async () => (await api.schedule({ action: 'list' })).items.find((i) => i.text === 'Call back'), 'the reminder');
    const opened: unknown[] = [];
    const bridge = (await app.world()).mainWorld.deskhand as { on(e: string, l: (p: unknown) => void): () => void };
    bridge.on('openConversation', (p) => opened.push(p));
    const win = await app.window();
    win.close();
    fake.secondInstance(['deskhand', `--open-schedule=${rem.id}`]);
    expect(win.isVisible()).toBe(true);
    await until(() => opened.length > 0, 'openConversation at the page');
    expect(opened).toEqual([{ conversationId: c.id }]);
    // An id that is not a schedule id is not followed.
    fake.secondInstance(['deskhand', '--open-schedule=../../etc']);
    expect(opened).toHaveLength(1);
  }, 30_000);
});
