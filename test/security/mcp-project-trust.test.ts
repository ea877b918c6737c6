/**
 * Round three, mechanism 5 (the trust half): the person's approval of a project `.deskhand/mcp.json` covers every
 * workspace file its servers' commands run. Proven by effect: after the model rewrites the approved `server.mjs`
 * with an ordinary workspace write, neither the automatic restart after a crash nor another process's start runs the
 * new code (the marker file it would create does not exist, and the starts log holds only the approved version)
 * until the person approves again; then it runs. A table of command-line spellings shows which files the pin covers.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { GuardedContentReader } from '../../src/main/runtime/context/content-reader';
import { parseServerConfig, projectPin, projectScripts } from '../../src/main/services/mcp/config';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { plantProjectServer, type ProjectServer } from '../support/project-mcp';
import { makeRuntime, providerFor, until } from '../extensions/helpers';

let model: ModelServer;
let runtime: AppRuntime | null = null;
let dataDir: string;
let work: string;
let proj: ProjectServer;
beforeEach(async () => {
  model = await startModelServer();
  model.setFallback(() => reply().text('done'));
  dataDir = tempDir('deskhand-mcptrust-data-');
  work = tempDir('deskhand-mcptrust-work-');
  // A project server whose tools/call crashes it (the automatic restart is what the test watches).
  proj = plantProjectServer(work, { command: process.execPath, onCall: 'exit' });
});
afterEach(async () => {
  await runtime?.mcp.close();
  runtime?.store.close();
  runtime = null;
  await model.close();
});

const opts = () => ({ provider: providerFor(model), interactive: false });

/** The person approves the project file through the model's enable_project_mcp_servers call. */
async function approveProject(rt: AppRuntime, convId: string): Promise<string> {
  model.enqueue(reply().tool('enable_project_mcp_servers', { folder: work }), reply().text('started'));
  const parked = await rt.sendMessage(convId, 'start the project servers', opts());
  expect(parked.status).toBe('parked');
  const request = rt.store.getApproval(parked.approvalIds[0]!)!;
  expect(request.kind).toBe('mcp_project');
  const done = await rt.answerRequest(request.id, { approved: true }, opts());
  expect(done?.status).toBe('finished');
  return JSON.stringify(request);
}

describe('the approval of a project MCP file covers the scripts it runs', () => {
  it('a rewritten server.mjs is not run by the automatic restart, nor by another process, until the person approves again', async () => {
    runtime = makeRuntime(dataDir);
    const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
    const shown = await approveProject(runtime, conv.id);
    // The person saw which workspace file the approval covers.
    expect(shown).toContain('Workspace files these commands run');
    expect(shown).toContain(join(work, 'server.mjs'));
    await until(() => runtime!.mcp.server('proj')?.health.status === 'connected');
    expect(proj.startsSeen()).toEqual(['v1']);

    // The model rewrites the script with an ordinary workspace write (a sandboxed command could do the same).
    writeFileSync(join(work, 'server.mjs'), proj.source(2));
    // The server crashes; Deskhand's automatic restart checks the approval first and does not run the new code.
    await expect(runtime.mcp.callTool('proj', 'probe', {}, new AbortController().signal)).rejects.toThrow();
    await until(() => /changed since the person approved it/.test(runtime!.mcp.server('proj')?.health.lastError ?? ''));
    const health = runtime.mcp.server('proj')!.health;
    expect(health.status).toBe('failed');
    expect(health.nextRetryAt).toBeNull();
    expect(health.lastError).toContain(join(work, 'server.mjs'));
    expect(existsSync(proj.marker)).toBe(false);
    expect(proj.startsSeen()).toEqual(['v1']);
    expect(runtime.mcp.projectFile(work).trusted).toBe(false);

    // Another process over the same data starts trusted project servers itself: not this one.
    const second = makeRuntime(dataDir);
    try {
      await second.startMcp(work);
      expect(second.mcp.server('proj')).toBeUndefined();
    } finally {
      await second.mcp.close();
      second.store.close();
    }
    expect(existsSync(proj.marker)).toBe(false);
    expect(proj.startsSeen()).toEqual(['v1']);

    // The person approves the file again (now with the new script): only then does the new code run.
    await approveProject(runtime, conv.id);
    await until(() => runtime!.mcp.server('proj')?.health.status === 'connected');
    expect(existsSync(proj.marker)).toBe(true);
    expect(proj.startsSeen()).toEqual(['v1', 'v2']);
  }, 60_000);

  it('an approval shown before the script changed cannot be used after it changed', async () => {
    runtime = makeRuntime(dataDir);
    const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
    model.enqueue(reply().tool('enable_project_mcp_servers', { folder: work }), reply().text('started'));
    const parked = await runtime.sendMessage(conv.id, 'start the project servers', opts());
    const request = runtime.store.getApproval(parked.approvalIds[0]!)!;
    writeFileSync(join(work, 'server.mjs'), proj.source(2));
    await runtime.answerRequest(request.id, { approved: true }, opts());
    expect(runtime.mcp.server('proj')).toBeUndefined();
    expect(runtime.mcp.projectFile(work).trusted).toBe(false);
    expect(existsSync(proj.marker)).toBe(false);
    expect(proj.startsSeen()).toEqual([]);
  }, 30_000);
});

describe('the scripts of a trusted project server are run-later files', () => {
  it('writing server.mjs or the project file with the file tools or the shell asks under the most permissive policy', async () => {
    runtime = makeRuntime(dataDir);
    const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
    await approveProject(runtime, conv.id);
    const approved = readFileSync(join(work, 'server.mjs'), 'utf8');
    // The file tools change only files the conversation has read: read it first (reading asks for nothing).
    model.enqueue(reply().tool('read_file', { path: 'server.mjs' }).tool('read_file', { path: '.deskhand/mcp.json' }), reply().text('read'));
    expect((await runtime.sendMessage(conv.id, 'look at it', opts())).status).toBe('finished');
    const calls: [string, Record<string, unknown>, RegExp][] = [
      ['write_file', { path: 'server.mjs', content: proj.source(2) }, /file the project MCP server proj runs/],
      ['edit_file', { path: 'server.mjs', old_string: "'v1", new_string: "'v9" }, /file the project MCP server proj runs/],
      ['execute_command', { command: "printf 'x' > server.mjs" }, /file the project MCP server proj runs/],
      ['execute_command', { command: 'cp /dev/null ./server.mjs' }, /file the project MCP server proj runs/],
      ['write_file', { path: '.deskhand/mcp.json', content: '{"mcpServers": {}}' }, /project MCP file/],
    ];
    for (const [tool, args, reason] of calls) {
      model.enqueue(reply().tool(tool, args), reply().text('done'));
      const r = await runtime.sendMessage(conv.id, 'change it', opts());
      expect(r.status, `${tool} ${JSON.stringify(args)}`).toBe('parked');
      const asked = runtime.store.getApproval(r.approvalIds[0]!)!;
      expect(asked.reasons, tool).toMatch(reason);
      await runtime.decideApproval(asked.id, { approved: false, reason: 'no' }, opts());
    }
    expect(readFileSync(join(work, 'server.mjs'), 'utf8')).toBe(approved);
    // Reading it asks for nothing.
    expect((await runtime.explain('read_file', { path: 'server.mjs' }, 'read-only', work)).decision).toBe('allow');
    expect((await runtime.explain('write_file', { path: 'server.mjs', content: 'x' }, 'high-risk', work)).decision).toBe('ask');
    expect((await runtime.explain('write_file', { path: 'other.mjs', content: 'x' }, 'high-risk', work)).decision).toBe('allow');
  }, 60_000);
});

describe('which files the pin covers', () => {
  const reader = () => new GuardedContentReader({ dataDir: tempDir('deskhand-mcptrust-d-') });
  const scriptsOf = (command: string, args: string[]) => projectScripts(parseServerConfig({ name: 's', transport: 'stdio', command, args, cwd: work }), work, reader());

  it.each([
    ['a relative script', process.execPath, ['server.mjs'], ['server.mjs']],
    ['a ./ script', process.execPath, ['./server.mjs'], ['server.mjs']],
    ['an absolute script in the workspace', process.execPath, ['__WORK__/server.mjs'], ['server.mjs']],
    ['a script behind .. spelling', process.execPath, ['lib/../server.mjs'], ['server.mjs']],
    ['a --flag=path argument', process.execPath, ['--import=./lib/boot.mjs', 'server.mjs'], ['lib/boot.mjs', 'server.mjs']],
    ['the command itself a workspace script', './start.sh', ['--port', '1'], ['start.sh']],
    ['a link to a workspace script (pinned where it leads)', process.execPath, ['run.mjs'], ['server.mjs']],
    ['a program and package outside the workspace only', 'npx', ['-y', '@scope/server'], []],
  ])('%s', (_what, command, args, covered) => {
    mkdirSync(join(work, 'lib'), { recursive: true });
    writeFileSync(join(work, 'lib', 'boot.mjs'), '// boot\n');
    writeFileSync(join(work, 'start.sh'), '#!/bin/sh\nexec node server.mjs\n');
    if (!existsSync(join(work, 'run.mjs'))) symlinkSync('server.mjs', join(work, 'run.mjs'));
    const scripts = scriptsOf(command, args.map((a) => a.replace('__WORK__', work)));
    expect(scripts.map((s) => s.resolved.slice(work.length + 1)).sort()).toEqual([...covered].sort());
    expect(scripts.every((s) => /^[0-9a-f]{64}$/.test(s.sha256 ?? ''))).toBe(true);
  });

  it('a sensitive workspace file named on the command line is pinned by path, never read', () => {
    writeFileSync(join(work, '.env'), 'TOKEN=Pin-Secret-Value-881\n');
    const scripts = scriptsOf(process.execPath, ['--env-file=.env', 'server.mjs']);
    const env = scripts.find((s) => s.arg === '.env')!;
    expect(env.sha256).toBeNull();
    expect(env.note).toMatch(/never reads those/);
    expect(JSON.stringify(scripts)).not.toContain('Pin-Secret-Value-881');
  });

  it('the pin changes when a covered script changes, and equals the file hash when none is run', () => {
    const before = projectPin('f'.repeat(64), scriptsOf(process.execPath, ['server.mjs']));
    writeFileSync(join(work, 'server.mjs'), proj.source(2));
    const after = projectPin('f'.repeat(64), scriptsOf(process.execPath, ['server.mjs']));
    expect(after).not.toBe(before);
    expect(projectPin('f'.repeat(64), [])).toBe('f'.repeat(64));
  });
});
