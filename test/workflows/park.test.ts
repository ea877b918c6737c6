/**
 * Parking through workflow phases (issue 30), end to end through the built `deskhand` binary and the scripted model
 * server: a read-only parent run with --json (nobody can answer) starts a two-phase workflow; its second phase's child
 * asks to write a file. The process parks (exit 3) with the child's request in `run.parked` and `runs list` (the child,
 * its workflow and phase named); `runs approve|deny` in another process replays the script from its journal (the
 * first phase's child is not asked again, its blackboard post not made again), continues the parked child and
 * finishes the workflow, whose result wakes the parent. A script that asks for something else on replay fails with
 * the reason instead. Every CLI call has a deadline (a process that hangs, as before the change, fails the test), and
 * the process table holds nothing of the data folder after each exit.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireBuild, runCli, type CliResult } from '../support/cli';
import { reply, startModelServer, type ModelServer, type RecordedRequest, type ReplyInput } from '../support/model-server';
import { rawAll, rawRun } from '../support/raw-db';
import { processesMarked, until } from '../support/tasks';
import { tempDir } from '../support/tool-context';
import { firstUser, lastMessage, textOf } from '../subagents/harness';

const HANG_MS = 60_000;

let server: ModelServer;
let dataDir: string;
let work: string;

beforeEach(async () => {
  requireBuild();
  server = await startModelServer();
  dataDir = tempDir('deskhand-park-wf-data-');
  work = tempDir('deskhand-park-wf-work-');
});
afterEach(async () => {
  await server.close();
});

/** The CLI with a deadline; afterwards nothing of this test's data folder is left in the process table. */
async function cli(args: string[]): Promise<CliResult & { hung: boolean }> {
  const r = await runCli([...args, '--data-dir', dataDir], { hangMs: HANG_MS });
  await until(() => processesMarked([dataDir]).length === 0, 'no leftover process', 5_000).catch(() => undefined);
  expect(processesMarked([dataDir])).toEqual([]);
  return r;
}

const SCRIPT = `
const facts = await phase('Gather', async () => {
  const found = await agent('CHILD GATHER: list the facts', { description: 'gatherer', type: 'explore' });
  await blackboard.post('facts', found);
  return found;
});
const wrote = await phase('Write', async () => agent('CHILD WRITE: create a.txt from ' + facts, { description: 'writer' }));
return 'report: ' + wrote;
`;

function route(queues: Record<string, ReplyInput[]>, parent: ReplyInput[]): void {
  server.setFallback((req) => {
    const first = firstUser(req);
    for (const [key, q] of Object.entries(queues)) if (first.includes(key)) return q.shift() ?? { status: 500, message: `no reply left for ${key}` };
    return parent.shift() ?? { status: 500, message: 'no parent reply left' };
  });
}
const requestsOf = (key: string): RecordedRequest[] => server.requests.filter((r) => firstUser(r).includes(key));

interface ListJson {
  runs: { id: string; status: string }[];
  approvals: { id: string; tool: string; run_id: string; subagent?: { id: string; description: string; type: string; workflow?: { id: string; phase: string | null } } }[];
}
async function pending(): Promise<ListJson> {
  const list = await cli(['runs', 'list', '--json']);
  expect(list.code).toBe(0);
  return JSON.parse(list.stdout.trim().split('\n').at(-1)!) as ListJson;
}

const workflowRow = () => rawAll<{ id: string; status: string; error: string | null; result: string | null; phases: string }>(dataDir, 'SELECT id, status, error, result, phases FROM workflow_runs')[0]!;
const posts = () => rawAll<{ body: string }>(dataDir, 'SELECT body FROM blackboard_posts');

/** The parent starts the workflow (approved from another process), which parks on its writer's request. */
async function parkOnWriter(): Promise<{ requestId: string; parkedIds: string[] }> {
  const first = await cli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'read-only', '--enable', 'workflows,subagents', '--cwd', work, '--json', 'PARENT: run the workflow']);
  expect(first.hung, first.stderr).toBe(false);
  expect(first.code).toBe(3);
  const start = (await pending()).approvals.find((a) => a.tool === 'workflow')!;
  const started = await cli(['runs', 'approve', start.id, '--json']);
  expect(started.hung, started.stderr).toBe(false);
  // The writer's write asks nobody can answer: the workflow parks, and the process with it.
  expect(started.code, started.stderr.slice(-2000)).toBe(3);
  const parkedIds = started.events.filter((e) => e.type === 'run.parked').flatMap((e) => e.approvalIds as string[]);
  const listed = await pending();
  const request = listed.approvals.find((a) => a.tool === 'write_file')!;
  expect(request.subagent).toMatchObject({ description: 'writer', type: 'coder', workflow: { id: workflowRow().id, phase: 'Write' } });
  expect(listed.runs.find((r) => r.id === request.run_id)!.status).toBe('parked');
  const text = await cli(['runs', 'list']);
  expect(text.stdout).toMatch(new RegExp(`waiting: ${request.id} +write_file .*subagent ${request.subagent!.id} "writer" of workflow ${workflowRow().id} \\(phase "Write"\\)`));
  expect(workflowRow().status).toBe('parked');
  expect(existsSync(join(work, 'a.txt'))).toBe(false);
  expect(requestsOf('CHILD GATHER')).toHaveLength(1);
  expect(posts()).toEqual([{ body: 'alpha and beta' }]);
  return { requestId: request.id, parkedIds };
}

const parentScript = (): ReplyInput[] => [reply().tool('workflow', { script: SCRIPT, args: 'x' }), reply().text('workflow started'), reply().text('parent done')];

describe('a workflow phase whose child needs a person parks the unattended run', () => {
  it('approved from another process: the script replays from its journal, the child writes, the workflow finishes and wakes the parent', async () => {
    route(
      {
        'CHILD GATHER': [reply().text('alpha and beta')],
        'CHILD WRITE': [reply().tool('write_file', { path: 'a.txt', content: 'from the writer\n' }), reply().text('wrote a.txt')],
      },
      parentScript(),
    );
    const { requestId, parkedIds } = await parkOnWriter();
    expect(parkedIds).toEqual([requestId]);

    const approved = await cli(['runs', 'approve', requestId, '--json']);
    expect(approved.hung, approved.stderr).toBe(false);
    expect(approved.code, approved.stderr.slice(-2000)).toBe(0);
    expect(readFileSync(join(work, 'a.txt'), 'utf8')).toBe('from the writer\n');
    // The first phase came from the journal: its child was not asked again, its post not made again.
    expect(requestsOf('CHILD GATHER')).toHaveLength(1);
    expect(posts()).toHaveLength(1);
    const row = workflowRow();
    expect(row).toMatchObject({ status: 'finished', result: 'report: wrote a.txt' });
    expect((JSON.parse(row.phases) as { name: string }[]).map((p) => p.name)).toEqual(['Gather', 'Write']);
    // The workflow's end woke the parent: its next request carries the result.
    expect(textOf(lastMessage(requestsOf('PARENT').at(-1)!).content)).toContain('report: wrote a.txt');
    expect((await pending()).approvals).toHaveLength(0);
  }, 300_000);

  it('denied from another process: the denial reaches the child, whose answer the workflow goes on with', async () => {
    route(
      {
        'CHILD GATHER': [reply().text('alpha and beta')],
        'CHILD WRITE': [reply().tool('write_file', { path: 'a.txt', content: 'nope\n' }), reply().text('the person refused the write')],
      },
      parentScript(),
    );
    const { requestId } = await parkOnWriter();
    const denied = await cli(['runs', 'deny', requestId, '--reason', 'not this file', '--json']);
    expect(denied.hung, denied.stderr).toBe(false);
    expect(denied.code, denied.stderr.slice(-2000)).toBe(0);
    expect(existsSync(join(work, 'a.txt'))).toBe(false);
    expect(textOf(lastMessage(requestsOf('CHILD WRITE').at(-1)!).content)).toContain('not this file');
    expect(requestsOf('CHILD GATHER')).toHaveLength(1);
    expect(workflowRow()).toMatchObject({ status: 'finished', result: 'report: the person refused the write' });
    expect(textOf(lastMessage(requestsOf('PARENT').at(-1)!).content)).toContain('report: the person refused the write');
  }, 300_000);

  it('a map phase parks on every child that asks; each answer replays the script, which parks again until the last', async () => {
    const script = `
const facts = await phase('Gather', async () => agent('CHILD GATHER: list the facts', { description: 'gatherer', type: 'explore' }));
const done = await phase('Write', async () => map(['one', 'two'], 'CHILD ITEM {{input}}: write it from ' + facts, { description: 'writers' }));
return done.map((d) => d.status + ': ' + d.result).join(' | ');
`;
    route(
      {
        'CHILD GATHER': [reply().text('alpha and beta')],
        'CHILD ITEM one': [reply().tool('write_file', { path: 'one.txt', content: '1\n' }), reply().text('wrote one')],
        'CHILD ITEM two': [reply().tool('write_file', { path: 'two.txt', content: '2\n' }), reply().text('wrote two')],
      },
      [reply().tool('workflow', { script, args: 'x' }), reply().text('workflow started'), reply().text('parent done')],
    );
    const first = await cli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'read-only', '--enable', 'workflows,subagents', '--cwd', work, '--json', 'PARENT: run the workflow']);
    expect(first.code).toBe(3);
    const start = (await pending()).approvals.find((a) => a.tool === 'workflow')!;
    const started = await cli(['runs', 'approve', start.id, '--json']);
    expect(started.hung, started.stderr).toBe(false);
    expect(started.code).toBe(3);
    const writes = (await pending()).approvals.filter((a) => a.tool === 'write_file');
    expect(writes.map((w) => w.subagent?.description).sort()).toEqual(['writers #1', 'writers #2']);
    expect(new Set(started.events.filter((e) => e.type === 'run.parked').flatMap((e) => e.approvalIds as string[]))).toEqual(new Set(writes.map((w) => w.id)));

    const one = await cli(['runs', 'approve', writes[0]!.id, '--json']);
    expect(one.hung, one.stderr).toBe(false);
    expect(one.code).toBe(3);
    expect(workflowRow().status).toBe('parked');
    const two = await cli(['runs', 'approve', writes[1]!.id, '--json']);
    expect(two.hung, two.stderr).toBe(false);
    expect(two.code).toBe(0);
    expect(readFileSync(join(work, 'one.txt'), 'utf8')).toBe('1\n');
    expect(readFileSync(join(work, 'two.txt'), 'utf8')).toBe('2\n');
    expect(requestsOf('CHILD GATHER')).toHaveLength(1);
    expect(workflowRow()).toMatchObject({ status: 'finished', result: 'finished: wrote one | finished: wrote two' });
    expect(textOf(lastMessage(requestsOf('PARENT').at(-1)!).content)).toContain('finished: wrote one | finished: wrote two');
  }, 300_000);

  it('cancelled from another process while parked: a later approval of its child runs nothing of it', async () => {
    route(
      {
        'CHILD GATHER': [reply().text('alpha and beta')],
        'CHILD WRITE': [reply().tool('write_file', { path: 'a.txt', content: 'from the writer\n' }), reply().text('wrote a.txt')],
      },
      parentScript(),
    );
    const { requestId } = await parkOnWriter();
    const { id } = workflowRow();
    const cancelled = await cli(['workflows', 'cancel', id, '--reason', 'not needed']);
    expect(cancelled.stdout).toContain(`${id} cancelled`);
    const writerAsked = requestsOf('CHILD WRITE').length;

    const approved = await cli(['runs', 'approve', requestId, '--json']);
    expect(approved.hung, approved.stderr).toBe(false);
    expect(existsSync(join(work, 'a.txt'))).toBe(false);
    expect(requestsOf('CHILD WRITE')).toHaveLength(writerAsked);
    const writer = rawAll<{ status: string; error: string }>(dataDir, "SELECT status, error FROM subagents WHERE description = 'writer'")[0]!;
    expect(writer.status).toBe('cancelled');
    expect(writer.error).toContain(`its workflow ${id} cancelled while it waited for a person`);
    expect(workflowRow()).toMatchObject({ status: 'cancelled', error: 'not needed' });
  }, 300_000);

  it.each([
    ['a phase renamed', (s: string) => s.replace("phase('Gather'", "phase('Collect'"), /its phase 1 is "Collect" where it was "Gather"/],
    ['a call changed', (s: string) => s.replace('CHILD GATHER: list the facts', 'CHILD GATHER: list other facts'), /its call 1 is agent\(.*list other facts.* where it was agent\(.*list the facts/],
    ['a call dropped', (s: string) => s.replace("await blackboard.post('facts', found);", ''), /its call 2 is agent\(.*CHILD WRITE.* where it was post\(/],
  ])('a script that asks for something else on replay (%s) fails with the reason; nothing of the parked child runs', async (_name, change, reason) => {
    route(
      {
        'CHILD GATHER': [reply().text('alpha and beta'), reply().text('asked again')],
        'CHILD WRITE': [reply().tool('write_file', { path: 'a.txt', content: 'from the writer\n' }), reply().text('wrote a.txt')],
      },
      parentScript(),
    );
    const { requestId } = await parkOnWriter();
    const { id } = workflowRow();
    expect(rawRun(dataDir, 'UPDATE workflow_runs SET script = ? WHERE id = ?', change(SCRIPT), id)).toBe(1);
    const writerAsked = requestsOf('CHILD WRITE').length;

    const approved = await cli(['runs', 'approve', requestId, '--json']);
    expect(approved.hung, approved.stderr).toBe(false);
    const row = workflowRow();
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/^the workflow cannot resume: its script asked for something else than before it parked/);
    expect(row.error).toMatch(reason);
    // No result was mixed in: the parked writer did not continue (no write, no new request), the gatherer not re-run.
    expect(existsSync(join(work, 'a.txt'))).toBe(false);
    expect(requestsOf('CHILD WRITE')).toHaveLength(writerAsked);
    expect(requestsOf('CHILD GATHER')).toHaveLength(1);
    // The parent hears why (the workflow's end is its wake-up), and `workflows show` says it too.
    expect(textOf(lastMessage(requestsOf('PARENT').at(-1)!).content)).toContain('the workflow cannot resume');
    const show = await cli(['workflows', 'show', id]);
    expect(show.stdout).toContain('the workflow cannot resume');
  }, 300_000);
});
