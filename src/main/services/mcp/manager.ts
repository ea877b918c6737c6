/**
 * The MCP manager: every configured server (and the servers of trusted project files) as a live connection, health
 * written to the store as it changes (so `deskhand mcp list` and the health panel of any process see it), tools
 * announced to whoever registers them (the extensions family), calls routed by server.
 */
import { readProjectFile, parseServerConfig, type McpServerConfig } from './config';
import { McpConnection, type ConnectionDeps } from './connection';
import type { McpContent, McpHealth, McpServerView, McpService, ToolsListener } from './index';
import { extensionsModule } from '../store/modules/extensions';
import type { Store } from '../store/store';

export interface McpManagerOptions {
  store: Store;
  secret: ConnectionDeps['secret'];
  oauth?: ConnectionDeps['oauth'];
  backoff?: ConnectionDeps['backoff'];
  maxMessageBytes?: number;
}

export class McpManager implements McpService {
  private readonly conns = new Map<string, McpConnection>();
  private readonly toolListeners = new Set<ToolsListener>();
  private readonly healthListeners = new Set<(h: McpHealth) => void>();
  private readonly q;

  constructor(private readonly opts: McpManagerOptions) {
    this.q = opts.store.module(extensionsModule);
  }

  /** The person's configured servers, as stored (a row that no longer parses is reported, not dropped silently). */
  configured(): { config: McpServerConfig | null; name: string; error: string | null }[] {
    return this.q.servers().map((row) => {
      try {
        return { name: row.name, config: parseServerConfig({ ...JSON.parse(row.config), name: row.name }), error: null };
      } catch (err) {
        return { name: row.name, config: null, error: (err as Error).message };
      }
    });
  }

  /** Connects every enabled configured server; resolves once each has connected or failed once. */
  async startConfigured(): Promise<void> {
    const starts: Promise<void>[] = [];
    for (const entry of this.configured()) {
      if (!entry.config) {
        this.q.putHealth({ name: entry.name, status: 'failed', tool_count: 0, last_error: entry.error, stderr_tail: null, restarts: 0 });
        continue;
      }
      if (entry.config.enabled === false || this.conns.has(entry.name)) continue;
      starts.push(this.connect(entry.config).then(() => undefined));
    }
    await Promise.all(starts);
  }

  /** Connects one server (replacing a running connection of that name). */
  async connect(config: McpServerConfig): Promise<McpServerView> {
    await this.disconnect(config.name);
    const conn = new McpConnection(config, {
      secret: this.opts.secret,
      dataDir: this.opts.store.dataDir,
      ...(this.opts.oauth ? { oauth: this.opts.oauth } : {}),
      ...(this.opts.backoff ? { backoff: this.opts.backoff } : {}),
      ...(this.opts.maxMessageBytes ? { maxMessageBytes: this.opts.maxMessageBytes } : {}),
      onHealth: (h) => this.recordHealth(h),
      onTools: (tools) => {
        if (this.conns.get(config.name) !== conn) return;
        for (const l of this.toolListeners) l(config, tools);
      },
    });
    this.conns.set(config.name, conn);
    await conn.start();
    return this.view(conn);
  }

  async disconnect(name: string): Promise<void> {
    const conn = this.conns.get(name);
    if (!conn) return;
    this.conns.delete(name);
    for (const l of this.toolListeners) l(conn.config, []);
    await conn.stop();
  }

  async close(): Promise<void> {
    await Promise.all([...this.conns.keys()].map((n) => this.disconnect(n)));
  }

  servers(): McpServerView[] {
    return [...this.conns.values()].map((c) => this.view(c));
  }

  server(name: string): McpServerView | undefined {
    const c = this.conns.get(name);
    return c ? this.view(c) : undefined;
  }

  onToolsChanged(listener: ToolsListener): () => void {
    this.toolListeners.add(listener);
    for (const c of this.conns.values()) if (c.tools.length) listener(c.config, c.tools);
    return () => this.toolListeners.delete(listener);
  }

  onHealthChanged(listener: (h: McpHealth) => void): () => void {
    this.healthListeners.add(listener);
    return () => this.healthListeners.delete(listener);
  }

  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal) {
    return this.conn(server).callTool(tool, args, signal);
  }

  async listResources(server: string) {
    const res = await this.conn(server).request('resources/list', (c) => c.listResources());
    return res.resources.map((r) => ({ uri: r.uri, name: r.name, description: r.description, mimeType: r.mimeType }));
  }

  async readResource(server: string, uri: string, signal: AbortSignal): Promise<McpContent[]> {
    const res = await this.conn(server).request(`resources/read ${uri}`, (c) => c.readResource({ uri }, { signal }));
    return res.contents.map((r) => ({ type: 'resource' as const, resource: r as { uri: string; text?: string; blob?: string; mimeType?: string } }));
  }

  async listPrompts(server: string) {
    const res = await this.conn(server).request('prompts/list', (c) => c.listPrompts());
    return res.prompts.map((p) => ({ name: p.name, description: p.description, arguments: p.arguments?.map((a) => ({ name: a.name, required: a.required })) }));
  }

  async getPrompt(server: string, name: string, args: Record<string, string>, signal: AbortSignal): Promise<string> {
    const res = await this.conn(server).request(`prompts/get ${name}`, (c) => c.getPrompt({ name, arguments: args }, { signal }));
    return res.messages
      .map((m) => {
        const c = m.content as { type: string; text?: string };
        return `[${m.role}] ${c.type === 'text' ? c.text : `(${c.type} content)`}`;
      })
      .join('\n');
  }

  projectFile(folder: string) {
    try {
      const file = readProjectFile(folder);
      return { file, trusted: !!file && this.q.trusted(file.path)?.sha256 === file.sha256, error: null };
    } catch (err) {
      return { file: null, trusted: false, error: (err as Error).message };
    }
  }

  async trustProject(folder: string, sha256: string): Promise<McpServerView[]> {
    const { file, error } = this.projectFile(folder);
    if (!file) throw new Error(error ?? `There is no .deskhand/mcp.json in ${folder}.`);
    if (file.sha256 !== sha256) throw new Error(`${file.path} changed since it was shown; look at it again before approving.`);
    this.q.trust(file.path, sha256);
    await this.startProject(folder);
    return file.servers.map((s) => this.server(s.name)).filter((v): v is McpServerView => !!v);
  }

  async startProject(folder: string): Promise<void> {
    const { file, trusted } = this.projectFile(folder);
    if (!file || !trusted) return;
    const configuredNames = new Set(this.q.servers().map((s) => s.name));
    await Promise.all(
      file.servers.map(async (s) => {
        if (configuredNames.has(s.name)) return; // the person's own server of that name wins
        const running = this.conns.get(s.name);
        if (running && running.config.source === s.source && JSON.stringify(running.config) === JSON.stringify(s)) return;
        await this.connect(s);
      }),
    );
  }

  private conn(server: string): McpConnection {
    const c = this.conns.get(server);
    if (!c) throw new Error(`There is no MCP server "${server}" running. Servers: ${[...this.conns.keys()].join(', ') || 'none'}.`);
    return c;
  }

  private view(c: McpConnection): McpServerView {
    return { config: c.config, health: c.health, tools: c.tools };
  }

  private recordHealth(h: McpHealth): void {
    // Stopping with Deskhand is not news: the store keeps the last state seen while it ran (what `mcp list` shows).
    if (h.status !== 'stopped') {
      try {
        this.q.putHealth({ name: h.name, status: h.status, tool_count: h.toolCount, last_error: h.lastError, stderr_tail: h.stderrTail, restarts: h.restarts });
      } catch {
        // A closed store (shutdown) must not break the connection's bookkeeping.
      }
    }
    for (const l of this.healthListeners) l(h);
  }
}
