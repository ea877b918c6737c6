/**
 * One MCP server script over stdio against the real runtime, as the revision tests use it (mcp-current.test.ts,
 * mcp-modern.test.ts): a fake model server for each test, the server's own log (one JSON line per thing it saw; the
 * script writes it to MCP_LOG), runtimes over a data dir with the server registered and connected, and all of it
 * closed after each test. Call it at a test file's top level (it registers the beforeEach/afterEach).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { addServer, makeRuntime } from '../extensions/helpers';
import { startModelServer, type ModelServer } from './model-server';
import { tempDir } from './tool-context';

export interface McpStdioWorld {
  /** This test's model server. */
  readonly model: ModelServer;
  /** This test's server log (MCP_LOG). */
  readonly log: string;
  /** The server's log, one parsed entry a line ([] before it wrote any). */
  entries<T>(): T[];
  /**
   * A runtime over `dataDir` with the server registered as the world's name (`config` is the server's config besides
   * its command: `args` follow the script; the default is `{ tier: 'read-only' }`), connected.
   */
  connect(dataDir: string, config?: Record<string, unknown> & { args?: string[] }): Promise<AppRuntime>;
  /** A runtime the test registers its own servers in; closed with the others. */
  runtime(dataDir: string): AppRuntime;
  /** A conversation in `folder` with the MCP family on. */
  conversation(runtime: AppRuntime, folder?: string, policy?: 'read-only' | 'high-risk'): { id: string };
}

export function mcpStdioWorld(name: string, script: string): McpStdioWorld {
  let model: ModelServer | undefined;
  let log = '';
  const runtimes: AppRuntime[] = [];
  beforeEach(async () => {
    model = await startModelServer();
    log = join(tempDir('deskhand-mcplog-'), 'log.jsonl');
  });
  afterEach(async () => {
    for (const r of runtimes.splice(0)) {
      await r.mcp.close();
      r.store.close();
    }
    await model?.close();
  });
  const world: McpStdioWorld = {
    get model() {
      if (!model) throw new Error('the model server starts in beforeEach: use world.model inside a test');
      return model;
    },
    get log() {
      return log;
    },
    entries: <T>() => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as T) : []),
    runtime(dataDir) {
      const runtime = makeRuntime(dataDir, { mcpDeferAbove: 100 });
      runtimes.push(runtime);
      return runtime;
    },
    async connect(dataDir, { args = [], ...config } = { tier: 'read-only' }) {
      const runtime = world.runtime(dataDir);
      addServer(runtime.store, name, { transport: 'stdio', command: process.execPath, args: [script, ...args], env: { MCP_LOG: log }, ...config });
      await runtime.startMcp();
      const health = runtime.mcp.server(name)?.health;
      expect(health?.status, health?.lastError ?? '').toBe('connected');
      return runtime;
    },
    conversation(runtime, folder = tempDir('deskhand-work-'), policy = 'read-only') {
      const conv = runtime.createConversation({ folder, policy });
      runtime.setFamilies(conv.id, ['mcp'], true);
      return conv;
    },
  };
  return world;
}
