/**
 * Input requests as the UI answers them, over the real app service, runtime, tools and scripted model server:
 * questions (answerRequest with the kind's JSON), file picks (the web folder browser lists one folder's names only
 * while the pick waits; the desktop's native dialog answers through pickForRequest with paths from main), and the
 * tool presentations (titles, summaries) the cards are drawn from.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractEvent, PendingApproval } from '../../src/shared/contract';
import { AppService } from '../../src/main/host/app/app-service';
import type { PickOptions } from '../../src/main/host/app/groups/requests';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let server: ModelServer;
let dataDir: string;
let work: string;
let h: Harness;

const scripted = () => ({ provider: 'openai-compatible' as const, model: 'scripted', baseURL: server.baseURL, apiKey: null });
const requestOf = (kind: string) => (e: ContractEvent): PendingApproval | undefined =>
  e.event === 'approvalsChanged' ? e.payload.approvals.find((a) => a.kind === kind) : undefined;
const finished = (e: ContractEvent) => e.event === 'run' && e.payload.type === 'run.finished' && e.payload;

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-req-data-');
  work = tempDir('deskhand-req-work-');
  h = openHarness({ dataDir, override: scripted() });
});

afterEach(async () => {
  await h.service.shutdown();
  h.close();
  await server.close();
});

/** The code and message a service call failed with. */
async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return { code: (err as { code: string }).code, message: (err as Error).message };
  }
  throw new Error('expected the call to fail');
}

async function start(text: string): Promise<string> {
  const { id } = await h.service.createConversation({ folder: work, policy: 'read-only' });
  await h.service.sendMessage({ conversationId: id, text });
  return id;
}

const QUESTION = { question: 'Which database?', header: 'Database', options: [{ label: 'PostgreSQL', description: 'a server' }, { label: 'SQLite', description: 'a file' }] };

describe('question requests', () => {
  it('are projected with their data and title, refuse what is not an answer, and resume the run with the answers', async () => {
    server.enqueue(reply().tool('ask_user_question', { questions: [QUESTION] }), reply().text('PostgreSQL it is.'));
    const conversationId = await start('pick a database');
    const request = await h.waitFor(requestOf('question'));
    expect(request).toMatchObject({ title: 'Ask you a question', tool: 'ask_user_question', data: { questions: [{ question: 'Which database?', header: 'Database', multiSelect: false }] } });

    // Not an approval, not a file pick, and not an answer that fits.
    expect(await failure(h.service.decideApproval({ approvalId: request.approvalId, decision: 'approve' }))).toMatchObject({ code: 'usage', message: /runs answer/ });
    expect(await failure(h.service.browseForRequest({ requestId: request.approvalId }))).toMatchObject({ code: 'usage', message: /pick a file or folder/ });
    expect(await failure(h.service.pickForRequest({ requestId: request.approvalId }))).toMatchObject({ code: 'unsupported' });
    expect(await failure(h.service.answerRequest({ requestId: request.approvalId, value: { answers: {} } }))).toMatchObject({ code: 'usage', message: /No answer for "Which database\?"/ });
    expect(h.store.getApproval(request.approvalId)!.status).toBe('pending');

    await h.service.answerRequest({ requestId: request.approvalId, value: { answers: { 'Which database?': 'PostgreSQL' } } });
    await h.waitFor(finished);
    const body = JSON.stringify(server.requests.at(-1)!.body);
    expect(body).toContain('Q: Which database?\\nA: PostgreSQL');
    const { items } = await h.service.getMessages({ conversationId });
    expect(items.find((i) => i.kind === 'tool')).toMatchObject({ tool: 'ask_user_question', summary: 'Which database?', status: 'ok' });
  });
});

describe('background question requests', () => {
  it('are listed while the run has finished, shown in the tasks panel, and the answer wakes the conversation', async () => {
    server.enqueue(reply().tool('ask_user_question', { questions: [QUESTION], background: true }), reply().text('Asked; carrying on.'), reply().text('PostgreSQL it is.'));
    const conversationId = await start('pick a database');
    const request = await h.waitFor(requestOf('question'));
    await h.waitFor(finished);
    expect(request).toMatchObject({ tool: 'ask_user_question', data: { questions: [{ question: 'Which database?' }] } });
    const { tasks } = await h.service.listBackgroundTasks({ conversationId });
    expect(tasks).toMatchObject([{ kind: 'question', title: 'Which database?', status: 'running' }]);

    await h.service.answerRequest({ requestId: request.approvalId, value: { answers: { 'Which database?': 'PostgreSQL' } } });
    const deadline = Date.now() + 10_000;
    while (server.requests.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('Q: Which database?\\nA: PostgreSQL');
    const after = (await h.service.listBackgroundTasks({ conversationId })).tasks[0]!;
    expect(after).toMatchObject({ kind: 'question', status: 'finished', summary: 'answered' });
    expect(after.tail).toContain('Q: Which database?\nA: PostgreSQL');
  });
});

describe('file pick requests', () => {
  it('browse one folder at a time (names only, hidden last) while the pick waits, and stop once it is answered', async () => {
    mkdirSync(join(work, 'reports'));
    writeFileSync(join(work, 'b.csv'), 'secret contents\n');
    writeFileSync(join(work, '.hidden'), '');
    writeFileSync(join(work, 'reports', 'q1.csv'), 'q1\n');
    server.enqueue(reply().tool('ask_file_picker', { prompt: 'Choose the export', pick: 'file' }), reply().text('Got it.'));
    await start('analyse my export');
    const request = await h.waitFor(requestOf('file_pick'));
    expect(request).toMatchObject({ title: 'Ask you to pick a file', data: { prompt: 'Choose the export', pick: 'file', multiple: false } });

    const home = await h.service.browseForRequest({ requestId: request.approvalId });
    expect(home).toEqual({
      path: work,
      parent: join(work, '..'),
      entries: [
        { name: 'reports', kind: 'folder' },
        { name: 'b.csv', kind: 'file' },
        { name: '.hidden', kind: 'file' },
      ],
      truncated: false,
    });
    expect(JSON.stringify(home)).not.toContain('secret contents');
    expect((await h.service.browseForRequest({ requestId: request.approvalId, path: join(work, 'reports') })).entries).toEqual([{ name: 'q1.csv', kind: 'file' }]);
    expect(await failure(h.service.browseForRequest({ requestId: request.approvalId, path: join(work, 'nope') }))).toMatchObject({ code: 'not_found' });
    expect(await failure(h.service.browseForRequest({ requestId: request.approvalId, path: join(work, 'b.csv') }))).toMatchObject({ code: 'usage', message: /is a file/ });
    expect(await failure(h.service.browseForRequest({ requestId: request.approvalId, path: 'relative/path' }))).toMatchObject({ code: 'usage' });
    // A folder is not what was asked for: the kind refuses it in words, and the request still waits.
    expect(await failure(h.service.answerRequest({ requestId: request.approvalId, value: { paths: [join(work, 'reports')] } }))).toMatchObject({ code: 'usage', message: /is a folder/ });

    await h.service.answerRequest({ requestId: request.approvalId, value: { paths: [join(work, 'b.csv')] } });
    await h.waitFor(finished);
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain(join(work, 'b.csv'));
    expect(await failure(h.service.browseForRequest({ requestId: request.approvalId }))).toMatchObject({ code: 'conflict' });
  });

  it('are answered with the native dialog where the host has one: the paths come from main, a cancel answers nothing', async () => {
    writeFileSync(join(work, 'data.csv'), 'x\n');
    const asked: PickOptions[] = [];
    let answer: string[] | null = null;
    const desktop = new AppService({
      runtime: h.runtime,
      secrets: h.secrets,
      dataDir,
      kind: 'electron',
      providerOverride: scripted(),
      env: {},
      log: h.log,
      pickPaths: async (opts) => {
        asked.push(opts);
        return answer;
      },
    });
    try {
      expect(await desktop.getHostInfo()).toMatchObject({ canPickPaths: true });
      expect(await h.service.getHostInfo()).toMatchObject({ canPickPaths: false });
      server.enqueue(reply().tool('ask_file_picker', { prompt: 'Choose the data', pick: 'any', multiple: true }), reply().text('Read it.'));
      await start('use my data');
      const request = await h.waitFor(requestOf('file_pick'));

      expect(await desktop.pickForRequest({ requestId: request.approvalId })).toEqual({ resumed: false, cancelled: true });
      expect(h.store.getApproval(request.approvalId)!.status).toBe('pending');
      answer = [join(work, 'data.csv')];
      expect(await desktop.pickForRequest({ requestId: request.approvalId })).toMatchObject({ cancelled: false });
      expect(asked).toEqual([
        { pick: 'any', multiple: true, prompt: 'Choose the data' },
        { pick: 'any', multiple: true, prompt: 'Choose the data' },
      ]);
      await h.waitFor(finished);
      expect(JSON.stringify(server.requests.at(-1)!.body)).toContain(join(work, 'data.csv'));
    } finally {
      await desktop.shutdown();
    }
  });
});

describe('tool presentations', () => {
  it('lists every registered tool once, with the title, icon and result hint it declares', async () => {
    const { tools } = await h.service.listTools();
    expect(tools.find((t) => t.name === 'execute_command')).toEqual({ name: 'execute_command', title: 'Run a command', icon: 'terminal', result: 'terminal', kind: 'builtin' });
    expect(tools.find((t) => t.name === 'ask_user_question')).toMatchObject({ title: 'Ask you a question', icon: 'question' });
    expect(new Set(tools.map((t) => t.name)).size).toBe(tools.length);
  });
});
