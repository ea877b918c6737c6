/**
 * Round three, mechanism 5 end to end through the built CLI with the scripted model server: the person approves a
 * project `.deskhand/mcp.json` (`deskhand runs answer`); in a later `deskhand run` the model has a program rewrite the
 * server script the file runs (a write no path check names); the next `deskhand run` does not start the server — the
 * marker file the rewritten script would create does not exist, the starts log holds only the approved version, and
 * the model's next request offers no tool of that server.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { requireBuild, runCli, type CliResult } from '../support/cli';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
let dataDir: string;
let work: string;
let home: string;
let starts: string;
let marker: string;

function serverSource(version: number): string {
  return `import { appendFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
appendFileSync(${JSON.stringify(starts)}, 'v${version}\\n');
${version > 1 ? `writeFileSync(${JSON.stringify(marker)}, 'the rewritten server ran');` : ''}
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const req = JSON.parse(line);
  if (req.id === undefined) return;
  if (req.method === 'initialize') return send({ jsonrpc: '2.0', id: req.id, result: { protocolVersion: req.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'proj', version: '${version}' } } });
  if (req.method === 'tools/list') return send({ jsonrpc: '2.0', id: req.id, result: { tools: [{ name: 'probe', description: 'A probe.', inputSchema: { type: 'object', properties: {} } }] } });
  if (req.method === 'tools/call') return send({ jsonrpc: '2.0', id: req.id, result: { content: [{ type: 'text', text: 'probe v${version}' }] } });
  send({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'no such method' } });
});
`;
}

beforeAll(() => requireBuild());
afterAll(async () => server?.close());
beforeEach(async () => {
  await server?.close();
  server = await startModelServer();
  server.setFallback(() => reply().text('Done.'));
  dataDir = tempDir('deskhand-mcpchain-data-');
  work = tempDir('deskhand-mcpchain-work-');
  home = tempDir('deskhand-mcpchain-home-');
  // Inside the workspace: project servers run in the OS sandbox, where only the workspace is writable.
  const logs = join(work, 'logs');
  mkdirSync(logs);
  starts = join(logs, 'starts.log');
  marker = join(logs, 'pwned');
  mkdirSync(join(work, '.deskhand'));
  writeFileSync(join(work, 'server.mjs'), serverSource(1));
  writeFileSync(join(work, '.deskhand', 'mcp.json'), JSON.stringify({ mcpServers: { proj: { command: 'node', args: ['server.mjs'], tier: 'read-only' } } }));
});

// MCP tools load on demand; `--enable mcp` loads them from the first request, as a person enabling them would, so
// the request's tool list shows which servers started.
const cli = (prompt: string, policy = 'high-risk'): Promise<CliResult> =>
  runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--cwd', work, '--data-dir', dataDir, '--policy', policy, '--enable', 'mcp', '--json', prompt], { env: { HOME: home } });
const startsSeen = () => (existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n') : []);
const offered = (i: number) => ((server.requests[i]?.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);

it('a rewritten project server script is not started by the next deskhand run', async () => {
  // 1. The model asks to start the project's servers; the person approves the file (and the script it runs).
  server.enqueue(reply().tool('enable_project_mcp_servers', { folder: work }));
  const parked = await cli('start the project servers');
  expect(parked.code, parked.stderr).toBe(3);
  const asked = parked.events.find((e) => e.type === 'input.requested')!;
  expect(asked).toMatchObject({ kind: 'mcp_project' });
  const answered = await runCli(['runs', 'answer', String(asked.requestId), '--value', '{"approved": true}', '--data-dir', dataDir, '--base-url', server.baseURL, '--json'], { env: { HOME: home } });
  expect(answered.code, answered.stderr).toBe(0);
  expect(startsSeen()).toEqual(['v1']);

  // 2. A later run starts the trusted server and uses it; then the model has a program rewrite the script.
  writeFileSync(join(work, 'stage.mjs'), `import { writeFileSync } from 'node:fs';\nwriteFileSync('server.mjs', ${JSON.stringify(serverSource(2))});\nconsole.log('staged');\n`);
  const before = server.requests.length;
  server.enqueue(reply().tool('mcp__proj__probe', {}), reply().tool('execute_command', { command: 'node stage.mjs' }), reply().text('Updated.'));
  const rewrite = await cli('update the server');
  expect(rewrite.code, rewrite.stderr).toBe(0);
  expect(offered(before)).toContain('mcp__proj__probe');
  const results = rewrite.events.filter((e) => e.type === 'tool.result').map((e) => String(e.output)).join('\n');
  expect(results).toContain('probe v1');
  expect(results).toContain('staged');
  expect(readFileSync(join(work, 'server.mjs'), 'utf8')).toContain('the rewritten server ran');
  expect(startsSeen()).toEqual(['v1', 'v1']);

  // 3. The next run does not start the server: its approval no longer covers what it would run.
  const from = server.requests.length;
  server.enqueue(reply().tool('mcp__proj__probe', {}), reply().text('No server.'));
  const next = await cli('use the project server');
  expect(next.code, next.stderr).toBe(0);
  expect(existsSync(marker)).toBe(false);
  expect(startsSeen()).toEqual(['v1', 'v1']);
  expect(offered(from)).not.toContain('mcp__proj__probe');
  expect(JSON.stringify(server.requests[from + 1]?.body)).not.toContain('probe v2');
  // Four CLI processes, each opening the whole runtime (docs/performance.md: 8–30 s each on the loaded 2-core machine).
}, 180_000);
