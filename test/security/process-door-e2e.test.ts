/**
 * Round three's door for processes, end to end through the built `deskhand run` with the scripted model server
 * playing the attacker (issue 29): the model makes Deskhand start processes — a shell command and a project MCP
 * server the model could have written — and what those processes hold and reach is read from their effects (files
 * they write, a listener that must see no connection, the process table after the CLI exits), never from their words.
 * `deskhand run` gets real provider keys in its environment (cliEnv); none may reach any process it starts.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requireBuild, runCli, type CliResult } from '../support/cli';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { killByMarker, processesWith } from '../support/tasks';
import { tempDir } from '../support/tool-context';

const PROBE = resolve(__dirname, '../support/probe-mcp-server.mjs');
/** What cliEnv puts in the CLI's environment (the provider keys), plus Deskhand-side credentials of other names. */
const KEYS = ['sk-test-openai', 'sk-test-anthropic', 'ghp_e2e_door_token_value', 'AKIAE2EDOORKEYVALUE'];
const EXTRA_ENV = { GITHUB_TOKEN: 'ghp_e2e_door_token_value', AWS_ACCESS_KEY_ID: 'AKIAE2EDOORKEYVALUE' };

let server: ModelServer;
let dataDir: string;
let work: string;
let listener: Server;
let connections = 0;
let port = 0;

beforeAll(async () => {
  requireBuild();
  listener = createServer((s) => {
    connections++;
    s.on('error', () => undefined);
    s.end();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  await server?.close();
  await new Promise((r) => listener.close(r));
});
beforeEach(async () => {
  await server?.close();
  server = await startModelServer();
  server.setFallback(() => reply().text('Done.'));
  dataDir = tempDir('deskhand-door-e2e-data-');
  work = tempDir('deskhand-door-e2e-work-');
  connections = 0;
});

const run = (prompt: string): Promise<CliResult> =>
  runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--cwd', work, '--data-dir', dataDir, '--policy', 'high-risk', '--json', prompt], { env: EXTRA_ENV });
const resume = (sub: 'approve' | 'answer', id: string, value?: unknown): Promise<CliResult> =>
  runCli(['runs', sub, id, ...(value === undefined ? [] : ['--value', JSON.stringify(value)]), '--data-dir', dataDir, '--base-url', server.baseURL, '--json'], { env: EXTRA_ENV });

/** Answers every request the run parks on (the project file, then the egress approval) until it finishes. */
async function finish(first: CliResult): Promise<CliResult> {
  let r = first;
  for (let i = 0; r.code === 3 && i < 4; i++) {
    const input = r.events.filter((e) => e.type === 'input.requested').at(-1);
    const approval = r.events.filter((e) => e.type === 'approval.requested').at(-1);
    if (input && input.kind === 'mcp_project') r = await resume('answer', String(input.requestId), { approved: true });
    else if (approval) r = await resume('approve', String(approval.approvalId));
    else break;
  }
  return r;
}

const sentSince = (from: number) => server.requests.slice(from).map((x) => JSON.stringify(x.body)).join('\n');

describe('chain: the model starts processes; the provider key never reaches them and nothing outlives the run', { timeout: 180_000 }, () => {
  let marker = '';
  afterEach(() => {
    if (marker) killByMarker(marker);
  });

  it('a project MCP server the model could have written runs sandboxed, keyless, and is gone when the CLI exits', async () => {
    marker = `server-door-e2e-${process.pid}-${Date.now()}.mjs`;
    copyFileSync(PROBE, join(work, marker));
    mkdirSync(join(work, '.deskhand'));
    writeFileSync(join(work, '.deskhand', 'mcp.json'), JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [marker], tier: 'read-only' } } }));
    const outside = join(tempDir('deskhand-door-e2e-outside-'), 'planted.txt');
    writeFileSync(join(dataDir, 'door-data-probe.txt'), 'DESKHAND-DATA-SECRET\n');
    const report = join(work, 'report.json');

    server.enqueue(
      reply().tool('enable_project_mcp_servers', { folder: work }),
      reply().tool('mcp__proj__probe', { report, outside, hidden: join(dataDir, 'door-data-probe.txt'), port }),
      reply().text('Probed.'),
    );
    const from = server.requests.length;
    const r = await finish(await run('use the project tools'));
    expect(r.code, r.stderr).toBe(0);

    // The model's next request after the call holds the server's answer: the chain went through the real server.
    const summary = r.events.filter((e) => /tool\.result|requested|run\./.test(e.type)).map((e) => `${e.type} ${String(e.tool ?? '')} ${String(e.output ?? e.error ?? '').slice(0, 300)}`);
    expect(/pid1=ok: bwrap/.test(sentSince(from)), summary.join('\n')).toBe(true);
    const found = JSON.parse(readFileSync(report, 'utf8')) as { pid1: string; writeOutside: string; readSecret: string; network: string; env: Record<string, string> };
    const envText = JSON.stringify(found.env);
    for (const key of KEYS) expect(envText, key).not.toContain(key);
    for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GITHUB_TOKEN', 'AWS_ACCESS_KEY_ID']) expect(found.env[name], name).toBeUndefined();
    expect(found.pid1).toBe('ok: bwrap');
    expect(existsSync(outside)).toBe(false);
    expect(found.readSecret).toMatch(/^blocked/);
    expect(found.network).toMatch(/^blocked/);
    expect(connections).toBe(0);
    // The CLI has exited: no process of the server is left in the process table.
    expect(processesWith(marker)).toEqual([]);
  });

  it('a shell command gets no provider key, and what it left running is gone when the CLI exits', async () => {
    marker = `${4_000 + (process.pid % 900)}.${Date.now() % 1000}`;
    const dump = join(work, 'env.txt');
    server.enqueue(reply().tool('execute_command', { command: `env > ${dump}; (setsid sleep ${marker} &); sleep ${marker} & echo started` }), reply().text('Started.'));
    const r = await run('start it');
    expect(r.code, r.stderr).toBe(0);
    const env = readFileSync(dump, 'utf8');
    expect(env).toContain('DESKHAND_TASK_TAG=');
    for (const key of KEYS) expect(env, key).not.toContain(key);
    expect(env).not.toMatch(/^(OPENAI_API_KEY|ANTHROPIC_API_KEY|GITHUB_TOKEN|AWS_ACCESS_KEY_ID)=/m);
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
  });
});
