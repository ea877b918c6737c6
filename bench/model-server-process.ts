/**
 * The scripted model server (test/support/model-server.ts) for the benches that compare the runtime with a plain
 * reader or a bare round trip (stream-render, loop-overhead, subagents), in either of two places behind one interface:
 *
 * - `startModelServerProcess()`: in a child process of its own (bench/model-server-child.ts, the same server code),
 *   driven over the child's stdin/stdout, one JSON line per command and one per answer. A real provider is never in
 *   the agent's process; here neither is the server's synchronous build and write of a reply, nor the garbage its
 *   heap makes, so each arm of a ratio pays only for its own work.
 * - `startModelServerInProcess()`: in this process, as the benches ran until issue 54's sixth round. Now only for
 *   stream-render's paced replies (one small event each 16 ms, timed by the server's own write callback); the
 *   `…_inproc…` figures it gave beside the others for a release were dropped after issue 54's ninth round.
 *
 * Every command is answered before its promise resolves (a reply enqueued is in the queue before the request that
 * takes it is sent). The child ends when `close()` is called, when this process exits (a synchronous SIGKILL in an
 * `exit` listener: bench/run.ts ends with process.exit) and when its stdin closes (this process died some other way).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { firstUserText, ReplyBuilder, startModelServer, type ModelServerOptions, type ReplyInput, type ScriptedReply } from '../test/support/model-server';

const here = dirname(fileURLToPath(import.meta.url));

/** A request the server answered: when it reached the server (wall clock, as `now()` below), and its body if asked. */
export interface TakenRequest {
  at: number;
  body?: string;
}

/**
 * Replies chosen by the request rather than by order: a request whose first user message contains a route's text gets
 * that route's reply (every time); any other request the next reply enqueued with `enqueueUnrouted`, else `otherwise`
 * (the server's loud 500 when neither is set).
 */
export interface Routes {
  routes: { contains: string; reply: ScriptedReply }[];
  otherwise?: ScriptedReply;
}

export interface BenchModelServer {
  /** `'child process'` or `'in process'`, for the figures' descriptions. */
  readonly where: string;
  /** The child's process id; null in process. */
  readonly pid: number | null;
  /** `url + '/v1'`, the provider's baseURL. */
  readonly baseURL: string;
  enqueue(...replies: ReplyInput[]): Promise<void>;
  setRoutes(routes: Routes): Promise<void>;
  enqueueUnrouted(...replies: ReplyInput[]): Promise<void>;
  /** The requests answered since the last call (and forgets them: the server's heap does not grow over a bench). */
  take(opts?: { bodies?: boolean }): Promise<TakenRequest[]>;
  close(): Promise<void>;
}

/** Wall-clock milliseconds, comparable across processes (and with a page's `performance.timeOrigin + now()`). */
export const now = (): number => performance.timeOrigin + performance.now();

const specOf = (r: ReplyInput): ScriptedReply => (r instanceof ReplyBuilder ? r.spec : r);

/** The routing both places use: the server's fallback over `Routes` and the unrouted queue. */
export function routedFallback(): { set(routes: Routes): void; push(replies: ScriptedReply[]): void; pick(body: unknown): ScriptedReply } {
  let current: Routes = { routes: [] };
  const unrouted: ScriptedReply[] = [];
  return {
    set(routes) {
      current = routes;
    },
    push(replies) {
      unrouted.push(...replies);
    },
    pick(body) {
      const first = firstUserText(body);
      for (const r of current.routes) if (first.includes(r.contains)) return r.reply;
      return unrouted.shift() ?? current.otherwise ?? { status: 500, message: 'model server: no unrouted reply left' };
    },
  };
}

/** The server in this process (the benches' place until the sixth round); `onWrite` for the paced stream figures. */
export async function startModelServerInProcess(opts: Pick<ModelServerOptions, 'onWrite'> = {}): Promise<BenchModelServer> {
  const taken: { at: number; body: unknown }[] = [];
  const server = await startModelServer({ onWrite: opts.onWrite, onRequest: (r) => taken.push({ at: now(), body: r.body }) });
  const routing = routedFallback();
  return {
    where: 'in process',
    pid: null,
    baseURL: server.baseURL,
    enqueue: (...replies) => Promise.resolve(server.enqueue(...replies)),
    setRoutes(routes) {
      routing.set(routes);
      server.setFallback((req) => routing.pick(req.body));
      return Promise.resolve();
    },
    enqueueUnrouted: (...replies) => Promise.resolve(routing.push(replies.map(specOf))),
    take({ bodies = false } = {}) {
      const out = taken.splice(0).map((t) => (bodies ? { at: t.at, body: JSON.stringify(t.body) } : { at: t.at }));
      server.requests.length = 0;
      return Promise.resolve(out);
    },
    close: () => server.close(),
  };
}

/** Children not yet ended, killed when this process exits whatever the way (bench/run.ts ends with process.exit). */
const live = new Set<ChildProcess>();
let exitHook = false;

/** The server in a child process of its own (bench/model-server-child.ts); resolves once it listens. */
export async function startModelServerProcess(): Promise<BenchModelServer> {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const child of live) child.kill('SIGKILL');
    });
  }
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'model-server-child.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  live.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => live.delete(child));
  const pending = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  let failure: Error | undefined;
  let ready!: (url: string) => void;
  const readyP = new Promise<string>((resolve, reject) => {
    ready = resolve;
    void exited.then(() => reject(new Error(`the model server's child process exited (code ${child.exitCode}, signal ${child.signalCode}) before it listened`)));
  });
  void exited.then(() => {
    failure ??= new Error(`the model server's child process exited (code ${child.exitCode}, signal ${child.signalCode})`);
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const msg = JSON.parse(line) as { url?: string; id?: number; error?: string };
    if (msg.url !== undefined && msg.id === undefined) return ready(msg.url);
    const p = pending.get(msg.id!);
    if (!p) return;
    pending.delete(msg.id!);
    if (msg.error !== undefined) p.reject(new Error(`model server child: ${msg.error}`));
    else p.resolve(msg as Record<string, unknown>);
  });
  let nextId = 0;
  const call = (op: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> => {
    if (failure) return Promise.reject(failure);
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.stdin!.write(`${JSON.stringify({ id, op, ...args })}\n`);
    });
  };
  let url: string;
  try {
    url = await readyP;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    where: 'child process',
    pid: child.pid ?? null,
    baseURL: `${url}/v1`,
    enqueue: async (...replies) => void (await call('enqueue', { replies: replies.map(specOf) })),
    setRoutes: async (routes) => void (await call('routes', { routes })),
    enqueueUnrouted: async (...replies) => void (await call('enqueueUnrouted', { replies: replies.map(specOf) })),
    take: async ({ bodies = false } = {}) => (await call('take', { bodies })).requests as TakenRequest[],
    close() {
      closing ??= (async () => {
        try {
          if (!failure) await call('close');
        } catch {
          // Killed below either way.
        } finally {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        }
      })();
      return closing;
    },
  };
}
