/**
 * What the CLI shows a person: a command's output (inside the untrusted envelope) without the envelope's tags, the
 * conversation id to continue with, and `runs show` with the conversation, each call's arguments, its output and the
 * diff an approval showed (kept for a denied call).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../support/cli';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
beforeAll(async () => {
  requireBuild();
  server = await startModelServer();
});
afterAll(async () => server.close());

const runArgs = (dataDir: string, work: string, policy: string, prompt: string, json = false) => [
  'run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'test-model', '--policy', policy, '--cwd', work, '--data-dir', dataDir,
  ...(json ? ['--json'] : []),
  prompt,
];

describe('CLI display', () => {
  it('prints the output of a command without the untrusted tags, and the conversation id', async () => {
    const dataDir = tempDir('deskhand-clidisp-');
    const work = tempDir('deskhand-clidisp-work-');
    server.enqueue(reply().tool('execute_command', { command: 'echo first-line; echo second-line' }), reply().text('Done.'));
    const r = await runCli(runArgs(dataDir, work, 'high-risk', 'run it'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^ {4}first-line$/m);
    expect(r.stderr).toMatch(/^ {4}second-line$/m);
    expect(r.stderr).not.toMatch(/untrusted|nonce=/);
    const conv = /\(conversation (conv_[\w-]+): continue it with --conversation \1\)/.exec(r.stderr);
    expect(conv).not.toBeNull();
    // The id printed is one the CLI accepts to continue.
    server.enqueue(reply().text('Still here.'));
    const again = await runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'test-model', '--data-dir', dataDir, '--conversation', conv![1]!, 'and now?']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Still here.');
  }, 30_000);

  it('runs show names the conversation, each call’s arguments and output, and the diff of a denied write', async () => {
    const dataDir = tempDir('deskhand-clidisp-');
    const work = tempDir('deskhand-clidisp-work-');
    server.enqueue(reply().tool('write_file', { path: join(work, 'notes.txt'), content: 'alpha\nbeta\n' }));
    const parked = await runCli(runArgs(dataDir, work, 'read-only', 'write notes', true));
    expect(parked.code, parked.stderr).toBe(3);
    const requested = parked.events.find((e) => e.type === "approval.requested") as unknown as { approvalId: string; runId: string };
    server.enqueue(reply().text('Understood.'));
    const denied = await runCli(['runs', 'deny', requested.approvalId, '--reason', 'not now', '--data-dir', dataDir, '--base-url', server.baseURL, '--json']);
    expect(denied.code, denied.stderr).toBe(0);
    const shown = await runCli(['runs', 'show', requested.runId, '--data-dir', dataDir]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^conversation conv_[\w-]+ {2}"write notes" {2}in /m);
    expect(shown.stdout).toContain(`args: {"content":"alpha\\nbeta\\n","path":${JSON.stringify(join(work, "notes.txt"))}}`);
    expect(shown.stdout).toMatch(/^ {2}\[1\.0\] write_file denied /m);
    expect(shown.stdout).toMatch(/approval \S+: denied \(not now\)/);
    expect(shown.stdout).toMatch(/^ {6}\| \+alpha$/m);
    expect(() => readFileSync(join(work, 'notes.txt'))).toThrow();
  }, 30_000);
});
