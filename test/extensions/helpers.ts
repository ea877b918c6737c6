/** Shared pieces of the extensions tests: real MCP servers from npm, the fake broken one, a runtime over a data dir. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { extensionsModule } from '../../src/main/services/store/modules/extensions';
import type { Store } from '../../src/main/services/store/store';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import type { ModelServer } from '../support/model-server';

export const ROOT = resolve(__dirname, '../..');
export const EVERYTHING = resolve(ROOT, 'node_modules/.bin/mcp-server-everything');
export const FILESYSTEM = resolve(ROOT, 'node_modules/.bin/mcp-server-filesystem');
export const FAKE = resolve(__dirname, 'fake-mcp-server.mjs');

export function addServer(store: Store, name: string, config: Record<string, unknown>): void {
  store.module(extensionsModule).putServer(name, JSON.stringify(config));
}

export const fake = (mode: string, extra: Record<string, unknown> = {}) => ({ transport: 'stdio', command: process.execPath, args: [FAKE, mode], ...extra });

export function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

/** server-everything in Streamable HTTP (or legacy SSE) mode on a free port; resolves once it listens. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<{ url: string; child: ChildProcess; stop: () => void }> {
  const port = await freePort();
  const child = spawn(EVERYTHING, [mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error('server-everything (streamableHttp) did not start')), 20_000);
    const onData = (d: Buffer) => {
      if (/listening|running/i.test(d.toString())) {
        clearTimeout(timer);
        done();
      }
    };
    child.stderr!.on('data', onData);
    child.stdout!.on('data', onData);
  });
  return { url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`, child, stop: () => void child.kill('SIGTERM') };
}

export function makeRuntime(dataDir: string, opts: Parameters<typeof createAppRuntime>[0] extends infer O ? Partial<O> : never = {}): AppRuntime {
  return createAppRuntime({ dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000, mcpBackoff: { firstMs: 200, maxMs: 1000 }, ...opts });
}

/** What a test opened, closed after it: the runtime's MCP servers and store, then the scripted model server. */
export async function closeTestWorld(runtime: AppRuntime | null, model: ModelServer): Promise<void> {
  await runtime?.mcp.close();
  runtime?.store.close();
  await model.close();
}

export const providerFor = (model: ModelServer): ProviderConfig => ({ provider: 'openai', model: 'gpt-test', baseURL: model.baseURL, apiKey: 'sk-test' });

type Msg = { role: string; content: unknown };
/** The tool results the model received in its i-th request. */
export function toolResults(model: ModelServer, i: number): string[] {
  const messages = (model.requests[i]?.body as { messages?: Msg[] } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}

/** The tool names (and descriptions) offered in the model's i-th request. */
export function offeredTools(model: ModelServer, i: number): { name: string; description: string }[] {
  const tools = (model.requests[i]?.body as { tools?: { function: { name: string; description: string } }[] } | undefined)?.tools ?? [];
  return tools.map((t) => ({ name: t.function.name, description: t.function.description }));
}

export async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
