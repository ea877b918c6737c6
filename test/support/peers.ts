/**
 * Two Deskhands on loopback for the peer tests: `deskhand peers add` in a data dir, `deskhand peers serve` as a child
 * process on 127.0.0.1 (its address read from its first line), and the SDK's own client (@a2a-js/sdk/client) with a
 * Bearer token, the way a client Deskhand did not write calls it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN, cliEnv, runCli } from './cli';

export interface Served {
  url: string;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

export async function addPeer(dataDir: string, name: string, flags: string[] = [], input?: string): Promise<{ inboundToken: string; [k: string]: unknown }> {
  const r = await runCli(['peers', 'add', name, ...flags, '--data-dir', dataDir, '--json'], input !== undefined ? { input } : {});
  if (r.code !== 0) throw new Error(`peers add ${name} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { inboundToken: string };
}

/** `deskhand peers serve` on the scripted model server; resolves once it prints its address. */
export function servePeers(dataDir: string, folder: string, modelBaseURL: string, env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'peers', 'serve', '--data-dir', dataDir, '--folder', folder, '--provider', 'openai', '--base-url', modelBaseURL, '--model', 'm', '--json'], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`peers serve exited ${code} before it listened: ${stderr}`)));
    lines.once('line', (line) => {
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        child,
        stderr: () => stderr,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

type ClientSdk = typeof import('@a2a-js/sdk/client');

/** The SDK's client for `url` (it fetches the agent card and picks the transport). */
export async function sdkClient(url: string) {
  const { ClientFactory } = (await import('@a2a-js/sdk/client')) as ClientSdk;
  return new ClientFactory().createFromUrl(url);
}

/** A SendMessageRequest of one text part, as the SDK's types spell it. */
export async function textMessage(text: string, contextId = '') {
  const { Role } = await import('@a2a-js/sdk');
  return {
    tenant: '',
    message: { messageId: `m-${Math.random().toString(36).slice(2)}`, contextId, taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [], referenceTaskIds: [] },
    configuration: undefined,
    metadata: undefined,
  };
}

export const bearer = (token: string) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });

/**
 * A sample-style A2A server built with the SDK alone (DefaultRequestHandler, an executor that answers at once,
 * JsonRpcTransportHandler on node:http): what Deskhand's client must reach. It records what it was sent and refuses a
 * request without `Authorization: Bearer <token>`.
 */
export async function sdkSampleServer(token: string, answer: (text: string) => string) {
  const { createServer } = await import('node:http');
  const sdk = await import('@a2a-js/sdk');
  const server = await import('@a2a-js/sdk/server');
  const received: { text: string; authorization: string | undefined }[] = [];
  const executor = {
    async execute(ctx: import('@a2a-js/sdk/server').RequestContext, bus: import('@a2a-js/sdk/server').ExecutionEventBus) {
      const text = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
      const status = (state: number, reply?: string) => ({ state, timestamp: new Date().toISOString(), message: reply === undefined ? undefined : { messageId: 'r1', contextId: ctx.contextId, taskId: ctx.taskId, role: sdk.Role.ROLE_AGENT, parts: [{ content: { $case: 'text' as const, value: reply }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [], referenceTaskIds: [] } });
      bus.publish(server.AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId, status: status(sdk.TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [ctx.userMessage], metadata: undefined }));
      bus.publish(server.AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: status(sdk.TaskState.TASK_STATE_COMPLETED, answer(text)), metadata: undefined }));
      bus.finished();
    },
    async cancelTask() {},
  };
  let rpc: InstanceType<typeof server.JsonRpcTransportHandler> | null = null;
  let card: import('@a2a-js/sdk').AgentCard | null = null;
  const http = createServer((req, res) => {
    void (async () => {
      if (req.method === 'GET') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { params?: { message?: { parts?: { text?: string; content?: { value?: string } }[] } } };
      received.push({ text: JSON.stringify(body.params?.message ?? {}), authorization: req.headers.authorization });
      if (req.headers.authorization !== `Bearer ${token}`) return res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      const out = await rpc!.handle(body as Record<string, unknown>, new server.ServerCallContext({ requestedVersion: '1.0' }));
      if (out && typeof (out as AsyncGenerator)[Symbol.asyncIterator] === 'function') {
        res.writeHead(200, sdk.SSE_HEADERS);
        for await (const ev of out as AsyncGenerator) res.write(sdk.formatSSEEvent(ev));
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  card = { name: 'sample', description: 'a sample agent', version: '1', supportedInterfaces: [{ url: `${url}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }], provider: undefined, capabilities: { streaming: true, extensions: [] }, securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [], signatures: [] };
  rpc = new server.JsonRpcTransportHandler(new server.DefaultRequestHandler(card, new server.InMemoryTaskStore(), executor));
  return { url, received, close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()); }) };
}
