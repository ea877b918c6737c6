/**
 * Security round three (issue 29), mechanism 1, end to end through the built `deskhand run` with the scripted model
 * server playing the tower, its worker and its reviewer: the mission's tests command the model chose asks the
 * person at tower_init, is on the plan's approval card, and at tower_merge runs in the sandbox in the mission's
 * worktree — it cannot write outside it, and the provider key is not in its environment (checked in the file it
 * writes, and in what the model is sent next).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startModelServer, type ModelServer, type ReplyInput } from '../support/model-server';
import { requireBuild, runCli, type CliResult } from '../support/cli';
import { tempDir } from '../support/tool-context';
import { firstUser } from '../subagents/harness';
import { sandboxSupport } from '../../src/main/services/sandbox/sandbox';

let server: ModelServer;
beforeAll(async () => {
  requireBuild();
  server = await startModelServer();
});
afterAll(async () => server?.close());

const KEY = 'sk-test-openai';
const approvals = (r: CliResult) => r.events.filter((e) => e.type === 'approval.requested');

describe('chain: the tower tests command', () => {
  it.skipIf(!sandboxSupport().available)('asks at tower_init, shows on the plan card, and runs sandboxed in the worktree without the provider key', async () => {
    const dataDir = tempDir('deskhand-r3-data-');
    const home = tempDir('deskhand-r3-home-');
    const repo = tempDir('deskhand-r3-repo-');
    const outside = tempDir('deskhand-r3-outside-');
    const marker = join(outside, 'marker');
    const g = (...a: string[]) => execFileSync('git', a, { cwd: repo, encoding: 'utf8' }).trim();
    g('init', '-q', '-b', 'main');
    g('config', 'user.email', 'p@example.com');
    g('config', 'user.name', 'P');
    mkdirSync(join(repo, 'src', 'a'), { recursive: true });
    writeFileSync(join(repo, 'src', 'a', 'README'), 'a\n');
    g('add', '-A');
    g('commit', '-qm', 'start');

    const tests = `echo "key=[$OPENAI_API_KEY]" > src/a/ran.txt; echo pwned > ${marker}; cat src/a/ran.txt; env | grep -c OPENAI_API_KEY; exit 1`;
    const tower: ReplyInput[] = [
      reply().tool('tower_init', { objective: 'A', tests_command: tests }),
      reply().tool('tower_plan', { missions: [{ id: 'a', title: 'Part A', scope: ['src/a/**'], tasks: ['write A'] }] }),
      reply().tool('tower_spawn', { role: 'worker', mission: 'a' }),
      reply().text('worker started'),
      // The worker's end arrives as a background-task message: a reviewer next.
      reply().tool('tower_spawn', { role: 'reviewer', mission: 'a' }),
      reply().text('reviewer started'),
      // The reviewer's end: merge (the tests run now).
      reply().tool('tower_merge', { mission: 'a' }),
      reply().text('merge tried'),
    ];
    const queues: Record<string, ReplyInput[]> = {
      'worker-a': [reply().tool('write_file', { path: 'src/a/impl.txt', content: 'A\n' }), reply().text('done')],
      'reviewer-a': [reply().tool('tower_review', { mission: 'a', verdict: 'approve', body: 'ok' }), reply().text('approved')],
    };
    server.setFallback((req) => {
      const first = firstUser(req);
      for (const [who, q] of Object.entries(queues)) if (first.includes(`You are ${who},`)) return q.shift() ?? reply().text('nothing left');
      return tower.shift() ?? reply().text('nothing left');
    });
    const env = { HOME: home };
    const run = await runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--cwd', repo, '--data-dir', dataDir, '--policy', 'high-risk', '--json', 'coordinate'], { env });
    // tower_init with a tests command asks, under the most permissive policy, and says what the command is.
    expect(run.code, run.stderr).toBe(3);
    const init = approvals(run)[0]!;
    expect(init).toMatchObject({ tool: 'tower_init' });
    expect(JSON.stringify(init.reasons)).toMatch(/tests command runs at every tower_merge.*always asks/);
    expect(JSON.stringify(init.reasons)).toMatch(/tests_command \(high-risk\)/);
    const second = await runCli(['runs', 'approve', String(init.approvalId), '--data-dir', dataDir, '--json', '--base-url', server.baseURL], { env });
    expect(second.code, second.stderr).toBe(3);
    // The plan's approval card shows the tests command.
    const plan = approvals(second)[0]!;
    expect(plan).toMatchObject({ tool: 'tower_plan' });
    expect(String(plan.preview)).toContain('Tests command (runs in the sandbox');
    expect(String(plan.preview)).toContain(`echo pwned > ${marker}`);
    const from = server.requests.length;
    const third = await runCli(['runs', 'approve', String(plan.approvalId), '--data-dir', dataDir, '--json', '--base-url', server.baseURL], { env });
    expect(third.code, third.stderr).toBe(0);

    // The tests ran (the file they write in the worktree exists) without the key, and wrote nothing outside.
    const worktrees = join(dataDir, 'tower');
    const session = execFileSync('ls', [worktrees], { encoding: 'utf8' }).trim().split('\n')[0]!;
    const ran = readFileSync(join(worktrees, session, 'a', 'src', 'a', 'ran.txt'), 'utf8');
    expect(ran).toBe('key=[]\n');
    expect(existsSync(marker)).toBe(false);
    // What the model was sent next holds the tests' output, not the key.
    const sent = server.requests.slice(from).map((r) => JSON.stringify(r.body)).join('\n');
    expect(sent).toMatch(/the mission's tests failed \(exit 1\)/);
    expect(sent).toContain('key=[]');
    expect(sent).not.toContain(KEY);
    expect(third.stdout + third.stderr).not.toContain(KEY);
  }, 180_000);
});
