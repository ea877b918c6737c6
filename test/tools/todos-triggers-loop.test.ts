/**
 * Spec II's list reads through the real loop and the scripted model server: `manage_todos` without `todos` returns
 * the list and changes nothing; `list_triggers` gives each trigger's schedule in words, whether it recurs, and marks
 * a recurring trigger past its 7 days as stale. What is asserted is the tool result the model received next.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { describeCron } from '../../src/main/services/scheduler';
import { providerFor, toolResultsOf } from '../memory/helpers';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { rawRun } from '../support/raw-db';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
let work: string;

beforeEach(async () => {
  process.env.DESKHAND_OS_SCHEDULER = 'none';
  server = await startModelServer();
  store = new Store(tempDir('deskhand-data-'));
  work = tempDir('deskhand-work-');
  runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, retryBaseMs: 10, maxRetries: 0 });
});

afterEach(async () => {
  for (const row of runtime.schedules.list({ live: true })) await runtime.schedules.cancel(row.id);
  await runtime.tasks.shutdown();
  store.close();
  await server.close();
  delete process.env.DESKHAND_OS_SCHEDULER;
});

const send = (conversationId: string, text: string) => runtime.sendMessage(conversationId, text, { provider: providerFor(server.baseURL), interactive: false });
/** What the model was told for call `id` (in the request after the call). */
const resultOf = (id: string): string => {
  for (const req of server.requests) {
    const r = toolResultsOf(req).get(id);
    if (r !== undefined) return r;
  }
  throw new Error(`no result for ${id}`);
};

describe('manage_todos without todos', () => {
  it('returns the current list and leaves it (and the UI) as it was', async () => {
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(
      reply().tool('manage_todos', { todos: [{ title: 'read the spec', status: 'done' }, { title: 'write the code', status: 'in_progress', priority: 'high' }] }, { id: 'set' }),
      reply().tool('manage_todos', {}, { id: 'read' }),
      reply().tool('manage_todos', { todos: [] }, { id: 'clear' }),
      reply().tool('manage_todos', {}, { id: 'empty' }),
      reply().text('done'),
    );
    expect((await send(conv.id, 'plan it')).status).toBe('finished');
    expect(resultOf('read')).toContain('1/2 done\n[x] t1: read the spec\n[~] t2: write the code (high)');
    expect(resultOf('empty')).toContain('The todo list is empty.');
    const calls = store.toolCallsForConversation(conv.id);
    expect(calls.map((c) => c.is_error)).toEqual([0, 0, 0, 0]);
  });

  it('a read does not replace the list', async () => {
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().tool('manage_todos', { todos: [{ title: 'only item', status: 'pending' }] }), reply().tool('manage_todos', {}), reply().text('ok'));
    await send(conv.id, 'go');
    expect(JSON.parse(store.getConversation(conv.id)!.state).todos).toEqual([{ id: 't1', title: 'only item', status: 'pending' }]);
  });
});

describe('list_triggers', () => {
  it('shows the schedule in words, whether it recurs, soonest first, and marks a recurring one past its 7 days stale', async () => {
    const conv = runtime.createConversation({ folder: work, policy: 'low-risk' });
    server.enqueue(
      reply().tool('register_trigger', { cron: '0 9 * * 1-5', prompt: 'daily report' }, { id: 'r1' }),
      reply().tool('register_trigger', { when: '30m', prompt: 'check the build' }, { id: 'r2' }),
      reply().tool('register_trigger', { cron: '*/15 * * * *', prompt: 'poll the queue' }, { id: 'r3' }),
      reply().text('scheduled'),
    );
    await send(conv.id, 'schedule things');
    expect(resultOf('r1')).toMatch(/Schedule: every weekday \(Monday to Friday\) at 09:00 \([\w/+-]+\)\./);
    const [poll] = runtime.schedules.list({ kind: 'trigger', conversationId: conv.id, live: true }).filter((r) => r.text === 'poll the queue');
    // The poll trigger was made eight days ago and never renewed: it is stale.
    const eightDays = 8 * 86_400_000;
    rawRun(store.dataDir, 'UPDATE schedules SET renewed_at = renewed_at - ?, created_at = created_at - ?, expires_at = expires_at - ? WHERE id = ?', eightDays, eightDays, eightDays, poll!.id);

    server.enqueue(reply().tool('list_triggers', {}, { id: 'list' }), reply().text('listed'));
    await send(conv.id, 'what is scheduled?');
    const records = resultOf('list').split('\n---\n');
    expect(records).toHaveLength(3);
    const byPrompt = (p: string) => records.find((r) => r.includes(`prompt: ${p}`))!;
    expect(byPrompt('daily report')).toMatch(/schedule: every weekday \(Monday to Friday\) at 09:00 /);
    expect(byPrompt('daily report')).toContain('cron: 0 9 * * 1-5');
    expect(byPrompt('daily report')).toContain('recurring: yes');
    expect(byPrompt('daily report')).toContain('stale: no');
    expect(byPrompt('check the build')).toMatch(/schedule: once, /);
    expect(byPrompt('check the build')).toContain('recurring: no (one-shot: deleted after it fires)');
    expect(byPrompt('check the build')).not.toContain('cron:');
    expect(byPrompt('poll the queue')).toMatch(/schedule: every 15 minutes /);
    expect(byPrompt('poll the queue')).toContain('age: 8 d');
    expect(byPrompt('poll the queue')).toMatch(/stale: yes: over its 7 days, its next fire is its last/);
    // Soonest first: the 15-minute poll, then the 30-minute one-shot, then the weekday report.
    const next = records.map((r) => Date.parse(/next: (\S+)/.exec(r)![1]!));
    expect([...next].sort((a, b) => a - b)).toEqual(next);
  });
});

describe('cron in words', () => {
  it.each([
    ['* * * * *', 'every minute'],
    ['*/5 * * * *', 'every 5 minutes'],
    ['0 * * * *', 'every hour, on the hour'],
    ['7 * * * *', 'every hour at 07 past'],
    ['30 */2 * * *', 'every 2 hours at :30'],
    ['0 9 * * *', 'every day at 09:00'],
    ['0 9,17 * * *', 'every day at 09:00 and 17:00'],
    ['0 9 * * 1-5', 'every weekday (Monday to Friday) at 09:00'],
    ['0 9 * * MON-FRI', 'every weekday (Monday to Friday) at 09:00'],
    ['0 10 * * 0,6', 'every Saturday and Sunday at 10:00'],
    ['15 8 * * 1,3', 'every Monday and Wednesday at 08:15'],
    ['0 20 * * 7', 'every Sunday at 20:00'],
    ['0 0 1 * *', 'on the 1st of every month at 00:00'],
    ['0 12 1,15 * *', 'on the 1st and 15th of every month at 12:00'],
    ['0 6 25 12 *', 'every year on the 25th of December at 06:00'],
    ['0-10 9 * * *', 'at minute 0-10 of hour 9'],
    ['0 9 L * *', 'at minute 0 of hour 9 on day-of-month L'],
    ['0 9 1 * 1', 'at minute 0 of hour 9 on day-of-month 1 on day-of-week 1 (0 = Sunday)'],
  ])('%s → %s', (expr, words) => {
    expect(describeCron(expr)).toBe(words);
  });
});
