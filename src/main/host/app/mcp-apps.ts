/**
 * MCP Apps (SEP-1865) for the UI: the view of an MCP tool call and what the view asks of Deskhand.
 *
 * A tool whose server names a view (`_meta.ui.resourceUri`, a `ui://` resource of type `text/html;profile=mcp-app`)
 * shows it in its tool card. The view is read through the server's own MCP connection (so a project server's view
 * exists only while its pin holds, like its tools) and served behind a short-lived ticket on the compositions
 * viewer's route (`/cv/<ticket>`), with a policy built from what the view declares and never wider (`viewCsp`): inline
 * scripts and styles, data: images and fonts, the well-formed declared origins (`_meta.ui.csp`) in their directives
 * and no others (none declared: no network, no frames), no form posts, an opaque sandboxed origin, and the
 * compositions viewer's prologue (no WebRTC or WebTransport). Declared `permissions` become the frame's `allow`.
 *
 * What the view asks (the renderer's host bridge relays it here):
 * - tools/call: only a tool of the view's own server that the server lets views call (`_meta.ui.visibility` includes
 *   "app", the default), judged by the approval engine in the conversation as its next run would judge it. Allowed:
 *   it runs; denied: refused with the reasons; asks: the card shows the call ("a view asked") and the person answers.
 *   The result goes back to the view only, never to the model.
 * - ui/message: sent to the conversation as the person's message, inside an untrusted envelope (the run is tainted),
 *   through the wire redactor.
 */
import { randomBytes } from 'node:crypto';
import type { MethodResult, ParsedParams } from '../../../shared/contract';
import type { McpAppCallOutcome } from '../../../shared/contract/mcp-apps';
import { DeskhandError } from '../../../shared/errors';
import { forDisplay } from '../../../shared/untrusted-display';
import { VIEWER_PROLOGUE } from '../../services/compositions/index';
import { PersistentConversationState } from '../../runtime/context/conversation-state';
import { neutralize } from '../../runtime/context/neutralize';
import { wrapUntrusted } from '../../runtime/context/untrusted';
import type { ToolDefinition } from '../../runtime/tool';
import type { ExplainResult } from '../../runtime/decision/explain';
import type { McpServerConfig, McpService, McpToolInfo } from '../../services/mcp';
import { createMcpTool, mcpToolNames } from '../../tools/extensions/mcp-tools';
import type { HandlerGroup } from './handler-groups';
import type { CompositionPage } from './groups/compositions';

const TICKET_MS = 10 * 60_000;
const ASK_MS = 10 * 60_000;
/** A view's own call waits at most this long for its server. */
const CALL_MS = 60_000;

/**
 * A view page's policy, built from what the view declared (`_meta.ui.csp`, SEP-1865) and never wider: its own inline
 * scripts and styles (and data: scripts), data:/blob: images, fonts and media, plus exactly the declared origins that are well-formed
 * (`viewSource`) — `connectDomains` in connect-src, `resourceDomains` in script-, style-, img-, font- and media-src,
 * `frameDomains` in frame-src, `baseUriDomains` in base-uri. Nothing declared: the restrictive default (no network,
 * no frames, no <base>). Always: no workers, plugins, manifests or form posts. The header adds `sandbox allow-scripts`
 * (an opaque origin: no storage, no cookies, no access to the app) and the host adds `frame-ancestors`.
 */
export function viewCsp(g: Pick<ViewGrants, 'connect' | 'resource' | 'frame' | 'baseUri'> = { connect: [], resource: [], frame: [], baseUri: [] }): string {
  const plus = (base: string, extra: readonly string[]) => [base, ...extra].join(' ');
  const orNone = (list: readonly string[]) => (list.length ? list.join(' ') : "'none'");
  return [
    "default-src 'none'",
    // data: scripts add nothing to what inline scripts can do (PDF.js, with no workers, loads its "fake worker" so).
    plus("script-src 'unsafe-inline' data:", g.resource),
    plus("style-src 'unsafe-inline'", g.resource),
    plus('img-src data: blob:', g.resource),
    plus('font-src data:', g.resource),
    plus('media-src data: blob:', g.resource),
    `connect-src ${orNone(g.connect)}`,
    `frame-src ${orNone(g.frame)}`,
    "child-src 'none'",
    "worker-src 'none'",
    "manifest-src 'none'",
    "object-src 'none'",
    `base-uri ${orNone(g.baseUri)}`,
    "form-action 'none'",
  ].join('; ');
}

/** The policy of a view that declared nothing (the spec's restrictive default, without even 'self'). */
export const MCP_APP_CSP = viewCsp();

/** What a view gets of what it declared: CSP sources per directive, the frame's `allow` features, and what was refused. */
export interface ViewGrants {
  connect: string[];
  resource: string[];
  frame: string[];
  baseUri: string[];
  /** Permission Policy features for the frame's `allow` attribute (`permissions`: camera, microphone, geolocation, clipboardWrite). */
  allow: string[];
  /** Declared entries not granted, each with why. */
  refused: string[];
}

/** The permissions a view may declare, as Permission Policy features (SEP-1865 `McpUiResourcePermissions`). */
const PERMISSION_FEATURES: Record<string, string> = { camera: 'camera', microphone: 'microphone', geolocation: 'geolocation', clipboardWrite: 'clipboard-write' };

/**
 * One declared origin as a CSP source, or why not: `http(s)://` or `ws(s)://`, a host name (a leading `*.` for
 * subdomains of a name with at least two labels), an optional port and path of plain characters. Anything else — a
 * bare scheme (`https:`), `*`, a keyword (`'unsafe-eval'`), `data:`, a `;` or space that would add a directive — is
 * refused, so a declaration can never widen the policy beyond the origins it names.
 */
export function viewSource(entry: string): { ok: true; source: string } | { ok: false; reason: string } {
  const m = /^(https?|wss?):\/\/(\*\.)?([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)(:(?:\d{1,5}|\*))?(\/[A-Za-z0-9._~%/-]*)?$/i.exec(entry);
  if (!m) return { ok: false, reason: 'not an origin (scheme://host[:port])' };
  const [, scheme, wild, host, port, path] = m;
  if (wild && !host!.includes('.')) return { ok: false, reason: 'a wildcard over a top-level domain' };
  if (port && port !== ':*' && Number(port.slice(1)) > 65535) return { ok: false, reason: 'not a port' };
  return { ok: true, source: `${scheme!.toLowerCase()}://${wild ?? ''}${host!.toLowerCase()}${port ?? ''}${path && path !== '/' ? path : ''}` };
}

/** What a request a view makes is for, as a view's grants name it: its connect-, resource- or frame-src. */
export type ViewReachKind = 'connect' | 'resource' | 'frame';

const DEFAULT_PORTS: Record<string, string> = { http: '80', ws: '80', https: '443', wss: '443' };

/**
 * A source's port against a URL's (`urlPort` as `URL.port` gives it: '' for the scheme's default). No port in the
 * source: the URL's default port only; `*`: any; a number: that port, written or the URL scheme's default.
 */
function portAllows(port: string | undefined, urlPort: string, urlScheme: string): boolean {
  if (port === undefined) return urlPort === '';
  if (port === '*') return true;
  return urlPort === port || (urlPort === '' && DEFAULT_PORTS[urlScheme] === port);
}

/**
 * Whether `url` is one a CSP source from `viewSource` allows: the same scheme (or its secure form: http → https,
 * ws → wss; an https/http source also covers wss/ws, as CSP treats them), the host exactly (a `*.` source: any
 * subdomain, never the name itself), the port given (`:*` any) or else the scheme's default, and the path given (a
 * trailing `/`: everything under it). Never wider than the browser's own CSP check of the same source.
 */
export function sourceAllows(source: string, url: string): boolean {
  const m = /^([a-z]+):\/\/(\*\.)?([^/:]+)(?::(\d+|\*))?(\/.*)?$/.exec(source);
  if (!m) return false;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  const [, scheme, wild, host, port, path] = m;
  const to = u.protocol.slice(0, -1);
  const schemes: Record<string, readonly string[]> = { http: ['http', 'https', 'ws', 'wss'], https: ['https', 'wss'], ws: ['ws', 'wss'], wss: ['wss'] };
  if (!schemes[scheme!]?.includes(to)) return false;
  const name = u.hostname.toLowerCase();
  if (wild ? !name.endsWith(`.${host}`) : name !== host) return false;
  if (!portAllows(port, u.port, to)) return false;
  if (path && (path.endsWith('/') ? !u.pathname.startsWith(path) : u.pathname !== path)) return false;
  return true;
}

/** What a view's declarations (`_meta.ui.csp`, `permissions`) grant it. */
export function viewGrants(csp: { connectDomains: string[]; resourceDomains: string[]; frameDomains: string[]; baseUriDomains: string[] }, permissions: readonly string[]): ViewGrants {
  const refused: string[] = [];
  const take = (list: readonly string[]) => {
    const out: string[] = [];
    for (const entry of list) {
      const r = viewSource(entry);
      if (!r.ok) refused.push(`${entry.slice(0, 100)} (${r.reason})`);
      else if (!out.includes(r.source)) out.push(r.source);
    }
    return out;
  };
  const sources = { connect: take(csp.connectDomains), resource: take(csp.resourceDomains), frame: take(csp.frameDomains), baseUri: take(csp.baseUriDomains) };
  const allow: string[] = [];
  for (const p of permissions) {
    const feature = Object.hasOwn(PERMISSION_FEATURES, p) ? PERMISSION_FEATURES[p]! : null;
    if (feature) allow.push(feature);
    else refused.push(`permission ${p.slice(0, 100)} (not one a view may ask for)`);
  }
  return { ...sources, allow, refused };
}

/**
 * The page a view is served as: its policy (as a meta element too) and the compositions viewer's prologue (WebRTC and
 * WebTransport removed, unforgeably, since no content policy governs them; a page found outside its frame stops)
 * before anything of the server's document; only a leading doctype precedes them, as `injectHead` does.
 */
export function viewPage(html: string, csp = MCP_APP_CSP): string {
  const text = html.replace(/^\uFEFF/, '');
  const doctype = /^[\t\n\f\r ]*<!doctype[^>]*>/i.exec(text);
  const lead = doctype ? doctype[0] : '';
  return `${lead}<html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><script>${VIEWER_PROLOGUE}</script></head>${text.slice(lead.length)}`;
}

/** What judging and running a view's call needs (the app runtime gives these; tests give fakes). */
export interface McpAppDeps {
  mcp: Pick<McpService, 'servers' | 'appTools' | 'readUiResource' | 'callResult' | 'callTool' | 'toolsUnseen'>;
  store: {
    toolCallOutput(conversationId: string, runId: string, callId: string): { output: string | null; tool: string; status: string; is_error: number } | undefined;
    getConversation(id: string): { id: string; folder: string; state: string } | undefined;
  };
  /** The approval engine's decision for `tool` in the conversation (Runtime.judgeCall). */
  judge(tool: ToolDefinition, args: unknown, conversationId: string): Promise<Pick<ExplainResult, 'decision' | 'risk' | 'reasons'>>;
  redact(text: string): string;
  /** Starts a run with this message as the person's, marked untrusted (the run and conversation are tainted). */
  sendUntrusted(conversationId: string, text: string): Promise<{ runId: string }>;
}

interface Located {
  config: McpServerConfig;
  tool: McpToolInfo;
}

interface PendingCall {
  conversationId: string;
  located: Located;
  target: McpToolInfo;
  args: Record<string, unknown>;
  until: number;
}

/** How many views' grants are kept for the desktop session's request check (the newest; an older view reaches nothing). */
const REACH_KEPT = 500;

export class McpAppHost {
  private readonly tickets = new Map<string, { page: CompositionPage; until: number }>();
  /** Each view's declared origins by its ticket, for as long as the view may live in a page (not only its load). */
  private readonly reach = new Map<string, Pick<ViewGrants, ViewReachKind>>();
  private readonly pending = new Map<string, PendingCall>();

  constructor(private readonly deps: McpAppDeps) {}

  /** The server and tool a registered MCP tool name stands for (its server still connected), or null. */
  private locate(toolName: string): Located | null {
    if (!toolName.startsWith('mcp__')) return null;
    for (const s of this.deps.mcp.servers()) {
      const names = mcpToolNames(s.config.name, s.tools.map((t) => t.name));
      const tool = s.tools.find((t) => names.get(t.name) === toolName);
      if (tool) return { config: s.config, tool };
    }
    return null;
  }

  /** The tool call the view belongs to, with its server and tool (which must have a view). */
  private viewCall(p: { conversationId: string; runId: string; callId: string }): { row: NonNullable<ReturnType<McpAppDeps['store']['toolCallOutput']>>; located: Located | null } {
    const row = this.deps.store.toolCallOutput(p.conversationId, p.runId, p.callId);
    if (!row) throw new DeskhandError('not_found', `No tool call ${p.callId} in this conversation.`);
    const located = this.locate(row.tool);
    return { row, located: located?.tool.ui?.resourceUri ? located : null };
  }

  async open(p: ParsedParams<'openMcpApp'>): Promise<MethodResult<'openMcpApp'>> {
    const { row, located } = this.viewCall(p);
    if (!located) return { view: null };
    const uri = located.tool.ui!.resourceUri!;
    const view = await this.deps.mcp.readUiResource(located.config.name, uri, AbortSignal.timeout(CALL_MS));
    const now = Date.now();
    for (const [k, t] of this.tickets) if (t.until < now) this.tickets.delete(k);
    const ticket = randomBytes(18).toString('base64url');
    // The declared origins, checked one by one, go into this view's own policy; nothing else does.
    const grants = viewGrants(view.csp, view.permissions);
    const csp = viewCsp(grants);
    this.tickets.set(ticket, { page: { body: viewPage(view.html, csp), type: 'text/html; charset=utf-8', csp: `${csp}; sandbox allow-scripts`, view: { allow: grants.allow } }, until: now + TICKET_MS });
    this.reach.set(ticket, { connect: grants.connect, resource: grants.resource, frame: grants.frame });
    if (this.reach.size > REACH_KEPT) this.reach.delete(this.reach.keys().next().value!);
    const raw = this.deps.mcp.callResult(`${p.runId}/${p.callId}`);
    // The whole result while this process keeps it; after a restart, the text the transcript kept.
    const result = raw
      ? { content: raw.content as unknown[], ...(raw.structured !== undefined ? { structuredContent: raw.structured } : {}), isError: raw.isError }
      : row.output !== null && (row.status === 'ok' || row.status === 'error')
        ? { content: [{ type: 'text', text: forDisplay(row.output).text }], isError: row.is_error === 1 }
        : null;
    return {
      view: {
        url: `/cv/${ticket}`,
        server: located.config.name,
        tool: located.tool.name,
        uri,
        input: p.args,
        result,
        granted: { domains: [...new Set([...grants.connect, ...grants.resource, ...grants.frame, ...grants.baseUri])], allow: grants.allow, refused: grants.refused },
        prefersBorder: view.prefersBorder,
      },
    };
  }

  /**
   * Whether the view served under `ticket` declared `url` for this kind of request: the desktop app's session, which
   * cancels every request that leaves the app, lets a view's own declared origins through (window.ts). False for any
   * other ticket (a composition's, an unknown one).
   */
  reaches(ticket: string, url: string, kind: ViewReachKind): boolean {
    return this.reach.get(ticket)?.[kind].some((source) => sourceAllows(source, url)) ?? false;
  }

  /** A view page by ticket (the `/cv/` route of both hosts), or null. */
  page(ticket: string): CompositionPage | null {
    const t = this.tickets.get(ticket);
    if (!t || t.until < Date.now()) return null;
    return t.page;
  }

  /** A view's tools/call: its own server's tool, one views may call, judged by the approval engine. */
  async call(p: ParsedParams<'callMcpAppTool'>): Promise<McpAppCallOutcome> {
    const { located } = this.viewCall(p);
    if (!located) return { status: 'refused', reason: 'This tool call has no view (or its MCP server is not connected): nothing may call tools from it.' };
    const server = located.config.name;
    const target = this.deps.mcp.appTools(server).find((t) => t.name === p.tool);
    if (!target) return { status: 'refused', reason: `MCP server "${server}" has no tool "${p.tool.slice(0, 100)}"; a view may call only its own server's tools.` };
    if (!(target.ui?.visibility ?? ['model', 'app']).includes('app')) return { status: 'refused', reason: `MCP server "${server}" does not let its views call "${target.name}" (visibility: model only).` };
    const judged = await this.deps.judge(this.definition(located.config, target), p.arguments, p.conversationId);
    if (judged.decision === 'deny') return { status: 'refused', reason: `Deskhand refused the view's call of ${target.name}: ${judged.reasons.join('; ') || 'denied'}.` };
    if (judged.decision === 'allow') return this.run(p.conversationId, located.config, target, p.arguments);
    const now = Date.now();
    for (const [k, c] of this.pending) if (c.until < now) this.pending.delete(k);
    const requestId = `mcpapp_${randomBytes(12).toString('base64url')}`;
    this.pending.set(requestId, { conversationId: p.conversationId, located, target, args: p.arguments, until: now + ASK_MS });
    return { status: 'ask', requestId, tool: target.name, args: p.arguments, risk: judged.risk, reasons: judged.reasons };
  }

  /** The person's answer on the card: the exact call that was shown runs (or is refused), once. */
  async answer(p: ParsedParams<'answerMcpAppCall'>): Promise<McpAppCallOutcome> {
    const c = this.pending.get(p.requestId);
    this.pending.delete(p.requestId);
    if (!c || c.until < Date.now()) return { status: 'refused', reason: 'This request from the view expired or was answered; the view may ask again.' };
    if (!p.allow) return { status: 'refused', reason: `The person declined the view's call of ${c.target.name}.` };
    return this.run(c.conversationId, c.located.config, c.target, c.args);
  }

  /** ui/message: the view's text as the person's message, in an untrusted envelope, redacted. */
  async message(p: ParsedParams<'sendMcpAppMessage'>): Promise<MethodResult<'sendMcpAppMessage'>> {
    const { located } = this.viewCall(p);
    if (!located) throw new DeskhandError('usage', 'This tool call has no view: nothing may send messages from it.');
    const server = located.config.name;
    const text = `Sent from the view of the MCP tool ${located.tool.name} (server ${server}) in its tool card; its text is the view's, as data:\n${wrapUntrusted(`mcp ${server} view`, neutralize(p.text))}`;
    return this.deps.sendUntrusted(p.conversationId, this.deps.redact(text));
  }

  private definition(config: McpServerConfig, target: McpToolInfo): ToolDefinition {
    const all = this.deps.mcp.appTools(config.name);
    const name = mcpToolNames(config.name, all.map((t) => t.name)).get(target.name);
    return createMcpTool(this.deps.mcp as McpService, config, target, false, name);
  }

  private async run(conversationId: string, config: McpServerConfig, target: McpToolInfo, args: Record<string, unknown>): Promise<McpAppCallOutcome> {
    const conv = this.deps.store.getConversation(conversationId);
    if (!conv) throw new DeskhandError('not_found', `No conversation ${conversationId}.`);
    const roots = config.roots === false ? [] : new PersistentConversationState(conv.folder, conv.state).workspaceRoots;
    try {
      const r = await this.deps.mcp.callTool(config.name, target.name, args, AbortSignal.timeout(config.timeoutMs ?? CALL_MS), { roots });
      return { status: 'done', result: { content: r.content as unknown[], ...(r.structured !== undefined ? { structuredContent: r.structured } : {}), isError: r.isError } };
    } catch (err) {
      return { status: 'done', result: { content: [{ type: 'text', text: (err as Error).message }], isError: true } };
    }
  }
}

type McpAppMethods = 'openMcpApp' | 'callMcpAppTool' | 'answerMcpAppCall' | 'sendMcpAppMessage';

/** The MCP Apps contract methods (a handler group, handler-groups.ts). */
export const mcpAppGroup =
  (host: McpAppHost): HandlerGroup<McpAppMethods> =>
  () => ({
    openMcpApp: async (p) => host.open(p),
    callMcpAppTool: async (p) => host.call(p),
    answerMcpAppCall: async (p) => host.answer(p),
    sendMcpAppMessage: async (p) => host.message(p),
  });
