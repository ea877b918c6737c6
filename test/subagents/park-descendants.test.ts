/**
 * Parking through descendants (issue 30), end to end through the built `deskhand` binary and the scripted model
 * server: a read-only parent run with --json (nobody can answer) whose foreground subagent (spawn_subagent,
 * map_subagents) asks for a write. The top-level process exits 3 with the descendant's
 * request in `run.parked` and `runs list` (the child named); `runs approve|deny` from another process resumes the
 * whole tree. Proven by the file's bytes, the exit codes and the model's next requests. Every CLI call has a timeout:
 * a run that hangs (as before the fix) fails the test instead of stalling the suite.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, requireBuild, type CliResult } from '../support/cli';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { firstUser, lastMessage, textOf } from './harness';

const HANG_MS = 40_000;

let server: ModelServer;
let dataDir: string;
let work: string;

beforeEach(async () => {
  requireBuild();
  server = await startModelServer();
  dataDir = tempDir('deskhand-park-data-');
  work = tempDir('deskhand-park-work-');
});
afterEach(async () => {
  await server.close();
});

/** The CLI with a deadline: a process still alive after it is killed and reported as hung (code null). */
function cli(args: string[]): Promise<CliResult & { hung: boolean }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args, '--data-dir', dataDir], { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_MS);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      const events = stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as CliResult['events'][number]);
      done({ code, stdout, stderr, events, hung });
    });
  });
}

const run = (prompt: string) => cli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'read-only', '--cwd', work, '--json', prompt]);

/** Parent and children answered from their own queues, keyed by a word of their first user message. */
function route(queues: Record<string, Parameters<ModelServer['enqueue']>[number][]>, parent: Parameters<ModelServer['enqueue']>[number][]): void {
  server.setFallback((req) => {
    const first = firstUser(req);
    for (const [key, q] of Object.entries(queues)) if (first.includes(key)) return q.shift() ?? { status: 500, message: `no reply left for ${key}` };
    return parent.shift() ?? { status: 500, message: 'no parent reply left' };
  });
}

const parentRequests = (): RecordedRequest[] => server.requests.filter((r) => firstUser(r).includes('PARENT'));
const requestsOf = (key: string): RecordedRequest[] => server.requests.filter((r) => firstUser(r).includes(key));

interface ListJson {
  runs: { id: string; status: string }[];
  approvals: { id: string; tool: string; run_id: string; subagent?: { id: string; description: string; type: string; parentRunId: string | null } }[];
}

async function pendingList(): Promise<ListJson> {
  const list = await cli(['runs', 'list', '--json']);
  expect(list.code).toBe(0);
  return JSON.parse(list.stdout.trim().split('\n').at(-1)!) as ListJson;
}

describe('a foreground subagent that needs a person parks the top-level run', () => {
  it('spawn_subagent: parks (exit 3) with the child named; `runs approve` elsewhere writes the file and the parent finishes', async () => {
    route(
      { 'CHILD WRITE': [reply().tool('write_file', { path: 'a.txt', content: 'from the child\n' }), reply().text('wrote a.txt')] },
      [reply().tool('spawn_subagent', { prompt: 'CHILD WRITE: create a.txt', description: 'writer' }), reply().text('parent done')],
    );
    const first = await run('PARENT: delegate the write');
    expect(first.hung).toBe(false);
    expect(first.code).toBe(3);
    const topRun = first.events.find((e) => e.type === 'run.started')!.runId as string;
    const topParked = first.events.filter((e) => e.type === 'run.parked' && e.runId === topRun);
    expect(topParked).toHaveLength(1);
    const listed = await pendingList();
    const request = listed.approvals.find((a) => a.tool === 'write_file')!;
    expect(request).toBeTruthy();
    expect(topParked[0]!.approvalIds).toEqual([request.id]);
    expect(request.subagent).toMatchObject({ description: 'writer', type: 'coder', parentRunId: topRun });
    expect(listed.runs.find((r) => r.id === topRun)!.status).toBe('parked');
    const text = await cli(['runs', 'list']);
    expect(text.stdout).toMatch(new RegExp(`waiting: ${request.id} +write_file .*subagent ${request.subagent!.id} "writer"`));
    expect(existsSync(join(work, 'a.txt'))).toBe(false);

    const approved = await cli(['runs', 'approve', request.id, '--json']);
    expect(approved.hung).toBe(false);
    expect(approved.code).toBe(0);
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('from the child\n');
    // The parent's next request carries the child's answer, and the parent's last reply ended its run.
    const parentLast = parentRequests().at(-1)!;
    expect(textOf(lastMessage(parentLast).content)).toContain('wrote a.txt');
    expect((await pendingList()).runs.find((r) => r.id === topRun)!.status).toBe('finished');
  }, 120_000);

  it('spawn_subagent: `runs deny` elsewhere gives the child the denial, and the parent goes on with its answer', async () => {
    route(
      { 'CHILD WRITE': [reply().tool('write_file', { path: 'a.txt', content: 'nope\n' }), reply().text('the person refused the write')] },
      [reply().tool('spawn_subagent', { prompt: 'CHILD WRITE: create a.txt', description: 'writer' }), reply().text('parent done')],
    );
    const first = await run('PARENT: delegate the write');
    expect(first.hung).toBe(false);
    expect(first.code).toBe(3);
    const request = (await pendingList()).approvals.find((a) => a.tool === 'write_file')!;
    const denied = await cli(['runs', 'deny', request.id, '--reason', 'not this file', '--json']);
    expect(denied.hung).toBe(false);
    expect(denied.code).toBe(0);
    expect(existsSync(join(work, 'a.txt'))).toBe(false);
    // The child's next request saw the denial and its reason; the parent's saw the child's answer.
    expect(textOf(lastMessage(requestsOf('CHILD WRITE').at(-1)!).content)).toContain('not this file');
    expect(textOf(lastMessage(parentRequests().at(-1)!).content)).toContain('the person refused the write');
  }, 120_000);

  it('map_subagents: parks on every child that asks; each answer resumes the tree, which parks again until the last', async () => {
    route(
      {
        'ITEM one': [reply().tool('write_file', { path: 'one.txt', content: '1\n' }), reply().text('wrote one')],
        'ITEM two': [reply().tool('write_file', { path: 'two.txt', content: '2\n' }), reply().text('wrote two')],
      },
      [reply().tool('map_subagents', { prompt_template: 'ITEM {{input}}: write it', items: ['one', 'two'], description: 'writers' }), reply().text('parent done')],
    );
    const first = await run('PARENT: map the writes');
    expect(first.hung).toBe(false);
    expect(first.code).toBe(3);
    const requests = (await pendingList()).approvals.filter((a) => a.tool === 'write_file');
    expect(requests).toHaveLength(2);
    const topRun = first.events.find((e) => e.type === 'run.started')!.runId as string;
    expect(new Set(first.events.find((e) => e.type === 'run.parked' && e.runId === topRun)!.approvalIds as string[])).toEqual(new Set(requests.map((r) => r.id)));
    expect(requests.map((r) => r.subagent?.description).sort()).toEqual(['writers #1', 'writers #2']);

    const one = await cli(['runs', 'approve', requests[0]!.id, '--json']);
    expect(one.hung).toBe(false);
    expect(one.code).toBe(3);
    expect(existsSync(join(work, requests[0]!.subagent!.description.endsWith('#1') ? 'one.txt' : 'two.txt'))).toBe(true);
    const two = await cli(['runs', 'approve', requests[1]!.id, '--json']);
    expect(two.hung).toBe(false);
    expect(two.code).toBe(0);
    expect(readFileSync(join(work, 'one.txt'), 'utf8')).toBe('1\n');
    expect(readFileSync(join(work, 'two.txt'), 'utf8')).toBe('2\n');
    const result = textOf(lastMessage(parentRequests().at(-1)!).content);
    expect(result).toContain('2/2 children finished.');
    expect(result).toMatch(/#1 sub_[0-9a-f]{8} finished: wrote one/);
    expect(result).toMatch(/#2 sub_[0-9a-f]{8} finished: wrote two/);
  }, 180_000);
});
