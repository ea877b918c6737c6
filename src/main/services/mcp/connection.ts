/**
 * One MCP server: connect (stdio in an owned process group, Streamable HTTP, or legacy SSE), list its tools,
 * resources and prompts, call them with a timeout and the run's abort signal, and come back after a crash with
 * exponential backoff. Every failure is kept as the server's health (status, last error, stderr tail) — nothing
 * fails silently — and a call to a broken server is refused with a sentence the model can act on.
 */
// The SDK (v2, `@modelcontextprotocol/client`) is loaded when a server first connects (it is large): hosts without
// MCP servers never pay for it.
import type { Client, OAuthClientProvider, Transport } from '@modelcontextprotocol/client';
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from './config';
import { OwnedStdioTransport } from './stdio-transport';
import { planSandbox, unsandboxedPlan, type SandboxPlan } from '../sandbox/sandbox';
import type { McpCallOptions, McpCallResult, McpElicitation, McpElicitResult, McpFormSchema, McpHealth, McpToolInfo } from './index';
import { rootsOf } from './roots';

export const DEFAULT_TIMEOUT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 20_000;
/** The first revision of the stateless protocol (requests carry their capabilities; no server-initiated requests). */
export const MODERN_REVISION = '2026-07-28';
/** How long the version probe (`server/discover`) waits: over stdio, silence means an older server (`initialize`). */
const PROBE_TIMEOUT_MS = 10_000;
/** After a server read changed roots, how long its call waits for the server to apply them. */
const ROOTS_SETTLE_MS = 300;

export interface ConnectionDeps {
  /** Values of the secrets a stdio server's `secretEnv` names. */
  secret(name: string): Promise<string | null>;
  oauth?(server: string): OAuthClientProvider | undefined;
  onHealth(health: McpHealth): void;
  onTools(tools: McpToolInfo[]): void;
  /** Backoff: first delay, and the cap. */
  backoff?: { firstMs: number; maxMs: number };
  maxMessageBytes?: number;
  /**
   * Checked before every start (the first and each restart after a crash): a reason here means the server must not
   * run now (a project server whose approval no longer holds). It is reported as the server's error, not retried.
   */
  beforeStart?(): string | null;
  /** Deskhand's data folder: hidden from project servers inside the sandbox. */
  dataDir?: string;
}

/**
 * How a stdio server runs. A project server (declared by a workspace's `.deskhand/mcp.json`, so by content the model
 * can write) runs in the OS sandbox as a shell command would: its workspace writable, the rest of the file system
 * read-only, secrets and Deskhand's data hidden, and no network (no call approves it for a server that runs
 * unattended); where no sandbox exists it does not start. The person's own servers (`deskhand mcp add`, Settings)
 * run as configured: the person chose the program and what it may reach. A config with a `source` (only
 * `readProjectFile` sets one) counts as a project server, so a doubtful one is sandboxed rather than not.
 */
export function stdioSandbox(c: StdioServerConfig, dataDir: string | undefined): SandboxPlan {
  if (!c.source) return unsandboxedPlan('off', `runs as configured (the person's own MCP server ${c.name}), outside the OS sandbox`);
  const folder = c.cwd ?? process.cwd();
  const plan = planSandbox({ mode: 'workspace-write', network: false, outside: false, roots: [folder], cwd: folder, dataDir: dataDir ?? folder });
  if (plan.kind === null) {
    throw new Error(
      `project MCP server ${c.name} (from ${c.source}) runs only inside the OS sandbox, and there is none here (${plan.summary}). ` +
        `To run it anyway, add it as your own server: deskhand mcp add ${c.name} -- ${[c.command, ...(c.args ?? [])].join(' ')}`,
    );
  }
  return plan;
}

/** One tools/call in flight: where a server's elicitation during it goes, and its deadline (paused while a person answers). */
interface InFlight {
  elicit?: McpCallOptions['elicit'];
  deadline: Deadline;
}

export class McpConnection {
  private client: Client | null = null;
  /** Calls in flight, oldest first: an elicitation goes to the newest (stdio carries no link to the call that asked). */
  private readonly inFlight: InFlight[] = [];
  /** The folders offered as roots (the workspace of the conversation that called last), as `file://` roots. */
  private roots: { uri: string; name: string }[] = [];
  /** Set once the server read the roots (roots/list): it uses them, so a change is worth waiting for it to read. */
  private rootsReader: { asked: boolean; next: (() => void) | null } = { asked: false, next: null };
  private transport: Transport | null = null;
  private connecting: Promise<void> | null = null;
  /** Set when the server ended the connection on the version probe: it is started with `initialize` only. */
  private legacyOnly = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private attempt = 0;
  tools: McpToolInfo[] = [];
  /** Every tool the server lists, app-only ones (MCP Apps) included: what a view of this server may call from. */
  allTools: McpToolInfo[] = [];
  health: McpHealth;

  constructor(
    readonly config: McpServerConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.health = { name: config.name, status: 'connecting', toolCount: 0, lastError: null, stderrTail: null, restarts: 0, nextRetryAt: null };
  }

  /** Connects (once at a time); resolves when connected or failed (never rejects). */
  start(): Promise<void> {
    if (this.connecting) return this.connecting;
    this.stopped = false;
    this.connecting = this.connect().finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const client = this.client;
    this.client = null;
    await client?.close().catch(() => undefined);
    this.setHealth({ status: 'stopped', nextRetryAt: null });
  }

  private async connect(): Promise<void> {
    // A server that failed stays "failed" (with its error) while Deskhand retries, until it connects.
    this.setHealth({ status: this.health.status === 'failed' ? 'failed' : 'connecting', nextRetryAt: null });
    let refused: string | null;
    try {
      refused = this.deps.beforeStart?.() ?? null;
    } catch (err) {
      refused = `its approval could not be checked (${describe(err)})`;
    }
    if (refused) {
      this.setHealth({ status: 'failed', lastError: refused, nextRetryAt: null });
      return;
    }
    let transport: Transport;
    try {
      transport = await this.makeTransport();
    } catch (err) {
      return this.failed(err, null);
    }
    const { Client: SdkClient } = await import('@modelcontextprotocol/client');
    const client = new SdkClient(
      { name: 'deskhand', version: '1' },
      {
        // MCP Apps (SEP-1865): Deskhand renders a tool's `ui://` view (mcp-apps.ts, the renderer's McpAppView).
        capabilities: { elicitation: { form: {}, url: {} }, roots: { listChanged: true }, extensions: { [UI_EXTENSION]: { mimeTypes: [UI_MIME] } } },
        // The revision: `server/discover` first; a server that speaks 2026-07-28 gets it (stateless requests with the
        // capabilities in each request's `_meta`, elicitation and roots as retried `input_required` rounds that the SDK
        // answers through the same handlers), any other answer (an error, "no such method") falls back to the
        // `initialize` handshake of the older revisions. A server that ended the connection on the probe is started
        // again with `initialize` only (`legacyOnly`).
        versionNegotiation: this.legacyOnly ? { mode: 'legacy' } : { mode: 'auto', probe: { timeoutMs: PROBE_TIMEOUT_MS } },
      },
    );
    this.handleServerRequests(client);
    let stdio = transport instanceof OwnedStdioTransport ? transport : null;
    try {
      await client.connect(transport, { timeout: Math.min(this.config.timeoutMs ?? CONNECT_TIMEOUT_MS, CONNECT_TIMEOUT_MS) });
      const tools: McpToolInfo[] = [];
      const all: McpToolInfo[] = [];
      // Every page at once (the SDK walks them, at most 64): the list it keeps is what it validates results against.
      const listed = await client.listTools(undefined, { timeout: this.timeout() });
      for (const t of listed.tools.slice(0, 2000)) {
        const a = t.annotations;
        const hints = a ? { readOnlyHint: a.readOnlyHint, destructiveHint: a.destructiveHint, idempotentHint: a.idempotentHint, openWorldHint: a.openWorldHint } : undefined;
        const ui = uiOf(t._meta);
        const info: McpToolInfo = {
          name: t.name,
          title: t.title ?? a?.title,
          description: t.description ?? '',
          inputSchema: t.inputSchema as Record<string, unknown>,
          ...(hints ? { annotations: hints } : {}),
          ...(t.outputSchema ? { outputSchema: t.outputSchema as Record<string, unknown> } : {}),
          ...(ui ? { ui } : {}),
        };
        all.push(info);
        // MCP Apps: a tool only a server's view may call (`_meta.ui.visibility` without "model") never reaches the
        // model; a view of this server may still call it (mcp-apps.ts).
        if (!appOnly(t._meta)) tools.push(info);
      }
      if (this.stopped) {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      this.transport = transport;
      this.attempt = 0;
      this.tools = tools;
      this.allTools = all;
      // After connecting, an unexpected end is a crash: note it and come back with backoff.
      client.onclose = () => {
        if (this.client !== client) return;
        this.client = null;
        this.failed(new Error(stdio?.endReason ?? 'the connection closed'), stdio);
      };
      client.onerror = (err) => this.setHealth({ lastError: err.message });
      this.setHealth({
        status: 'connected',
        toolCount: tools.length,
        lastError: this.health.lastError,
        stderrTail: stdio?.stderrTail() || this.health.stderrTail,
        protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
      });
      this.deps.onTools(tools);
    } catch (err) {
      await client.close().catch(() => undefined);
      stdio ??= null;
      // The server ended the connection while `server/discover` was its first message (an SDK that stops on any
      // request before `initialize`): the next start goes straight to `initialize`, at once.
      if (!this.legacyOnly && stdio && client.getNegotiatedProtocolVersion() === undefined && /exited/.test(stdio.endReason ?? '') && !this.stopped) {
        this.legacyOnly = true;
        return this.connect();
      }
      this.failed(stdio?.endReason && !/closed by Deskhand/.test(stdio.endReason) ? new Error(`${describe(err)} (${stdio.endReason})`) : err, stdio);
    }
  }

  private failed(err: unknown, stdio: OwnedStdioTransport | null): void {
    if (this.stopped) return;
    const delay = Math.min((this.deps.backoff?.firstMs ?? 1000) * 2 ** this.attempt, this.deps.backoff?.maxMs ?? 60_000);
    this.attempt++;
    this.setHealth({
      status: 'failed',
      lastError: describe(err),
      stderrTail: stdio?.stderrTail() || this.health.stderrTail,
      restarts: this.health.restarts + (this.health.status === 'connected' ? 1 : 0),
      nextRetryAt: Date.now() + delay,
    });
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) void this.start();
    }, delay);
    this.retryTimer.unref();
  }

  private async makeTransport(): Promise<Transport> {
    const c = this.config;
    if (c.transport === 'stdio') {
      const secrets: Record<string, string> = {};
      for (const [variable, secret] of Object.entries(c.secretEnv ?? {})) {
        const value = await this.deps.secret(secret);
        if (value === null) throw new Error(`the saved secret ${secret} (for ${variable}) does not exist; save it with \`deskhand secrets set ${secret}\``);
        secrets[variable] = value;
      }
      return new OwnedStdioTransport({
        command: c.command,
        args: c.args ?? [],
        // What the configuration names for this server, as given; the launcher adds Deskhand's own variables minus
        // every credential-named one.
        env: { ...(c.env ?? {}), ...secrets },
        cwd: c.cwd,
        sandbox: stdioSandbox(c, this.deps.dataDir),
        ...(this.deps.maxMessageBytes ? { maxMessageBytes: this.deps.maxMessageBytes } : {}),
      });
    }
    return await httpTransport(c, c.oauth ? this.deps.oauth?.(c.name) : undefined);
  }

  private timeout(): number {
    return this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Waits for a connection in progress; throws a model-readable error when the server is down. */
  private async ready(): Promise<Client> {
    if (!this.client && this.connecting) await this.connecting;
    if (this.client) return this.client;
    const retry = this.health.nextRetryAt ? ` Deskhand retries in ${Math.max(1, Math.round((this.health.nextRetryAt - Date.now()) / 1000))} s.` : '';
    throw new Error(`MCP server "${this.config.name}" is not connected (${this.health.lastError ?? this.health.status}).${retry} Its error and log are in Settings → MCP and \`deskhand mcp list\`.`);
  }

  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal, opts: McpCallOptions = {}): Promise<McpCallResult> {
    const client = await this.ready();
    if (opts.roots) await this.offerRoots(client, opts.roots);
    // Deskhand's own deadline instead of the SDK's: it pauses while a person answers the server's question.
    const deadline = new Deadline(this.timeout(), signal);
    const flight: InFlight = { ...(opts.elicit ? { elicit: opts.elicit } : {}), deadline };
    this.inFlight.push(flight);
    try {
      const result = await client.callTool({ name: tool, arguments: args }, {
        signal: deadline.signal,
        timeout: MAX_TIMER_MS,
        ...(opts.onProgress ? { onprogress: (p: { progress: number; total?: number | undefined; message?: string | undefined }) => opts.onProgress!(p) } : {}),
      });
      return { content: (result.content ?? []) as McpCallResult['content'], isError: !!result.isError, structured: result.structuredContent };
    } catch (err) {
      throw new Error(this.callError(deadline.timedOut ? new Error('timed out') : err, tool));
    } finally {
      deadline.end();
      this.inFlight.splice(this.inFlight.indexOf(flight), 1);
    }
  }

  /**
   * The conversation's folders as the server's roots: a change is announced (roots/list_changed), and a server that
   * reads roots gets to read the new ones before the call goes (at most 2 s, then ROOTS_SETTLE_MS to apply them).
   */
  private async offerRoots(client: Client, folders: readonly string[]): Promise<void> {
    const roots = rootsOf(folders);
    if (JSON.stringify(roots) === JSON.stringify(this.roots)) return;
    this.roots = roots;
    // On 2026-07-28 a server asks for the roots inside each call (an `input_required` round): nothing to announce.
    if ((client.getNegotiatedProtocolVersion() ?? '') >= MODERN_REVISION) return;
    const reads = this.rootsReader.asked ? new Promise<void>((done) => (this.rootsReader.next = done)) : null;
    await client.sendRootsListChanged().catch(() => undefined);
    if (!reads) return;
    const read = await Promise.race([reads.then(() => true), new Promise<boolean>((done) => setTimeout(() => done(false), 2000).unref())]);
    // The server applies what it read after our answer reaches it (server-filesystem checks each folder first): a
    // moment for that, since the protocol has no message saying it is done.
    if (read) await new Promise((done) => setTimeout(done, ROOTS_SETTLE_MS).unref());
  }

  /** What a server may ask of Deskhand: its roots, and a person's input (elicitation) during a call. */
  private handleServerRequests(client: Client): void {
    this.rootsReader = { asked: false, next: null };
    client.setRequestHandler('roots/list', () => {
      this.rootsReader.asked = true;
      const next = this.rootsReader.next;
      this.rootsReader.next = null;
      next?.();
      return { roots: this.roots };
    });
    client.setRequestHandler('elicitation/create', async (request): Promise<McpElicitResult> => {
      const flight = this.inFlight.at(-1);
      // Outside a call there is no one to ask on behalf of: declined (the server hears so and may go on).
      if (!flight?.elicit) return { action: 'decline' };
      const p = request.params;
      const asked: McpElicitation =
        p.mode === 'url'
          ? { mode: 'url', server: this.config.name, message: p.message, url: p.url, elicitationId: p.elicitationId }
          : { mode: 'form', server: this.config.name, message: p.message, requestedSchema: p.requestedSchema as McpFormSchema };
      flight.deadline.pause();
      try {
        return await flight.elicit(asked);
      } finally {
        flight.deadline.resume();
      }
    });
    // A URL-mode elicitation finished out of band: nothing waits on it here (the person answered, or the call goes on).
    client.setNotificationHandler('notifications/elicitation/complete', () => undefined);
  }

  async request<T>(what: string, fn: (c: Client) => Promise<T>): Promise<T> {
    const client = await this.ready();
    try {
      return await fn(client);
    } catch (err) {
      throw new Error(this.callError(err, what));
    }
  }

  private callError(err: unknown, what: string): string {
    const message = describe(err);
    const name = this.config.name;
    if (/timed out|timeout/i.test(message)) return `MCP server "${name}" did not answer ${what} within ${this.timeout() / 1000} s; the call was abandoned. Try again later, or ask for less.`;
    if (/closed/i.test(message)) return `MCP server "${name}" stopped while handling ${what} (${this.health.lastError ?? 'connection closed'}); Deskhand restarts it with backoff. The call did not complete.`;
    if (/abort/i.test(message)) return `The call to ${what} on MCP server "${name}" was stopped.`;
    return `MCP server "${name}" failed ${what}: ${message.slice(0, 500)}`;
  }

  private setHealth(patch: Partial<McpHealth>): void {
    this.health = { ...this.health, ...patch };
    try {
      this.deps.onHealth(this.health);
    } catch {
      // Recording health must never break a connection.
    }
  }
}

export async function httpTransport(c: HttpServerConfig, authProvider?: OAuthClientProvider): Promise<Transport> {
  const url = new URL(c.url);
  const requestInit = c.headers ? { headers: c.headers } : undefined;
  const { SSEClientTransport, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  if (c.transport === 'sse') return new SSEClientTransport(url, { ...(requestInit ? { requestInit } : {}), ...(authProvider ? { authProvider } : {}) });
  return new StreamableHTTPClientTransport(url, { ...(requestInit ? { requestInit } : {}), ...(authProvider ? { authProvider } : {}) });
}

/** The MCP Apps extension's id and the one view type Deskhand renders (SEP-1865). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const UI_MIME = 'text/html;profile=mcp-app';

/**
 * A tool's MCP Apps facts: its `ui://` view (`_meta.ui.resourceUri`, or the older flat `_meta["ui/resourceUri"]`) and
 * who may call it (`_meta.ui.visibility`; absent: the model and the view). Null when it has neither.
 */
export function uiOf(meta: unknown): McpToolInfo['ui'] | null {
  const m = (meta ?? {}) as { ui?: { resourceUri?: unknown; visibility?: unknown }; 'ui/resourceUri'?: unknown };
  const raw = m.ui?.resourceUri ?? m['ui/resourceUri'];
  const resourceUri = typeof raw === 'string' && raw.startsWith('ui://') ? raw : null;
  const v = m.ui?.visibility;
  const visibility = Array.isArray(v) && v.length > 0 ? v.filter((x): x is 'model' | 'app' => x === 'model' || x === 'app') : null;
  if (!resourceUri && !visibility) return null;
  return { resourceUri, visibility: visibility ?? ['model', 'app'] };
}

/** Whether a tool's `_meta.ui.visibility` (MCP Apps) leaves the model out: a non-empty list without "model". */
export function appOnly(meta: unknown): boolean {
  const visibility = (meta as { ui?: { visibility?: unknown } } | undefined)?.ui?.visibility;
  return Array.isArray(visibility) && visibility.length > 0 && !visibility.includes('model');
}

/** The longest a Node timer may be: the SDK's own timeout is set to this, Deskhand's Deadline decides. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A call's deadline: aborts its signal when `ms` pass or the run's signal aborts. Paused while a person answers an
 * elicitation (they may take minutes); the time left is kept and runs again when the answer is in.
 */
export class Deadline {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private left: number;
  private startedAt = 0;
  private paused = 0;
  timedOut = false;
  private readonly onAbort: () => void;

  constructor(
    ms: number,
    private readonly outer: AbortSignal,
  ) {
    this.left = ms;
    this.onAbort = () => this.controller.abort(outer.reason);
    if (outer.aborted) this.onAbort();
    else outer.addEventListener('abort', this.onAbort, { once: true });
    this.arm();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  pause(): void {
    if (this.paused++ > 0 || !this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.left -= Date.now() - this.startedAt;
  }

  resume(): void {
    if (this.paused === 0 || --this.paused > 0) return;
    this.arm();
  }

  end(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.outer.removeEventListener('abort', this.onAbort);
  }

  private arm(): void {
    this.startedAt = Date.now();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new Error('timed out'));
    }, Math.max(0, this.left));
  }
}

function describe(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.replace(/^MCP error -?\d+: /, '').slice(0, 1000);
}
