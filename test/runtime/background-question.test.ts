/**
 * ask_user_question with `background` (Spec II): the call returns at once with a `question` task, the request stays
 * open, and answering it (here from a second runtime over the same data dir, as another process would) finishes the
 * task with the foreground tool's text and wakes the conversation. Declining and cancel_background_jobs end the task
 * and the request; the original call's stored result never changes. The real runtime and tools against the scripted
 * model server and a real store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TaskWakes, parseWakeMessage } from '../../src/main/host/background/task-wakes';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { until } from '../support/tasks';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
let other: AppRuntime | null;
let wakes: TaskWakes | null;
let work: string;
let dataDir: string;

const provider = (): ProviderConfig => ({ provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' });
const QUESTION = {
  questions: [{ question: 'Which port?', header: 'Port', options: [{ label: '3000', description: 'the default' }, { label: '8080', description: 'the proxy' }] }],
  background: true,
};

function messagesOf(req: RecordedRequest): { role: string; content: unknown }[] {
  return req.protocol === 'openai' ? (req.body.messages as { role: string; content: unknown }[]) : [];
}
const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c));
const lastUserText = (req: RecordedRequest) => text(messagesOf(req).filter((m) => m.role === 'user').at(-1)?.content);
const lastToolText = (req: RecordedRequest) => text(messagesOf(req).filter((m) => m.role === 'tool').at(-1)?.content);

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 5_000 });
  other = null;
  wakes = null;
});

afterEach(async () => {
  await wakes?.stop();
  await runtime.tasks.shutdown();
  if (other) {
    await other.tasks.shutdown();
    other.store.close();
  }
  store.close();
  await server.close();
});

/** Starts a conversation whose first turn asks the question in the background; returns its task, request and call. */
async function askInBackground() {
  server.enqueue(reply().tool('ask_user_question', QUESTION), reply().text('Asked; meanwhile I carry on.'));
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  const events: { type: string; [k: string]: unknown }[] = [];
  const first = await runtime.sendMessage(conv.id, 'set up the dev server', { provider: provider(), interactive: false, onEvent: (e) => events.push(e as never) });
  const [task] = runtime.tasks.list(conv.id);
  const [request] = store.pendingApprovals();
  const call = store.toolCallsForRun(first.runId).find((c) => c.tool === 'ask_user_question')!;
  return { conv, first, task: task!, request: request!, call, events };
}

describe('ask_user_question in the background', () => {
  it('returns at once with a question task and an open request; an answer from another process finishes the task and wakes the conversation', async () => {
    const { conv, first, task, request, call, events } = await askInBackground();
    // The run did not wait: it finished, and the model read the task id in the call's result.
    expect(first.status).toBe('finished');
    expect(server.requests).toHaveLength(2);
    expect(task).toMatchObject({ kind: 'question', status: 'running', title: 'Which port?', background: 1 });
    expect(lastToolText(server.requests[1]!)).toContain(`Started background question task ${task.id}; the person has not answered yet.`);
    expect(request).toMatchObject({ kind: 'question', status: 'pending', task_id: task.id, run_id: first.runId });
    expect(events.find((e) => e.type === 'input.requested')).toMatchObject({ requestId: request.id, kind: 'question' });
    // No run waits for it: the run's own pending list is empty, and the call is done.
    expect(store.pendingApprovals(first.runId)).toEqual([]);
    expect(call.status).toBe('done');
    const callOutput = call.output;

    // Answered from a second runtime over the same database (another process: `deskhand runs answer`, the web host).
    const otherStore = new Store(dataDir);
    other = createAppRuntime({ store: otherStore, dataDir, vault: null });
    const outcome = await other.answerRequest(request.id, { answers: { 'Which port?': '8080' } });
    expect(outcome).toMatchObject({ runId: first.runId, status: 'finished' });
    const ended = store.tasks.getTask(task.id)!;
    expect(ended).toMatchObject({ status: 'finished', summary: 'answered' });
    // Exactly what the foreground tool returns for this answer.
    expect(runtime.tasks.describe(ended)).toContain('--- answers ---\nQ: Which port?\nA: 8080');
    expect(store.getApproval(request.id)).toMatchObject({ status: 'approved', task_id: task.id });
    // The finished call and its run are untouched.
    const after = store.toolCallsForRun(first.runId).find((c) => c.id === call.id)!;
    expect(after).toMatchObject({ status: 'done', output: callOutput });
    expect(store.getRun(first.runId)!.status).toBe('finished');
    expect(store.runsForConversation(conv.id)).toHaveLength(1);

    // The conversation is woken with the answers, like any ended background task.
    server.enqueue(reply().text('Using 8080.'));
    wakes = new TaskWakes({ runtime, provider: () => provider(), pollMs: 100 }).start();
    await until(() => server.requests.length === 3, 'the wake-up request', 10_000);
    const woke = lastUserText(server.requests[2]!);
    expect(woke).toMatch(new RegExp(`^\\[question ${task.id} answered\\] Which port\\?`));
    expect(woke).toContain('Q: Which port?\nA: 8080');
    await wakes.idle();
    const parsed = parseWakeMessage(woke)!;
    expect(parsed).toHaveLength(1);
    expect(parsed[0]).toMatchObject({ id: task.id, kind: 'question', headline: 'Question answered', title: 'Which port?' });
    // A second answer is refused (single use).
    await expect(runtime.answerRequest(request.id, { answers: { 'Which port?': '3000' } })).rejects.toThrow(/already approved/);
  }, 20_000);

  it('declining ends the task as cancelled with the reason, and the conversation hears of it', async () => {
    const { task, request, call, first } = await askInBackground();
    await runtime.decideApproval(request.id, { approved: false, reason: 'ask me tomorrow' });
    expect(store.tasks.getTask(task.id)).toMatchObject({ status: 'cancelled', summary: 'declined: ask me tomorrow', notify: 1 });
    expect(store.getApproval(request.id)).toMatchObject({ status: 'denied', reason: 'ask me tomorrow' });
    expect(store.toolCallsForRun(first.runId).find((c) => c.id === call.id)).toMatchObject({ status: 'done', output: call.output });
    server.enqueue(reply().text('OK, later.'));
    wakes = new TaskWakes({ runtime, provider: () => provider(), pollMs: 100 }).start();
    await until(() => server.requests.length === 3, 'the wake-up request', 10_000);
    expect(lastUserText(server.requests[2]!)).toMatch(/^\[question ask_[0-9a-f]{8} cancelled\] Which port\?[\s\S]*declined: ask me tomorrow/);
    await wakes.idle();
  }, 20_000);

  it('task_output, list_background_jobs and wait_tasks work on it; cancel_background_jobs cancels it and expires the request', async () => {
    const { conv, task, request } = await askInBackground();
    // The model looks at it, waits briefly (nothing yet), then withdraws the question.
    server.enqueue(
      reply().tool('task_output', { id: task.id }).tool('list_background_jobs', {}),
      reply().tool('wait_tasks', { ids: [task.id], timeout: 1 }),
      reply().tool('cancel_background_jobs', { ids: [task.id] }),
      reply().text('Withdrawn.'),
    );
    const opts = { provider: provider(), interactive: false };
    let second = await runtime.sendMessage(conv.id, 'check on it, then drop it', opts);
    // Cancelling is not read-only: the person approves it.
    while (second.status === 'parked') second = (await runtime.decideApproval(second.approvalIds[0]!, { approved: true }, opts))!;
    expect(second.status).toBe('finished');
    const tools = (i: number) => messagesOf(server.requests[i]!).filter((m) => m.role === 'tool').map((m) => text(m.content));
    expect(tools(3).join('\n')).toContain(`${task.id}  question  running`);
    expect(tools(3).join('\n')).toContain('waiting for the person to answer');
    expect(tools(4).at(-1)).toMatch(/nothing ended yet/);
    expect(tools(5).at(-1)).toContain('cancelled');
    expect(store.tasks.getTask(task.id)).toMatchObject({ status: 'cancelled', notify: 0 });
    expect(store.tasks.tasksToNotify()).toEqual([]);
    expect(store.getApproval(request.id)!.status).toBe('expired');
    await expect(runtime.answerRequest(request.id, { answers: { 'Which port?': '8080' } })).rejects.toThrow(/already expired/);
  }, 20_000);

  it('wait_tasks returns the answers when the person answers while the model waits', async () => {
    const { conv, task, request } = await askInBackground();
    server.enqueue(reply().tool('wait_tasks', { ids: [task.id], timeout: 30 }), reply().text('They chose 3000.'));
    const waiting = runtime.sendMessage(conv.id, 'wait for the answer', { provider: provider(), interactive: false });
    await until(() => server.requests.length === 3, 'the wait_tasks call', 10_000);
    await new Promise((r) => setTimeout(r, 200));
    await runtime.answerRequest(request.id, { answers: { 'Which port?': '3000' } });
    expect((await waiting).status).toBe('finished');
    expect(lastToolText(server.requests[3]!)).toContain('Q: Which port?\nA: 3000');
    // Reported by wait_tasks: no separate wake-up later.
    expect(store.tasks.tasksToNotify()).toEqual([]);
  }, 20_000);
});
