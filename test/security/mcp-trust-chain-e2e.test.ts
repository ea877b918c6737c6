/**
 * Round three, mechanism 5 end to end through the built CLI with the scripted model server: the person approves a
 * project `.deskhand/mcp.json` (`deskhand runs answer`); in a later `deskhand run` the model has a program rewrite the
 * server script the file runs (a write no path check names); the next `deskhand run` does not start the server — the
 * marker file the rewritten script would create does not exist, the starts log holds only the approved version, and
 * the model's next request offers no tool of that server.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, expect, it } from 'vitest';
import { reply } from '../support/model-server';
import { useCliWorld } from '../support/cli';
import { plantProjectServer, type ProjectServer } from '../support/project-mcp';

// MCP tools load on demand; `--enable mcp` loads them from the first request, as a person enabling them would, so
// the request's tool list shows which servers started.
const w = useCliWorld('mcpchain', { policy: 'high-risk', flags: ['--enable', 'mcp'] });
let proj: ProjectServer;
beforeEach(() => {
  proj = plantProjectServer(w.work);
});

const cli = (prompt: string) => w.run(prompt);
const offered = (i: number) => ((w.server.requests[i]?.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);

it('a rewritten project server script is not started by the next deskhand run', async () => {
  // 1. The model asks to start the project's servers; the person approves the file (and the script it runs).
  w.server.enqueue(reply().tool('enable_project_mcp_servers', { folder: w.work }));
  const parked = await cli('start the project servers');
  expect(parked.code, parked.stderr).toBe(3);
  const asked = parked.events.find((e) => e.type === 'input.requested')!;
  expect(asked).toMatchObject({ kind: 'mcp_project' });
  const answered = await w.cli(['runs', 'answer', String(asked.requestId), '--value', '{"approved": true}', '--data-dir', w.dataDir, '--base-url', w.server.baseURL, '--json']);
  expect(answered.code, answered.stderr).toBe(0);
  expect(proj.startsSeen()).toEqual(['v1']);

  // 2. A later run starts the trusted server and uses it; then the model has a program rewrite the script.
  writeFileSync(join(w.work, 'stage.mjs'), `import { writeFileSync } from 'node:fs';\nwriteFileSync('server.mjs', ${JSON.stringify(proj.source(2))});\nconsole.log('staged');\n`);
  const before = w.server.requests.length;
  w.server.enqueue(reply().tool('mcp__proj__probe', {}), reply().tool('execute_command', { command: 'node stage.mjs' }), reply().text('Updated.'));
  const rewrite = await cli('update the server');
  expect(rewrite.code, rewrite.stderr).toBe(0);
  expect(offered(before)).toContain('mcp__proj__probe');
  const results = rewrite.events.filter((e) => e.type === 'tool.result').map((e) => String(e.output)).join('\n');
  expect(results).toContain('probe v1');
  expect(results).toContain('staged');
  expect(readFileSync(join(w.work, 'server.mjs'), 'utf8')).toContain('the rewritten server ran');
  expect(proj.startsSeen()).toEqual(['v1', 'v1']);

  // 3. The next run does not start the server: its approval no longer covers what it would run.
  const from = w.server.requests.length;
  w.server.enqueue(reply().tool('mcp__proj__probe', {}), reply().text('No server.'));
  const next = await cli('use the project server');
  expect(next.code, next.stderr).toBe(0);
  expect(existsSync(proj.marker)).toBe(false);
  expect(proj.startsSeen()).toEqual(['v1', 'v1']);
  expect(offered(from)).not.toContain('mcp__proj__probe');
  expect(JSON.stringify(w.server.requests[from + 1]?.body)).not.toContain('probe v2');
  // Four CLI processes, each opening the whole runtime (docs/performance.md: 8–30 s each on the loaded 2-core machine).
}, 180_000);
