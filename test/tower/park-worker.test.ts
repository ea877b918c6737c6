/**
 * Parking through a coordinator (Tower) worker, end to end through the built `deskhand` binary and the scripted model
 * server (issue 30): `deskhand run --json` starts a session whose worker (a background subagent) asks to write a
 * file nobody can approve. The process parks (exit 3) with the worker's request in `run.parked` and `runs list`
 * (the worker named); `runs approve|deny` in another process resumes the worker there, and its end wakes the tower,
 * which finishes. Proven by the worktree file's bytes, the exit codes and the model's next requests. Every CLI call
 * has a deadline: a process that hangs (as before the change) fails the test.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../support/cli';
import { reply, startModelServer, type ModelServer, type ReplyInput } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { firstUser, lastMessage, textOf } from '../subagents/harness';
import { makeRepo } from './kit';

const HANG_MS = 60_000;

let server: ModelServer;
let dataDir: string;
let repo: string;

beforeEach(async () => {
  requireBuild();
  server = await startModelServer();
  dataDir = tempDir('deskhand-park-tower-');
  repo = makeRepo();
});
afterEach(async () => {
  await server.close();
});

const cli = (args: string[]) => runCli([...args, '--data-dir', dataDir], { hangMs: HANG_MS });
const isWorker = (first: string) => first.includes('You are worker-a,');

/** The tower and its worker answered from their own queues (the worker's first message names it). */
function route(worker: ReplyInput[], tower: ReplyInput[]): void {
  server.setFallback((req) => (isWorker(firstUser(req)) ? worker : tower).shift() ?? { status: 500, message: 'no reply left' });
}
const towerRequests = () => server.requests.filter((r) => !isWorker(firstUser(r)));
const workerRequests = () => server.requests.filter((r) => isWorker(firstUser(r)));

interface ListJson {
  runs: { id: string; status: string }[];
  approvals: { id: string; tool: string; run_id: string; subagent?: { id: string; description: string; type: string } }[];
}
async function pending(): Promise<ListJson> {
  const list = await cli(['runs', 'list', '--json']);
  expect(list.code).toBe(0);
  return JSON.parse(list.stdout.trim().split('\n').at(-1)!) as ListJson;
}

/** The worktree's copy of src/a/README (the worker's mission folder). */
function worktreeReadme(): string {
  const root = join(dataDir, 'tower');
  const [session] = readdirSync(root);
  return readFileSync(join(root, session!, 'a', 'src', 'a', 'README'), 'utf8');
}

/** Runs the tower to the point its worker asks: the plan approved from another process, then the worker parks. */
async function parkOnWorker(): Promise<{ requestId: string; parkedIds: string[] }> {
  const first = await cli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'low-risk', '--enable', 'coordinator', '--cwd', repo, '--json', 'TOWER: build part A']);
  expect(first.hung, first.stderr).toBe(false);
  expect(first.code).toBe(3);
  const plan = (await pending()).approvals.find((a) => a.tool === 'tower_plan')!;
  const planned = await cli(['runs', 'approve', plan.id, '--json']);
  expect(planned.hung, planned.stderr).toBe(false);
  // The worker's write asks nobody can answer: the process parks on the worker's request instead of waiting.
  expect(planned.code).toBe(3);
  const parkedIds = planned.events.filter((e) => e.type === 'run.parked').flatMap((e) => e.approvalIds as string[]);
  const listed = await pending();
  const request = listed.approvals.find((a) => a.tool === 'write_file')!;
  expect(request.subagent).toMatchObject({ description: 'worker-a: Part A', type: 'coder' });
  expect(listed.runs.find((r) => r.id === request.run_id)!.status).toBe('parked');
  const text = await cli(['runs', 'list']);
  expect(text.stdout).toMatch(new RegExp(`waiting: ${request.id} +write_file .*subagent ${request.subagent!.id} "worker-a: Part A"`));
  expect(worktreeReadme()).toBe('a\n');
  return { requestId: request.id, parkedIds };
}

/** A file is replaced only after it was read in the conversation. */
const readFirst = () => reply().tool('read_file', { path: 'src/a/README' });

const towerScript = (): ReplyInput[] => [
  reply().tool('tower_init', { objective: 'part A' }),
  reply().tool('tower_plan', { missions: [{ id: 'a', title: 'Part A', scope: ['src/a/**'], tasks: ['write A'] }] }),
  reply().tool('tower_spawn', { role: 'worker', mission: 'a' }),
  reply().text('worker started'),
  reply().text('tower done'),
];

describe('a Tower worker that needs a person parks the unattended run', () => {
  it('approved from another process: the worker writes in its worktree, finishes, and wakes the tower, which finishes', async () => {
    route([readFirst(), reply().tool('write_file', { path: 'src/a/README', content: 'A from the worker\n' }), reply().text('wrote part A')], towerScript());
    const { requestId, parkedIds } = await parkOnWorker();
    expect(parkedIds).toEqual([requestId]);

    const approved = await cli(['runs', 'approve', requestId, '--json']);
    expect(approved.hung, approved.stderr).toBe(false);
    expect(approved.code).toBe(0);
    expect(worktreeReadme()).toBe('A from the worker\n');
    // The tower's next request carries the worker's answer (its task's wake-up), and its reply ended the run.
    expect(textOf(lastMessage(towerRequests().at(-1)!).content)).toContain('wrote part A');
    const listed = await pending();
    expect(listed.approvals).toHaveLength(0);
    expect(listed.runs[0]!.status).toBe('finished');
    expect(existsSync(join(repo, 'src', 'a', 'README')) && readFileSync(join(repo, 'src', 'a', 'README'), 'utf8')).toBe('a\n');
  }, 300_000);

  it('denied from another process: the worker gets the denial and its answer reaches the tower', async () => {
    route([readFirst(), reply().tool('write_file', { path: 'src/a/README', content: 'nope\n' }), reply().text('the person refused the write')], towerScript());
    const { requestId } = await parkOnWorker();

    const denied = await cli(['runs', 'deny', requestId, '--reason', 'not this file', '--json']);
    expect(denied.hung, denied.stderr).toBe(false);
    expect(denied.code).toBe(0);
    expect(worktreeReadme()).toBe('a\n');
    expect(textOf(lastMessage(workerRequests().at(-1)!).content)).toContain('not this file');
    expect(textOf(lastMessage(towerRequests().at(-1)!).content)).toContain('the person refused the write');
  }, 300_000);
});
