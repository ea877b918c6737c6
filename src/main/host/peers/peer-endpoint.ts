/**
 * The A2A endpoint (issue 36): other people's agents reach this Deskhand over the Agent2Agent protocol, through the
 * SDK's own server pieces (DefaultRequestHandler, JsonRpcTransportHandler) mounted on node:http. It is off unless the
 * person starts it (`deskhand peers serve`), bound to loopback unless they name an address.
 *
 * - `GET /.well-known/agent-card.json`: the agent card (JSON-RPC interface, Bearer auth, streaming). No secret in it.
 * - `POST /a2a`: JSON-RPC; every request needs `Authorization: Bearer <token>` matching an enabled peer's inbound token
 *   (the peer book compares them in constant time). Anything else is HTTP 401 with `WWW-Authenticate: Bearer`.
 *
 * An incoming message becomes (or continues, by its contextId) a conversation of the peer's own, titled with the
 * peer, in a folder of its own (`--folder`, default ~/Deskhand peers/NAME), tainted from the start (the peer's words are untrusted content,
 * in an envelope naming the peer). The runtime holds that conversation to the peer's ceiling (assembly/peer-wiring.ts):
 * the tools of its tier and allow list, nothing else. What a tool needs a person for waits in the app as for local
 * runs. The answer returned is the run's final text, redacted (the peer book's tokens included). Task updates stream
 * as the run goes (working, waiting for the person, done); `tasks/cancel` stops the run.
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AgentCard, Message, Part } from '@a2a-js/sdk';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { ContractEvent, MethodName, MethodParams, MethodResult } from '../../../shared/contract';
import type { RunEvent } from '../../../shared/events';
import { errorMessage } from '../../../shared/errors';
import type { Logger } from '../assembly/logger';
import { wrapUntrusted } from '../../runtime/context/untrusted';
import type { PeerBook, PeerClarifications, PeerRecord } from '../../services/peers/index';
import type { Dispatch } from '../app/dispatch';

type Sdk = typeof import('@a2a-js/sdk');
type ServerSdk = typeof import('@a2a-js/sdk/server');

/** The most a JSON-RPC body may be (a message of text; attachments are not taken). */
const MAX_BODY_BYTES = 1_000_000;

export interface PeerEndpointOptions {
  dispatch: Dispatch;
  onEvent(listener: (event: ContractEvent) => void): () => void;
  book: PeerBook;
  /** Redacts text as the runtime's sinks do (secrets the runtime knows, credential shapes). */
  redact(text: string): string;
  /** Tells the redactor the peer book's tokens as they are now (at each incoming task, before anything runs or answers). */
  learnTokens?: () => Promise<void>;
  /** What a finished run cost in dollars (its model and tokens by the price table), or null when it is not priced. */
  runCost?: (runId: string) => number | null;
  /** Marks a conversation as having read untrusted content (every run of it starts tainted). */
  taint(conversationId: string): void;
  /** request_clarification's channel: this endpoint answers for the conversations it follows. */
  clarifications: PeerClarifications;
  /** Where peers' conversations start: a folder per peer under it (never inside the data folder). */
  folder: string;
  host: string;
  port: number;
  /** PEM files: the endpoint speaks HTTPS itself (node:https), and its agent card names https. */
  tls?: { certFile: string; keyFile: string };
  version: string;
  log: Logger;
}

export interface PeerEndpoint {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

class PeerUser {
  constructor(readonly peer: PeerRecord) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.peer.name;
  }
}

function textOf(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter(Boolean)
    .join('\n')
    .trim();
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentCard(url: string, version: string): AgentCard {
  return {
    name: 'Deskhand',
    description: "A person's desktop agent. Peers it knows reach it with the token it gave them; what it does for them is held to the disclosure tier the person chose.",
    supportedInterfaces: [{ url: `${url}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: { bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'The token this Deskhand gave the peer (deskhand peers add).', scheme: 'Bearer', bearerFormat: '' } } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'ask', name: 'Ask', description: 'Ask a question or for a piece of work, answered within what the person allows this peer.', tags: ['assistant'], examples: [], inputModes: ['text/plain'], outputModes: ['text/plain'], securityRequirements: [] }],
    signatures: [],
  } as AgentCard;
}

/** One incoming task's run, as the executor follows it. */
interface Tracked {
  conversationId: string;
  runId: string | null;
  cancelled: boolean;
  /** request_clarification is waiting: the peer's next message on this task is the answer. */
  clarify: ((answer: string) => void) | null;
  /** Settles when the task's run is over (a follow-up message waits for it). */
  done: Promise<void>;
}

class PeerExecutor implements AgentExecutor {
  private readonly tasks = new Map<string, Tracked>();

  constructor(
    private readonly sdk: Sdk,
    private readonly server: ServerSdk,
    private readonly opts: PeerEndpointOptions,
  ) {}

  private async call<M extends MethodName>(method: M, params: MethodParams<M>): Promise<MethodResult<M>> {
    const json = JSON.stringify(params);
    const reply = await this.opts.dispatch(method, JSON.parse(json), { source: 'a2a peer', bytes: Buffer.byteLength(json) });
    if (reply.ok) return reply.result as MethodResult<M>;
    throw new Error(reply.error.message);
  }

  private status(bus: ExecutionEventBus, ctx: RequestContext, state: number, text?: string): void {
    const { AgentEvent } = this.server;
    const message = text === undefined ? undefined : this.agentMessage(ctx, text);
    bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined }));
  }

  private agentMessage(ctx: RequestContext, text: string): Message {
    return { messageId: randomUUID(), contextId: ctx.contextId, taskId: ctx.taskId, role: this.sdk.Role.ROLE_AGENT, parts: [textPart(text)], metadata: undefined, extensions: [], referenceTaskIds: [] };
  }

  /** The peer's conversation for this context: the one it continues, or a new one of its own. */
  private async conversationFor(peer: PeerRecord, contextId: string, text: string): Promise<string> {
    const known = this.opts.book.conversationByContext(peer.name, contextId);
    if (known) {
      const exists = await this.call('getMessages', { conversationId: known.conversation_id }).then(() => true, () => false);
      if (exists) return known.conversation_id;
    }
    const folder = join(this.opts.folder, peer.name);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const first = text.replace(/\s+/g, ' ').slice(0, 60);
    const summary = await this.call('createConversation', { folder, policy: 'read-only', title: `Peer ${peer.name}: ${first}` });
    // Linked before its first run, so the ceiling holds from the first step.
    this.opts.book.linkConversation(summary.id, peer.name, contextId);
    this.opts.taint(summary.id);
    return summary.id;
  }

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { AgentEvent } = this.server;
    const { TaskState } = this.sdk;
    const user = ctx.context.user;
    const peer = user instanceof PeerUser ? user.peer : null;
    bus.publish(AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId, status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() }, artifacts: [], history: [ctx.userMessage], metadata: undefined }));
    if (!peer) {
      this.status(bus, ctx, TaskState.TASK_STATE_REJECTED, 'Unknown peer.');
      return bus.finished();
    }
    // A peer added or a token rotated since the endpoint started (here or by another process) is a secret at once.
    await this.opts.learnTokens?.().catch((err: unknown) => this.opts.log.warn('peers: could not read the peer tokens', { error: errorMessage(err) }));
    const text = textOf(ctx.userMessage);
    if (ctx.task) return this.followUp(ctx, bus, text);
    if (!text) {
      this.status(bus, ctx, TaskState.TASK_STATE_REJECTED, 'The message has no text part; this Deskhand takes text only.');
      return bus.finished();
    }
    const spent = this.opts.book.takeTurn(peer.name);
    if (spent) {
      this.status(bus, ctx, TaskState.TASK_STATE_REJECTED, spent);
      return bus.finished();
    }
    let settle!: () => void;
    const tracked: Tracked = { conversationId: '', runId: null, cancelled: false, clarify: null, done: new Promise<void>((r) => (settle = r)) };
    this.tasks.set(ctx.taskId, tracked);
    let offClarify: (() => void) | null = null;
    const events: RunEvent[] = [];
    let wake: (() => void) | null = null;
    const off = this.opts.onEvent((e) => {
      if (e.event !== 'run') return;
      events.push(e.payload);
      wake?.();
    });
    try {
      tracked.conversationId = await this.conversationFor(peer, ctx.contextId, text);
      // request_clarification in this run: the question goes to the peer as input-required; their next message on
      // this task (a follow-up execute) is the answer.
      offClarify = this.opts.clarifications.serve(tracked.conversationId, (question, signal) => {
        if (tracked.clarify) return Promise.reject(new Error('A question to the peer is already waiting for its answer.'));
        return new Promise((resolve, reject) => {
          const onAbort = () => {
            tracked.clarify = null;
            reject(new Error('stopped while waiting for the peer'));
          };
          signal.addEventListener('abort', onAbort, { once: true });
          tracked.clarify = (answer) => {
            signal.removeEventListener('abort', onAbort);
            tracked.clarify = null;
            resolve({ peer: peer.name, answer });
          };
          this.status(bus, ctx, TaskState.TASK_STATE_INPUT_REQUIRED, this.opts.redact(question));
        });
      });
      this.status(bus, ctx, TaskState.TASK_STATE_WORKING);
      const { runId } = await this.call('sendMessage', { conversationId: tracked.conversationId, text: wrapUntrusted(`peer ${peer.name}`, text) });
      tracked.runId = runId;
      let reply = '';
      let seen = 0;
      for (;;) {
        while (seen < events.length) {
          const e = events[seen++]!;
          if (!('runId' in e) || e.runId !== runId) continue;
          if (e.type === 'text') reply += e.delta;
          else if (e.type === 'tool.call') reply = '';
          else if (e.type === 'approval.requested' || e.type === 'input.requested') {
            this.status(bus, ctx, TaskState.TASK_STATE_WORKING, 'Waiting for the person at this Deskhand to answer a request of the run.');
          } else if (e.type === 'run.finished') {
            if (e.status === 'parked') continue;
            this.opts.book.addUsage(peer.name, (e.usage?.inputTokens ?? 0) + (e.usage?.outputTokens ?? 0), this.opts.runCost?.(runId) ?? 0);
            if (tracked.cancelled) return;
            await this.opts.learnTokens?.().catch(() => undefined);
            const answer = this.opts.redact(reply.trim() || (e.status === 'finished' ? '(no answer)' : `The run ${e.status}.`));
            if (e.status === 'finished') this.status(bus, ctx, TaskState.TASK_STATE_COMPLETED, answer);
            else this.status(bus, ctx, TaskState.TASK_STATE_FAILED, this.opts.redact(e.error ? `The run ${e.status}: ${e.error}` : answer));
            return;
          }
        }
        if (tracked.cancelled) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } catch (err) {
      this.opts.log.warn('peers: an incoming task failed', { peer: peer.name, error: errorMessage(err) });
      if (!tracked.cancelled) this.status(bus, ctx, TaskState.TASK_STATE_FAILED, this.opts.redact(errorMessage(err)));
    } finally {
      off();
      offClarify?.();
      this.tasks.delete(ctx.taskId);
      settle();
      bus.finished();
    }
  }

  /**
   * A message on a task already started: the answer to the run's request_clarification. It resumes the run, and this
   * call follows the task to its end (the original execute publishes the rest on the task's bus).
   */
  private async followUp(ctx: RequestContext, bus: ExecutionEventBus, text: string): Promise<void> {
    const { AgentEvent } = this.server;
    const { TaskState } = this.sdk;
    const tracked = this.tasks.get(ctx.taskId);
    if (!tracked?.clarify || !text) {
      // Not waiting for an answer: a message of its own (the task, if it still runs here, is left as it is).
      bus.publish(AgentEvent.message(this.agentMessage(ctx, tracked ? 'This task is not waiting for an answer; send a new message (no taskId) instead.' : 'This task is no longer running here; send a new message instead.')));
      return;
    }
    // The task's stream is already open on this bus (the original execute's): a status, not a second task.
    this.status(bus, ctx, TaskState.TASK_STATE_WORKING);
    tracked.clarify(text);
    await tracked.done;
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const tracked = this.tasks.get(taskId);
    if (tracked) {
      tracked.cancelled = true;
      if (tracked.conversationId) {
        try {
          const { stopped } = await this.call('stopRun', { conversationId: tracked.conversationId });
          if (!stopped && tracked.runId) await this.call('stopParkedRun', { conversationId: tracked.conversationId, runId: tracked.runId }).catch(() => undefined);
        } catch (err) {
          this.opts.log.warn('peers: could not stop a cancelled task', { error: errorMessage(err) });
        }
      }
    }
    const { AgentEvent } = this.server;
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: { state: this.sdk.TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined }));
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const bearerOf = (req: IncomingMessage): string => {
  const h = req.headers.authorization ?? '';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1]! : '';
};

export async function startPeerEndpoint(opts: PeerEndpointOptions): Promise<PeerEndpoint> {
  const sdk = await import('@a2a-js/sdk');
  const server = await import('@a2a-js/sdk/server');
  const executor = new PeerExecutor(sdk, server, opts);
  // The card names the address, known once the socket listens; requests wait for nothing (none arrive before).
  let card: AgentCard | null = null;
  let rpc: InstanceType<ServerSdk['JsonRpcTransportHandler']> | null = null;
  const handler: RequestListener = (req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (!card || !rpc) return sendJson(res, 503, { error: 'starting' });
      if (req.method === 'GET' && path === `/${sdk.AGENT_CARD_PATH}`) return sendJson(res, 200, card);
      if (path !== '/a2a') return sendJson(res, 404, { error: 'Not found: the A2A endpoint is POST /a2a; the agent card is at /.well-known/agent-card.json.' });
      if (req.method !== 'POST') return sendJson(res, 405, { error: 'POST JSON-RPC to /a2a.' }, { allow: 'POST' });
      const peer = await opts.book.checkInbound(bearerOf(req));
      if (!peer) {
        req.resume();
        return sendJson(res, 401, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Unauthenticated: present the token this Deskhand gave you as "Authorization: Bearer <token>".' } }, { 'www-authenticate': 'Bearer realm="deskhand"' });
      }
      const raw = await readBody(req);
      if (raw === null) return sendJson(res, 413, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `The request is over ${MAX_BODY_BYTES} bytes.` } });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return sendJson(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'The body is not JSON.' } });
      }
      const version = req.headers['a2a-version'];
      const context = new server.ServerCallContext({ user: new PeerUser(peer), requestedVersion: typeof version === 'string' ? version : undefined });
      try {
        server.validateVersion(context.requestedVersion ?? '1.0', card, 'JSONRPC');
        const out = await rpc.handle(body, context);
        if (out && typeof (out as AsyncGenerator)[Symbol.asyncIterator] === 'function') {
          res.writeHead(200, sdk.SSE_HEADERS);
          try {
            for await (const event of out as AsyncGenerator) res.write(sdk.formatSSEEvent(event));
          } catch (err) {
            res.write(sdk.formatSSEErrorEvent({ jsonrpc: '2.0', id: body.id ?? null, error: server.JsonRpcTransportHandler.mapToJSONRPCError(err) }));
          }
          return res.end();
        }
        return sendJson(res, 200, out);
      } catch (err) {
        return sendJson(res, 200, { jsonrpc: '2.0', id: body.id ?? null, error: server.JsonRpcTransportHandler.mapToJSONRPCError(err) });
      }
    })().catch((err: unknown) => {
      opts.log.warn('peers: request failed', { error: errorMessage(err) });
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.end();
    });
  };
  let http: Server;
  if (opts.tls) {
    const read = (file: string, what: string) => {
      try {
        return readFileSync(file);
      } catch (err) {
        throw new Error(`Could not read the TLS ${what} ${file}: ${errorMessage(err)}`);
      }
    };
    const tls = { cert: read(opts.tls.certFile, 'certificate'), key: read(opts.tls.keyFile, 'key') };
    try {
      http = createHttpsServer(tls, handler) as unknown as Server;
    } catch (err) {
      throw new Error(`The TLS certificate or key is not usable (PEM files, the key matching the certificate): ${errorMessage(err)}`);
    }
  } else http = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port, opts.host, () => resolve());
  });
  const addr = http.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  const url = `${opts.tls ? 'https' : 'http'}://${host}:${port}`;
  card = agentCard(url, opts.version);
  rpc = new server.JsonRpcTransportHandler(new server.DefaultRequestHandler(card, new server.InMemoryTaskStore(), executor));
  return {
    url,
    server: http,
    close: () => new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    }),
  };
}
