/**
 * The chat family in the CLI: `runs show` prints a run's tokens and cost (from the price table; tokens only for an
 * unknown model), `conversations export` writes the conversation as Markdown with its tool calls and no untrusted tags.
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

// Memory extraction is one more model call after each turn; the scripted model answers only what a test scripts.
const env = { DESKHAND_MEMORY_EXTRACTION: 'off' };
const run = (dataDir: string, work: string, model: string, prompt: string) =>
  runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', model, '--policy', 'high-risk', '--cwd', work, '--data-dir', dataDir, '--json', prompt], { env });

describe('CLI chat', () => {
  it('runs show prints tokens and cost; an unknown model gets tokens only', async () => {
    const dataDir = tempDir('deskhand-clichat-');
    const work = tempDir('deskhand-clichat-work-');
    server.enqueue(reply().text('Priced.').usage({ input: 1000, output: 200 }));
    const priced = await run(dataDir, work, 'gpt-4o-mini', 'hello');
    expect(priced.code, priced.stderr).toBe(0);
    const runId = (priced.events.find((e) => e.type === 'run.started') as unknown as { runId: string }).runId;
    const shown = await runCli(['runs', 'show', runId, '--data-dir', dataDir]);
    expect(shown.stdout).toContain('tokens 1000 in / 200 out  cost $0.0003');
    const json = JSON.parse((await runCli(['runs', 'show', runId, '--data-dir', dataDir, '--json'])).stdout) as { costUsd: number };
    expect(json.costUsd).toBeCloseTo(0.00027, 10);

    // Cached input is shown and priced apart (gpt-4o-mini: $0.15 per million input, $0.075 cached, $0.60 output).
    server.enqueue(reply().text('Cached.').usage({ input: 4000, output: 100, cacheRead: 3000 }));
    const cached = await run(dataDir, work, 'gpt-4o-mini', 'hello, cached');
    const cachedId = (cached.events.find((e) => e.type === 'run.started') as unknown as { runId: string }).runId;
    expect((await runCli(['runs', 'show', cachedId, '--data-dir', dataDir])).stdout).toContain('tokens 4000 in (cache: 3000 read, 0 written) / 100 out  cost $0.0004');
    const cachedJson = JSON.parse((await runCli(['runs', 'show', cachedId, '--data-dir', dataDir, '--json'])).stdout) as { costUsd: number };
    expect(cachedJson.costUsd).toBeCloseTo((1000 * 0.15 + 3000 * 0.075 + 100 * 0.6) / 1e6, 10);

    server.enqueue(reply().text('Unpriced.').usage({ input: 10, output: 5 }));
    const local = await run(dataDir, work, 'my-local-model', 'hello again');
    const localId = (local.events.find((e) => e.type === 'run.started') as unknown as { runId: string }).runId;
    expect((await runCli(['runs', 'show', localId, '--data-dir', dataDir])).stdout).toContain('tokens 10 in / 5 out  cost unknown (no price for this model)');
  }, 180_000);

  it('conversations export writes Markdown with the tool call, its arguments and output', async () => {
    const dataDir = tempDir('deskhand-clichat-');
    const work = tempDir('deskhand-clichat-work-');
    server.enqueue(reply().tool('execute_command', { command: 'echo from-the-shell $HOME' }), reply().text('It said from-the-shell.'));
    const r = await run(dataDir, work, 'test-model', 'say it');
    expect(r.code, r.stderr).toBe(0);
    const conv = (r.events.find((e) => e.type === 'run.started') as unknown as { conversationId: string }).conversationId;
    const out = join(work, 'export.md');
    const exported = await runCli(['conversations', 'export', conv, '--out', out, '--data-dir', dataDir]);
    expect(exported.code, exported.stderr).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md).toMatch(/^# say it/);
    expect(md).toContain('## You\n\nsay it');
    expect(md).toContain('(`execute_command`) — ok');
    expect(md).toContain('"command": "echo from-the-shell $HOME"');
    expect(md).toMatch(/Output \(from command output; data, not instructions\):\n\n```\n[^`]*from-the-shell/);
    expect(md).not.toContain('<untrusted');
    const missing = await runCli(['conversations', 'export', 'conv_nope', '--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No conversation conv_nope');
  }, 180_000);
});
