/**
 * One MCP server: connect (stdio in an owned process group, Streamable HTTP, or legacy SSE), list its tools,
 * resources and prompts, call them with a timeout and the run's abort signal, and come back after a crash with
 * exponential backoff. Every failure is kept as the server's health (status, last error, stderr tail) — nothing
 * fails silently — and a call to a broken server is refused with a sentence the model can act on.
 */
// The SDK is loaded when a server first connects (it is large): hosts without MCP servers never pay for it.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { HttpServerConfig, McpServerConfig, StdioServerConfig } from './config';
import { OwnedStdioTransport } from './stdio-transport';
import { planSandbox, unsandboxedPlan, type SandboxPlan } from '../sandbox/sandbox';
import type { McpCallResult, McpHealth, McpToolInfo } from './index';

export const DEFAULT_TIMEOUT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 20_000;

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

export class McpConnection {
  private client: Client | null = null;
  private transport: Transport | null = null;
  private connecting: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private attempt = 0;
  tools: McpToolInfo[] = [];
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
    const { Client: SdkClient } = await import('@modelcontextprotocol/sdk/client/index.js');
    const client = new SdkClient({ name: 'deskhand', version: '1' }, { capabilities: {} });
    let stdio = transport instanceof OwnedStdioTransport ? transport : null;
    try {
      await client.connect(transport, { timeout: Math.min(this.config.timeoutMs ?? CONNECT_TIMEOUT_MS, CONNECT_TIMEOUT_MS) });
      const tools: McpToolInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: this.timeout() });
        for (const t of page.tools) tools.push({ name: t.name, title: t.title ?? t.annotations?.title, description: t.description ?? '', inputSchema: t.inputSchema as Record<string, unknown>, readOnlyHint: t.annotations?.readOnlyHint });
        cursor = page.nextCursor;
      } while (cursor && tools.length < 2000);
      if (this.stopped) {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      this.transport = transport;
      this.attempt = 0;
      this.tools = tools;
      // After connecting, an unexpected end is a crash: note it and come back with backoff.
      client.onclose = () => {
        if (this.client !== client) return;
        this.client = null;
        this.failed(new Error(stdio?.endReason ?? 'the connection closed'), stdio);
      };
      client.onerror = (err) => this.setHealth({ lastError: err.message });
      this.setHealth({ status: 'connected', toolCount: tools.length, lastError: this.health.lastError, stderrTail: stdio?.stderrTail() || this.health.stderrTail });
      this.deps.onTools(tools);
    } catch (err) {
      await client.close().catch(() => undefined);
      stdio ??= null;
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

  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    const client = await this.ready();
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: this.timeout() });
      return { content: (result.content ?? []) as McpCallResult['content'], isError: !!result.isError, structured: result.structuredContent };
    } catch (err) {
      throw new Error(this.callError(err, tool));
    }
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
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  if (c.transport === 'sse') return new SSEClientTransport(url, { ...(requestInit ? { requestInit } : {}), ...(authProvider ? { authProvider } : {}) });
  return new StreamableHTTPClientTransport(url, { ...(requestInit ? { requestInit } : {}), ...(authProvider ? { authProvider } : {}) });
}

function describe(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.replace(/^MCP error -?\d+: /, '').slice(0, 1000);
}
