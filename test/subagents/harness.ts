/** The real runtime (every family) over a real store and the scripted model server, for the subagent tests. */
import { createAppRuntime, type AppRuntime, type HostRuntimeOptions } from '../../src/main/host/assembly/open-runtime';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { Store } from '../../src/main/services/store/store';
import { startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';

export interface SubHarness {
  server: ModelServer;
  store: Store;
  runtime: AppRuntime;
  work: string;
  dataDir: string;
  provider(): ProviderConfig;
  close(): Promise<void>;
}

export async function openSubHarness(opts: Partial<HostRuntimeOptions> = {}): Promise<SubHarness> {
  const server = await startModelServer();
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  const store = new Store(dataDir);
  const runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000, ...opts });
  return {
    server,
    store,
    runtime,
    work,
    dataDir,
    provider: () => ({ provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' }),
    async close() {
      await runtime.tasks.shutdown();
      store.close();
      await server.close();
    },
  };
}

type Msg = { role: string; content: unknown; tool_calls?: unknown };
export const messagesOf = (req: RecordedRequest): Msg[] => (req.protocol === 'openai' ? (req.body.messages as Msg[]) : []);
export const textOf = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c));
export const firstUser = (req: RecordedRequest) => textOf(messagesOf(req).find((m) => m.role === 'user')?.content);
export const lastMessage = (req: RecordedRequest) => messagesOf(req).at(-1)!;
export const toolNames = (req: RecordedRequest) => (req.protocol === 'openai' ? (req.body.tools ?? []).map((t) => t.function.name) : []);
export const allText = (req: RecordedRequest) => messagesOf(req).map((m) => textOf(m.content)).join('\n');

/**
 * Answers parent and children from separate queues (children run concurrently with their parent, so one ordered
 * queue would race): a request whose first user message contains a queue's key takes from that queue.
 */
export function route(h: SubHarness, queues: Record<string, import('../support/model-server').ReplyInput[]>, parent: import('../support/model-server').ReplyInput[]): void {
  h.server.setFallback((req) => {
    const first = firstUser(req);
    for (const [key, q] of Object.entries(queues)) if (first.includes(key)) return q.shift() ?? { status: 500, message: `no reply left for ${key}` };
    return parent.shift() ?? { status: 500, message: 'no parent reply left' };
  });
}
