/**
 * Background results continue their conversation: the real runtime and tools against the scripted model server, a
 * real store, real commands. A finished task wakes an idle conversation (the model sees the marked message), that
 * turn parks when it needs an approval, a result already reported by wait_tasks wakes nobody, and stopping a run
 * stops what it started.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskWakes, parseWakeMessage, wakeMessage } from '../../src/main/host/background/task-wakes';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { Store } from '../../src/main/services/store/store';
import { BackgroundTasks } from '../../src/main/services/tasks/background-tasks';
import type { RunOutcome } from '../../src/main/runtime/runtime';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { until } from '../support/tasks';
import { rawAll } from '../support/raw-db';

let server: ModelServer;
let store: Store;
let tasks: BackgroundTasks;
let runtime: AppRuntime;
let wakes: TaskWakes | null;
let work: string;
const outcomes: RunOutcome[] = [];

const provider = (): ProviderConfig => ({ provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' });

/** The text of the last user message the model received in a request. */
function lastUserText(req: RecordedRequest): string {
  if (req.protocol !== 'openai') return '';
  const users = req.body.messages.filter((m) => m.role === 'user');
  const content = users.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content);
}

beforeEach(async () => {
  server = await startModelServer();
  const dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
  store = new Store(dataDir);
  // Every family over real background tasks, as a host assembles them (no keyring: these tests use no secrets).
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 5_000 });
  tasks = runtime.tasks;
  wakes = null;
  outcomes.length = 0;
});

afterEach(async () => {
  await wakes?.stop();
  await tasks.shutdown();
  store.close();
  await server.close();
});

/**
 * The positive event that stands in for "nothing else was delivered": one more finished task, whose wake-up must be
 * the next request and carry only that task. A result delivered again (or late) would come before it or with it.
 * Returns the text of that request.
 */
let markers = 0;
async function nextWakeIsOnly(conversationId: string): Promise<string> {
  const before = server.requests.length;
  const id = `wait_marker${String(++markers).padStart(2, '0')}`;
  tasks.rows.insertTask({ id, conversation_id: conversationId, run_id: null, call_id: null, kind: 'wait_for', title: `marker ${id}`, spec: JSON.stringify({ command: 'true' }), background: 1, notify: 1, output_path: null, owner_pid: null, owner_start: null });
  tasks.rows.finishTask(id, 'finished', { exit_code: 0, summary: 'marker', progress: JSON.stringify({ checks: 1, lastExit: 0, lastOutput: '', identical: false, recent: [] }) });
  server.enqueue(reply().text('Marker seen.'));
  wakes!.schedule(); // now, rather than at the next poll
  await until(() => server.requests.length > before, 'the marker task to wake the conversation', 10_000);
  await wakes!.idle();
  expect(server.requests).toHaveLength(before + 1);
  const text = lastUserText(server.requests[before]!);
  expect(text).toContain(`marker ${id}`);
  expect(text.match(/\[(?:background task|wait_for) /g)).toHaveLength(1);
  return text;
}

function startWakes(): TaskWakes {
  wakes = new TaskWakes({ runtime, provider: () => provider(), onOutcome: (o) => outcomes.push(o), pollMs: 200 }).start();
  return wakes;
}

describe('wake-ups', () => {
  it('a task that ends while the conversation is idle starts a turn with its result', async () => {
    server.enqueue(reply().tool('execute_command', { command: 'sleep 0.6; echo background-result', run_in_background: true, description: 'slow echo' }), reply().text('Started it.'));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    const first = await runtime.sendMessage(conv.id, 'run it in the background', { provider: provider(), interactive: false });
    expect(first.status).toBe('finished');
    expect(server.requests).toHaveLength(2);

    server.enqueue(reply().text('The background echo printed its result.'));
    startWakes();
    await until(() => server.requests.length === 3, 'the wake-up request', 10_000);
    const text = lastUserText(server.requests[2]!);
    expect(text).toMatch(/^\[background task cmd_[0-9a-f]{8} finished\] slow echo/);
    expect(text).toContain('background-result');
    expect(text).toContain('<untrusted source="background task output"');
    expect(text).toContain('This message comes from Deskhand, not from the person');
    await wakes!.idle();
    expect(outcomes.map((o) => o.status)).toEqual(['finished']);
    const runs = rawAll<{ provider: string; model: string; tainted: number }>(store.dataDir, 'SELECT * FROM runs WHERE conversation_id = ? ORDER BY created_at', conv.id);
    expect(runs).toHaveLength(2);
    // The last run's provider and model; the result is outside content, so the turn starts tainted.
    expect(runs[1]).toMatchObject({ provider: 'openai', model: 'gpt-test', tainted: 1 });
    // Delivered once: the next wake-up carries only a later task.
    expect(await nextWakeIsOnly(conv.id)).not.toContain('background-result');
  });

  it('the woken turn parks when it needs an approval nobody can give', async () => {
    server.enqueue(reply().tool('execute_command', { command: 'echo done', run_in_background: true, description: 'test task' }), reply().text('ok'));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    await runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    server.enqueue(reply().tool('write_file', { path: 'result.txt', content: 'done\n' }));
    startWakes();
    await until(() => outcomes.length === 1, 'the woken turn', 10_000);
    expect(outcomes[0]!.status).toBe('parked');
    expect(store.pendingApprovals(outcomes[0]!.runId)).toHaveLength(1);
    expect(lastUserText(server.requests[2]!)).toMatch(/^\[background task cmd_\w+ finished\]/);
  });

  it('waits while the conversation has a run, then delivers', async () => {
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    // The run starts a background task, then keeps working past its end.
    server.enqueue(reply().tool('execute_command', { command: 'echo quick', run_in_background: true, description: 'test task' }), reply().tool('execute_command', { command: 'sleep 1' }), reply().text('done'));
    startWakes();
    const first = await runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    expect(first.status).toBe('finished');
    server.enqueue(reply().text('Seen.'));
    await until(() => server.requests.length === 4, 'the wake-up after the run', 10_000);
    expect(lastUserText(server.requests[3]!)).toContain('quick');
    // During the run the result was not injected.
    expect(server.requests.slice(0, 3).every((r) => !lastUserText(r).includes('[background task'))).toBe(true);
  });

  it('a result reported by wait_tasks wakes nobody', async () => {
    server.enqueue(
      reply().tool('execute_command', { command: 'sleep 0.3; echo waited', run_in_background: true, description: 'test task' }),
      reply().tool('wait_tasks', { timeout: 10 }),
      reply().text('All done.'),
    );
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    startWakes();
    const outcome = await runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    expect(outcome.status).toBe('finished');
    expect(JSON.stringify(server.requests[2]!.body)).toContain('waited');
    // The next wake-up is a later task's, alone: the result wait_tasks reported was not delivered before it or with it.
    expect(await nextWakeIsOnly(conv.id)).not.toContain('waited');
  });

  it('stopping a run ends what it started in the background, and wakes nobody', async () => {
    const controller = new AbortController();
    server.enqueue(reply().tool('execute_command', { command: 'sleep 30', run_in_background: true, description: 'test task' }), reply().hang());
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    startWakes();
    const running = runtime.sendMessage(conv.id, 'go', { provider: provider(), interactive: false, signal: controller.signal });
    await until(() => tasks.list(conv.id).length === 1 && server.requests.length === 2, 'the background task and the hanging step');
    controller.abort();
    expect((await running).status).toBe('aborted');
    const [task] = tasks.list(conv.id);
    await until(() => tasks.rows.getTask(task!.id)!.status === 'cancelled', 'the task to be cancelled');
    // The next wake-up is a later task's, alone: the cancelled one woke nobody.
    expect(await nextWakeIsOnly(conv.id)).not.toContain(task!.id);
  });

  it('a wait whose checks all answered the same says so in the wake-up', () => {
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    tasks.rows.insertTask({ id: 'wait_00000001', conversation_id: conv.id, run_id: null, call_id: null, kind: 'wait_for', title: 'port open', spec: JSON.stringify({ command: 'nc -z 127.0.0.1 1' }), background: 1, notify: 1, output_path: null, owner_pid: null, owner_start: null });
    tasks.rows.finishTask('wait_00000001', 'timed_out', { exit_code: 1, summary: 'the check never exited 0', progress: JSON.stringify({ checks: 12, lastExit: 1, lastOutput: 'refused', identical: true, recent: [] }) });
    const text = wakeMessage(runtime, [tasks.rows.getTask('wait_00000001')!]);
    expect(text).toMatch(/^\[wait_for wait_00000001 timed out\] port open\nEvery check returned the same exit code and output: test the check command itself before waiting again\./);
    expect(text).toContain('Every one of the 12 checks returned the same exit code (1)');
  });

  it('a wake-up message parses back into its tasks (what the UI shows); anything else is the person\'s text', () => {
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    const insert = (id: string, kind: 'command' | 'wait_for' | 'job_batch', title: string) =>
      tasks.rows.insertTask({ id, conversation_id: conv.id, run_id: null, call_id: null, kind, title, spec: JSON.stringify({ command: 'true' }), background: 1, notify: 1, output_path: null, owner_pid: null, owner_start: null });
    insert('wait_00000002', 'wait_for', 'port open');
    tasks.rows.finishTask('wait_00000002', 'timed_out', { exit_code: 1, summary: 'never', progress: JSON.stringify({ checks: 3, lastExit: 1, lastOutput: 'refused', identical: true, recent: [] }) });
    insert('wait_00000003', 'wait_for', 'server up');
    tasks.rows.finishTask('wait_00000003', 'finished', { exit_code: 0, summary: 'ok', progress: JSON.stringify({ checks: 1, lastExit: 0, lastOutput: 'up', identical: false, recent: [] }) });
    insert('jobs_00000004', 'job_batch', 'two jobs\nsecond line of the title');
    tasks.rows.finishTask('jobs_00000004', 'failed', { exit_code: 1, summary: '1 of 2 failed' });
    const ids = ['wait_00000002', 'wait_00000003', 'jobs_00000004'];
    const text = wakeMessage(runtime, ids.map((id) => tasks.rows.getTask(id)!));
    const parsed = parseWakeMessage(text);
    expect(parsed?.map((t) => [t.id, t.kind, t.headline, t.title, t.notice])).toEqual([
      ['wait_00000002', 'wait_for', 'Wait timed out', 'port open', 'Every check returned the same exit code and output: test the check command itself before waiting again.'],
      ['wait_00000003', 'wait_for', 'Wait finished: the condition holds', 'server up', null],
      ['jobs_00000004', 'job_batch', 'Job batch failed', 'two jobs\nsecond line of the title', null],
    ]);
    expect(parsed![1]!.output).toContain('up');
    for (const t of parsed!) expect(t.output).not.toMatch(/<\/?untrusted/);

    expect(parseWakeMessage('fix the [background task cmd_00000001 finished] thing')).toBeNull();
    expect(parseWakeMessage(text.replace('This message comes from Deskhand', 'This message comes from me'))).toBeNull();
    expect(parseWakeMessage(`please look:\n${text}`)).toBeNull();
    expect(parseWakeMessage(text.replace(/nonce="([0-9a-f]{16})">\n/, 'nonce="$1">\nunclosed</untrusted>\n').replace(/<\/untrusted nonce="[0-9a-f]{16}">/, ''))).toBeNull();
  });
});
