/**
 * `deskhand mcp add|list|remove|test` and `deskhand run` with MCP servers, through the CLI's entry (`main`, in this
 * process): a stdio server added with --env and a command after --, an HTTP one with --url; a server
 * that cannot start shows its error and stderr tail in `mcp list` after a run that used the other server and
 * finished; `--profile` narrows the tools and adds its instructions.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { main } from '../../src/main/host/cli/commands';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { EVERYTHING, FAKE, offeredTools } from './helpers';

/** The CLI's entry in this process (the binary only adds process.exitCode), its output captured. */
async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  process.env.OPENAI_API_KEY = 'sk-test-openai';
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

let model: ModelServer;
beforeEach(async () => {
  model = await startModelServer();
});
afterEach(async () => {
  await model.close();
});

it('adds, lists, tests and removes servers; a broken one shows its error in mcp list after a run that finished', async () => {
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  const d = ['--data-dir', dataDir];
  expect((await cli(['mcp', 'add', 'everything', ...d, '--tier', 'read-only', '--env', 'GREETING=hi', '--', EVERYTHING])).code).toBe(0);
  expect((await cli(['mcp', 'add', 'broken', ...d, '--', process.execPath, FAKE, 'crash-now'])).code).toBe(0);
  expect((await cli(['mcp', 'add', 'remote', ...d, '--url', 'http://127.0.0.1:9/mcp'])).code).toBe(0);
  const bad = await cli(['mcp', 'add', 'bad_name', ...d, '--', 'x']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('NAME of 1–40 letters, digits or dashes');
  const noCmd = await cli(['mcp', 'add', 'nothing', ...d]);
  expect(noCmd.stderr).toContain('needs -- COMMAND [ARGS…] (stdio) or --url URL (HTTP)');

  const tested = await cli(['mcp', 'test', 'everything', ...d]);
  expect(tested.code).toBe(0);
  expect(tested.stdout).toMatch(/everything: connected, \d+ tools: .*echo/);
  const failed = await cli(['mcp', 'test', 'broken', ...d]);
  expect(failed.code).toBe(1);
  expect(failed.stdout).toContain('fatal: could not open database');

  // A run uses the working server; the broken ones do not stop it.
  model.enqueue(reply().tool('mcp__everything__echo', { message: 'from the cli' }), reply().text('done'));
  const run = await cli(['run', ...d, '--provider', 'openai', '--base-url', model.baseURL, '--cwd', work, '--policy', 'read-only', 'echo something']);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('done');
  expect(JSON.stringify(model.requests[1]!.body)).toContain('Echo: from the cli');

  const list = await cli(['mcp', 'list', ...d]);
  expect(list.stdout).toMatch(/everything {2}stdio {2}connected, \d+ tools {2}tier read-only/);
  expect(list.stdout).toMatch(/broken {2}stdio {2}failed[\s\S]*last error: [^\n]*exited \(code 2\)[\s\S]*fatal: could not open database \/nonexistent\/db\.sqlite/);
  expect(list.stdout).toMatch(/remote {2}http {2}failed[\s\S]*last error: /);
  const json = JSON.parse((await cli(['mcp', 'list', '--json', ...d])).stdout) as { name: string; status: string; stderrTail: string | null }[];
  expect(json.find((s) => s.name === 'broken')).toMatchObject({ status: 'failed' });

  expect((await cli(['mcp', 'remove', 'remote', ...d])).code).toBe(0);
  expect((await cli(['mcp', 'remove', 'remote', ...d])).code).toBe(1);
  expect((await cli(['mcp', 'list', '--json', ...d])).stdout).not.toContain('"remote"');
}, 120_000);

it('run --profile: its instructions reach the model, denied tools are not offered, its policy is the default', async () => {
  const dataDir = tempDir('deskhand-data-');
  const d = ['--data-dir', dataDir];
  const added = await cli(['profiles', 'add', 'reviewer', ...d, '--system', 'You review code and never change it.', '--deny', 'write_file', '--deny', 'execute_*', '--policy', 'read-only']);
  expect(added.code).toBe(0);
  expect((await cli(['profiles', 'list', ...d])).stdout).toContain('reviewer');
  model.enqueue(reply().text('ok'));
  const run = await cli(['run', ...d, '--provider', 'openai', '--base-url', model.baseURL, '--cwd', tempDir('deskhand-work-'), '--profile', 'reviewer', 'look']);
  expect(run.code).toBe(0);
  const body = model.requests[0]!.body as { messages: { role: string; content: string }[] };
  expect(body.messages[0]!.content).toContain('Agent profile "reviewer":\nYou review code and never change it.');
  const names = offeredTools(model, 0).map((t) => t.name);
  expect(names).toContain('read_file');
  expect(names).not.toContain('write_file');
  expect(names).not.toContain('execute_command');
  const missing = await cli(['run', ...d, '--provider', 'openai', '--base-url', model.baseURL, '--profile', 'nobody', 'x']);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('No agent profile "nobody"');
}, 60_000);

it('read-only commands start no MCP server; run starts the configured ones', async () => {
  const dataDir = tempDir('deskhand-data-');
  const d = ['--data-dir', dataDir];
  const marker = join(tempDir('deskhand-marker-'), 'started');
  // A "server" whose only effect is a file saying it was started; it answers every request with an error (so it
  // never connects, and is not taken for a server that exits on the version probe and started again).
  const answer = `process.stdin.on('data', (b) => { for (const l of String(b).split('\\n')) { try { const m = JSON.parse(l); if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } }) + '\\n'); } catch {} } })`;
  const server = [process.execPath, '-e', `require('fs').appendFileSync(${JSON.stringify(marker)}, 'started\\n'); setTimeout(() => process.exit(0), 2000); ${answer}`];
  expect((await cli(['mcp', 'add', 'witness', ...d, '--', ...server])).code).toBe(0);
  expect((await cli(['runs', 'list', ...d])).code).toBe(0);
  expect((await cli(['policy', 'explain', ...d, '--tool', 'read_file', '--args', '{"path":"x"}'])).code).toBe(0);
  expect((await cli(['schedule', 'list', ...d])).code).toBe(0);
  expect(existsSync(marker)).toBe(false);
  // The same configuration, and a command that runs a conversation: the server is started — once. A start by one of
  // the read-only commands above (even one still booting when they returned) would show as a second line by now.
  model.enqueue(reply().text('ok'));
  expect((await cli(['run', ...d, '--provider', 'openai', '--base-url', model.baseURL, '--cwd', tempDir('deskhand-work-'), 'hi'])).code).toBe(0);
  await vi.waitFor(() => expect(existsSync(marker)).toBe(true), { timeout: 10_000 });
  expect(readFileSync(marker, 'utf8')).toBe('started\n');
}, 60_000);
