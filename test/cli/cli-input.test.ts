/**
 * Input requests through the real `deskhand` binary: a question and a file pick park a run without a terminal and are
 * answered later with `deskhand runs answer ID --value JSON` from another process; in a terminal they are asked
 * inline. What the model received is read from the scripted model server's recorded requests.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { BIN, cliEnv, requireBuild, runCli } from '../support/cli';
import { rawAll } from '../support/raw-db';
import { until } from '../support/tasks';

let server: ModelServer;
let dataDir: string;
let work: string;

beforeAll(async () => {
  requireBuild();
  server = await startModelServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  dataDir = tempDir('deskhand-cli-data-');
  work = tempDir('deskhand-cli-work-');
});

// Every `deskhand` command opens the whole runtime (docs/performance.md, "CLI start": several seconds each on a loaded
// 2-core machine), so a test's budget is counted in CLI calls. A budget, not a timing assertion.
const CLI_CALL_MS = 25_000;
const calls = (n: number): number => n * CLI_CALL_MS;

const runArgs = (prompt: string, json = true) => [
  'run',
  '--provider',
  'openai',
  '--base-url',
  server.baseURL,
  '--model',
  'test-model',
  '--policy',
  'read-only',
  '--cwd',
  work,
  '--data-dir',
  dataDir,
  ...(json ? ['--json'] : []),
  prompt,
];

const QUESTION = {
  questions: [{ question: 'Which port?', header: 'Port', options: [{ label: '3000', description: 'the default' }, { label: '8080', description: 'the proxy' }] }],
};

function lastToolResult(): string {
  const messages = (server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
  return String(messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
}

describe('input requests in the CLI', () => {
  it('a question parks the run (exit 3, input.requested) and `runs answer` resumes it with the answer for the model', async () => {
    server.enqueue(reply().tool('ask_user_question', QUESTION));
    const parked = await runCli(runArgs('start the dev server'));
    expect(parked.code, parked.stderr).toBe(3);
    const asked = parked.events.find((e) => e.type === 'input.requested')!;
    expect(asked).toMatchObject({ kind: 'question', tool: 'ask_user_question' });
    expect(asked.schema).toMatchObject({ type: 'object' });
    const id = String(asked.requestId);

    const wrong = await runCli(['runs', 'answer', id, '--value', '{"answers": {"Which host?": "3000"}}', '--data-dir', dataDir, '--base-url', server.baseURL]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/No answer for "Which port\?"/);
    const notJson = await runCli(['runs', 'answer', id, '--value', '{answers', '--data-dir', dataDir]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/--value is not valid JSON/);
    const approve = await runCli(['runs', 'approve', id, '--data-dir', dataDir, '--base-url', server.baseURL]);
    expect(approve.code).toBe(2);
    expect(approve.stderr).toMatch(/runs answer/);

    server.enqueue(reply().text('Using 8080.'));
    const done = await runCli(['runs', 'answer', id, '--value', '{"answers": {"Which port?": "8080"}}', '--data-dir', dataDir, '--base-url', server.baseURL, '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(lastToolResult()).toBe('Q: Which port?\nA: 8080');
    expect(done.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'finished' });
  }, calls(5));

  it('a background question: the run finishes at once, `runs answer` from another process finishes the task, and the conversation is woken with the answers', async () => {
    server.enqueue(reply().tool('ask_user_question', { ...QUESTION, background: true }), reply().text('Asked; carrying on.'));
    const before = server.requests.length;
    const running = runCli(runArgs('start the dev server'));
    type Row = { id: string; status: string; task_id: string | null; run_id: string };
    const pending = () => {
      try {
        return rawAll<Row>(dataDir, "SELECT id, status, task_id, run_id FROM approvals WHERE kind = 'question'");
      } catch {
        return [];
      }
    };
    await until(() => pending().length === 1 && server.requests.length === before + 2, 'the background question', CLI_CALL_MS);
    const [request] = pending();
    expect(request!.task_id).toMatch(/^ask_[0-9a-f]{8}$/);
    // The run did not wait for the answer: it finished while its process waits for the background task.
    await until(() => rawAll<{ status: string }>(dataDir, 'SELECT status FROM runs WHERE id = ?', request!.run_id)[0]?.status === 'finished', 'the run to finish', CLI_CALL_MS);
    const callBefore = rawAll<{ status: string; output: string }>(dataDir, "SELECT status, output FROM tool_calls WHERE tool = 'ask_user_question'");
    expect(callBefore[0]!.output).toContain(`Started background question task ${request!.task_id}`);

    server.enqueue(reply().text('Using 8080.'));
    const answered = await runCli(['runs', 'answer', request!.id, '--value', '{"answers": {"Which port?": "8080"}}', '--data-dir', dataDir, '--base-url', server.baseURL, '--json']);
    expect(answered.code, answered.stderr).toBe(0);
    const first = await running;
    expect(first.code, first.stderr).toBe(0);
    expect(first.events.find((e) => e.type === 'input.requested')).toMatchObject({ requestId: request!.id, kind: 'question' });

    // One wake-up turn (whichever process claimed it) carried the answers to the model.
    expect(server.requests.length).toBe(before + 3);
    const messages = (server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
    const woke = String(messages.filter((m) => m.role === 'user').at(-1)?.content);
    expect(woke).toMatch(new RegExp(`^\\[question ${request!.task_id} answered\\] Which port\\?`));
    expect(woke).toContain('Q: Which port?\nA: 8080');
    const task = rawAll<{ status: string; summary: string }>(dataDir, 'SELECT status, summary FROM background_tasks WHERE id = ?', request!.task_id);
    expect(task[0]).toMatchObject({ status: 'finished', summary: 'answered' });
    // The original call was not touched by the answer.
    expect(rawAll(dataDir, "SELECT status, output FROM tool_calls WHERE tool = 'ask_user_question'")).toEqual(callBefore);
  }, calls(4));

  it('a file pick answered with `runs answer` makes the file readable for the rest of the conversation', async () => {
    const outside = tempDir('deskhand-cli-outside-');
    writeFileSync(join(outside, 'budget.csv'), 'rent,900\n');
    server.enqueue(reply().tool('ask_file_picker', { prompt: 'Which budget file?' }));
    const parked = await runCli(runArgs('read my budget'));
    expect(parked.code, parked.stderr).toBe(3);
    const id = String(parked.events.find((e) => e.type === 'input.requested')!.requestId);
    server.enqueue(reply().tool('read_file', { path: join(outside, 'budget.csv') }), reply().text('Rent is 900.'));
    const done = await runCli(['runs', 'answer', id, '--value', JSON.stringify({ paths: [join(outside, 'budget.csv')] }), '--data-dir', dataDir, '--base-url', server.baseURL, '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(lastToolResult()).toContain('rent,900');
  }, calls(3));

  it('in a terminal, asks the question inline: a number picks an option, "Other" takes free text', async () => {
    server.enqueue(reply().tool('ask_user_question', QUESTION), reply().text('Noted.'));
    const command = [process.execPath, BIN, ...runArgs('start it', false)].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const output = await new Promise<{ code: number | null; text: string }>((done) => {
      // util-linux `script` gives the CLI a real pseudo-terminal, so the question is asked instead of parking.
      const child = spawn('script', ['-qfec', command, '/dev/null'], { env: cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
      let text = '';
      let sent = 0;
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (sent === 0 && text.includes('Choose a number')) {
          child.stdin.write('3\n');
          sent = 1;
        }
        if (sent === 1 && text.includes('Your answer:')) {
          child.stdin.write('4000 please\n');
          sent = 2;
        }
      });
      child.on('close', (code) => done({ code, text }));
    });
    expect(output.code, output.text).toBe(0);
    expect(output.text).toContain('3. Other (type your own answer)');
    expect(lastToolResult()).toBe('Q: Which port?\nA: (their own words) 4000 please');
  }, calls(2));

  it('in a terminal, a background question is asked at the prompt while the run goes on, and the answer wakes the conversation', async () => {
    server.enqueue(reply().tool('ask_user_question', { ...QUESTION, background: true }), reply().text('Asked; carrying on.'), reply().text('Using 3000.'));
    const before = server.requests.length;
    const command = [process.execPath, BIN, ...runArgs('start it', false)].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const output = await new Promise<{ code: number | null; text: string }>((done) => {
      const child = spawn('script', ['-qfec', command, '/dev/null'], { env: cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
      let text = '';
      let sent = false;
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (!sent && text.includes('Choose a number')) {
          child.stdin.write('1\n');
          sent = true;
        }
      });
      child.on('close', (code) => done({ code, text }));
    });
    expect(output.code, output.text).toBe(0);
    expect(server.requests.length).toBe(before + 3);
    const messages = (server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
    const woke = String(messages.filter((m) => m.role === 'user').at(-1)?.content);
    expect(woke).toMatch(/^\[question ask_[0-9a-f]{8} answered\] Which port\?/);
    expect(woke).toContain('Q: Which port?\nA: 3000');
  }, calls(2));
});
