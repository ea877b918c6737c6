/**
 * The MCP manager: every configured server (and the servers of trusted project files) as a live connection, health
 * written to the store as it changes (so `deskhand mcp list` and the health panel of any process see it), tools
 * announced to whoever registers them (the extensions family), calls routed by server.
 */
import type { ContentReader } from '../../../shared/content-reader';
import { join } from 'node:path';
import { PROJECT_FILE, readProjectFile, parseServerConfig, type McpServerConfig, type ProjectScript } from './config';
import { pinsChanged } from './pins';
import { McpConnection, UI_MIME, type ConnectionDeps } from './connection';
import type { McpCallOptions, McpCallResult, McpContent, McpHealth, McpServerView, McpService, McpToolInfo, McpUiResource, ToolsListener } from './index';
import { extensionsModule } from '../store/modules/extensions';
import { mcpSeenModule } from '../store/modules/mcp-seen';
import { createHash } from 'node:crypto';
import type { Store } from '../store/store';

export interface McpManagerOptions {
  store: Store;
  secret: ConnectionDeps['secret'];
  oauth?: ConnectionDeps['oauth'];
  backoff?: ConnectionDeps['backoff'];
  maxMessageBytes?: number;
  /**
   * The guarded reader project files and the scripts they run are read through (injected by the host). Without one,
   * project files are not read at all (configured servers only: `deskhand mcp test`).
   */
  reader?: ContentReader;
}

export class McpManager implements McpService {
  private readonly conns = new Map<string, McpConnection>();
  private readonly toolListeners = new Set<ToolsListener>();
  private readonly healthListeners = new Set<(h: McpHealth) => void>();
  /** The workspace scripts of each project file found trusted in this process (run-later files: writes ask). */
  private readonly trustedScripts = new Map<string, ProjectScript[]>();
  private readonly q;
  private readonly seen;
  /** MCP Apps views read, by server and URI (dropped when the server's tools change: it reconnected). */
  private readonly views = new Map<string, McpUiResource>();
  /** The whole results of recent calls, by call id, for their views (the model gets text; a view wants structure). */
  private readonly results = new Map<string, McpCallResult>();

  constructor(private readonly opts: McpManagerOptions) {
    this.q = opts.store.module(extensionsModule);
    this.seen = opts.store.module(mcpSeenModule);
  }

  toolsUnseen(name: string): boolean {
    const conn = this.conns.get(name);
    if (!conn || !conn.tools.length) return false;
    return this.seen.seen(name)?.sha256 !== toolListHash(conn.tools);
  }

  /** The person saw this server's current tool list (`deskhand mcp test` printed it): later runs carry it untainted. */
  markToolsSeen(name: string): void {
    const conn = this.conns.get(name);
    if (conn?.tools.length) this.seen.see(name, toolListHash(conn.tools));
  }

  /** The person's configured servers, as stored (a row that no longer parses is reported, not dropped silently). */
  configured(): { config: McpServerConfig | null; name: string; error: string | null }[] {
    return this.q.servers().map(configuredRow);
  }

  /**
   * The files the person's own stdio servers run (pinned when they added them), kept for the stored rows' text: the
   * approval engine asks for them at every call, and parsing every server's configuration each time is all they cost.
   * A row added, removed or changed (here or by another process) is another text, so it is parsed again.
   */
  private pinnedRunLater(): readonly { path: string; what: string }[] {
    const rows = this.q.servers();
    const key = rows.map((r) => `${r.name}\0${r.config}`).join('\0\0');
    if (this.#pinned?.key !== key) {
      const paths: { path: string; what: string }[] = [];
      for (const entry of rows.map(configuredRow)) {
        const c = entry.config;
        if (c?.transport !== 'stdio') continue;
        for (const pin of c.pins ?? []) paths.push({ path: pin.path, what: `a file the MCP server ${c.name} runs (pinned when it was added; a change stops it until the person adds it again)` });
      }
      this.#pinned = { key, paths };
    }
    return this.#pinned.paths;
  }
  #pinned: { key: string; paths: readonly { path: string; what: string }[] } | null = null;

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

  /**
   * Connects one server (replacing a running connection of that name). A project server (`project` is its workspace
   * folder) is checked against the person's approval before every start, restarts after a crash included.
   */
  async connect(config: McpServerConfig, project?: string): Promise<McpServerView> {
    await this.disconnect(config.name);
    const conn = new McpConnection(config, {
      ...(project
        ? { beforeStart: () => this.stillTrusted(project, config) }
        : config.transport === 'stdio' && config.pins?.length
          ? { beforeStart: () => pinsChanged(config) }
          : {}),
      secret: this.opts.secret,
      dataDir: this.opts.store.dataDir,
      ...(this.opts.oauth ? { oauth: this.opts.oauth } : {}),
      ...(this.opts.backoff ? { backoff: this.opts.backoff } : {}),
      ...(this.opts.maxMessageBytes ? { maxMessageBytes: this.opts.maxMessageBytes } : {}),
      onHealth: (h) => this.recordHealth(h),
      onTools: (tools) => {
        if (this.conns.get(config.name) !== conn) return;
        for (const key of this.views.keys()) if (key.startsWith(`${config.name}\0`)) this.views.delete(key);
        // The first list a server gives after the person added it is the one they accepted by adding it.
        if (tools.length) this.seen.seeFirst(config.name, toolListHash(tools));
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

  async callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal, opts?: McpCallOptions): Promise<McpCallResult> {
    const result = await this.conn(server).callTool(tool, args, signal, opts);
    if (opts?.callId) {
      this.results.set(opts.callId, result);
      if (this.results.size > RESULTS_KEPT) this.results.delete(this.results.keys().next().value!);
    }
    return result;
  }

  callResult(callId: string): McpCallResult | null {
    return this.results.get(callId) ?? null;
  }

  appTools(server: string): McpToolInfo[] {
    return this.conns.get(server)?.allTools ?? [];
  }

  async readUiResource(server: string, uri: string, signal: AbortSignal): Promise<McpUiResource> {
    if (!uri.startsWith('ui://')) throw new Error(`"${uri.slice(0, 200)}" is not a ui:// resource.`);
    const key = `${server}\0${uri}`;
    const kept = this.views.get(key);
    if (kept) return kept;
    const res = await this.conn(server).request(`resources/read ${uri}`, (c) => c.readResource({ uri }, { signal }));
    const view = uiResourceOf(server, uri, res.contents as UiContent[]);
    this.views.set(key, view);
    return view;
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
    if (!this.opts.reader) return { file: null, trusted: false, error: 'Project MCP files are not read by this command.' };
    try {
      const file = readProjectFile(folder, this.opts.reader);
      const trusted = !!file && this.q.trusted(file.path)?.sha256 === file.sha256;
      if (trusted) this.trustedScripts.set(folder, file.scripts);
      return { file, trusted, error: null };
    } catch (err) {
      return { file: null, trusted: false, error: (err as Error).message };
    }
  }

  /**
   * The workspace files trusted project servers run (as found trusted in this process), as run-later files: the
   * approval engine asks for every write to one, under every policy. A file whose approval lapsed stays on the list
   * (its change still matters: it runs again once the person approves).
   */
  runLaterPaths(): { path: string; what: string }[] {
    // The person's own servers: the files pinned when they added them (a change stops the server until added again).
    const out = this.pinnedRunLater().map((p) => ({ ...p }));
    for (const [folder, scripts] of this.trustedScripts) {
      for (const s of scripts) out.push({ path: s.resolved, what: `a file the project MCP server ${s.server} runs (approved with ${join(folder, PROJECT_FILE)}; a change stops it until approved again)` });
    }
    return out;
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
        // A server that stopped because its approval no longer held starts again once the person approved again.
        if (running && running.health.status !== 'failed' && running.config.source === s.source && JSON.stringify(running.config) === JSON.stringify(s)) return;
        await this.connect(s, folder);
      }),
    );
  }

  /**
   * Why a project server must not (re)start now, or null: its project file, or a workspace file its command runs,
   * changed since the person approved it (the pin covers both), or the server's entry is not what was approved.
   */
  private stillTrusted(folder: string, config: McpServerConfig): string | null {
    const { file, trusted, error } = this.projectFile(folder);
    const again = 'It does not start until the person approves the project MCP file again (enable_project_mcp_servers).';
    if (!file) return `The project MCP file of ${folder} can no longer be read (${error ?? 'it is gone'}). ${again}`;
    if (!trusted) {
      const scripts = file.scripts.length ? ` or a file its servers run (${file.scripts.map((x) => x.resolved).join(', ')})` : '';
      return `${file.path}${scripts} changed since the person approved it. ${again}`;
    }
    const now = file.servers.find((x) => x.name === config.name);
    if (!now || JSON.stringify(now) !== JSON.stringify(config)) return `The entry of ${config.name} in ${file.path} is not the one that was approved. ${again}`;
    return null;
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

/** Results kept for views (the newest). */
const RESULTS_KEPT = 200;
/** The largest view Deskhand renders (the basic examples are ~330 KB, single-file with their scripts inlined). */
const VIEW_MAX_BYTES = 5_000_000;

type UiContent = { uri: string; mimeType?: string; text?: string; blob?: string; _meta?: Record<string, unknown> };

/** Strings of a list (others dropped), at most 50. */
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').slice(0, 50) : []);

/** A `resources/read` answer as a view: the `text/html;profile=mcp-app` content of that URI, with its declared needs. */
/** A stored server row as `configured()` reports it (a row that no longer parses is reported, not dropped). */
function configuredRow(row: { name: string; config: string }): { config: McpServerConfig | null; name: string; error: string | null } {
  try {
    return { name: row.name, config: parseServerConfig({ ...JSON.parse(row.config), name: row.name }), error: null };
  } catch (err) {
    return { name: row.name, config: null, error: (err as Error).message };
  }
}

export function uiResourceOf(server: string, uri: string, contents: readonly UiContent[]): McpUiResource {
  const c = contents.find((x) => x.uri === uri && (x.mimeType ?? '').replace(/\s+/g, '').toLowerCase() === UI_MIME) ?? contents.find((x) => (x.mimeType ?? '').replace(/\s+/g, '').toLowerCase() === UI_MIME);
  if (!c) throw new Error(`MCP server "${server}" answered ${uri} without a ${UI_MIME} content (${contents.map((x) => x.mimeType ?? 'no type').join(', ') || 'nothing'}); Deskhand renders only that type.`);
  const html = c.text ?? (c.blob ? Buffer.from(c.blob, 'base64').toString('utf8') : '');
  if (!html) throw new Error(`MCP server "${server}" sent an empty view for ${uri}.`);
  if (Buffer.byteLength(html) > VIEW_MAX_BYTES) throw new Error(`MCP server "${server}" sent a view of ${Buffer.byteLength(html)} bytes for ${uri}; Deskhand renders at most ${VIEW_MAX_BYTES}.`);
  const ui = ((c._meta ?? {}) as { ui?: { csp?: Record<string, unknown>; permissions?: Record<string, unknown>; prefersBorder?: unknown } }).ui ?? {};
  const csp = ui.csp ?? {};
  return {
    uri,
    html,
    csp: { connectDomains: strs(csp.connectDomains), resourceDomains: strs(csp.resourceDomains), frameDomains: strs(csp.frameDomains), baseUriDomains: strs(csp.baseUriDomains) },
    permissions: Object.keys(ui.permissions ?? {}).slice(0, 20),
    prefersBorder: typeof ui.prefersBorder === 'boolean' ? ui.prefersBorder : null,
  };
}

/** What a server tells the model through its tools (names, titles, descriptions, schemas), hashed in a stable order. */
export function toolListHash(tools: readonly McpToolInfo[]): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
    return v;
  };
  const list = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((t) => canonical({ name: t.name, title: t.title ?? null, description: t.description, inputSchema: t.inputSchema }));
  return createHash('sha256').update(JSON.stringify(list)).digest('hex');
}
