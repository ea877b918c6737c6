/**
 * MCP Apps (SEP-1865): the view an MCP server gives a tool, inside that tool call's card. The page renders in an
 * iframe with `sandbox="allow-scripts"` (an opaque origin: no access to the app, no storage; in the web UI inside a
 * sandbox proxy on another origin that relays the bridge, `frameSource`) from a ticketed page main
 * serves with a policy built from the origins the view declared and no others (none: no network; no form posts;
 * host/app/mcp-apps.ts); declared permissions become the frame's `allow`. The host
 * side of the bridge is the SDK's AppBridge over postMessage with this frame only:
 * - ui/initialize gets Deskhand's host context (theme, inline display); then the call's input and result are sent.
 * - tools/call: main checks the tool is the view's own server's and one views may call, and the approval engine judges
 *   it; when it asks, this card shows the call ("the view asks") and the person allows or declines it.
 * - ui/message: sent to the conversation as the person's message, marked untrusted (main wraps and redacts it).
 * - ui/open-link: shown with its host; only the person's click opens it (the system browser, as any link).
 * - size changes: the frame takes the view's height (bounded).
 * Resource reads, sampling, downloads and other display modes are not offered to views.
 */
import { useEffect, useRef, useState } from 'react';
import { AppBridge, PostMessageTransport, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { MethodResult, ToolItem } from '../../../shared/contract';
import type { McpAppCallOutcome } from '../../../shared/contract/mcp-apps';
import { parseWebUrl } from '../../../shared/url-guard';
import { api, errorText } from '../../api/client';
import { useMessages } from '../../state/messages';
import { ArgsView } from '../common/ArgsView';

type View = NonNullable<MethodResult<'openMcpApp'>['view']>;
type Ask = Extract<McpAppCallOutcome, { status: 'ask' }> & { settle(outcome: McpAppCallOutcome): void };

const MIN_HEIGHT = 60;
const MAX_HEIGHT = 1600;

/**
 * Where the frame loads the view. The desktop app: the view's page itself (its own protocol). The web UI: the view's
 * sandbox proxy on the other loopback name (a different origin than this page's, as MCP Apps asks of web hosts; the
 * web host serves it, web-host.ts), which frames the view; elsewhere (a paired device, `--remote`) there is none: null.
 */
function frameSource(url: string): string | null {
  if (window.deskhand) return url;
  // `deskhand web --remote` serves this page from a local relay that has no view route.
  if (document.querySelector('meta[name="deskhand-remote"]')) return null;
  const { hostname, port, protocol } = window.location;
  const other = hostname === '127.0.0.1' ? 'localhost' : hostname === 'localhost' ? '127.0.0.1' : null;
  if (!other || protocol !== 'http:') return null;
  return `http://${other}:${port}${url.replace(/^\/cv\//, '/sp/')}`;
}

export function McpAppView({ item }: { item: ToolItem }) {
  if (!item.tool.startsWith('mcp__') || (item.status !== 'ok' && item.status !== 'error')) return null;
  return <AppFrame item={item} />;
}

function AppFrame({ item }: { item: ToolItem }) {
  const conversationId = useMessages((s) => s.conversationId);
  const [view, setView] = useState<View | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [height, setHeight] = useState(240);
  const [asks, setAsks] = useState<Ask[]>([]);
  const [link, setLink] = useState<{ url: string; host: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const ref = useRef<HTMLIFrameElement>(null);
  const args = item.args && typeof item.args === 'object' && !Array.isArray(item.args) ? (item.args as Record<string, unknown>) : {};

  useEffect(() => {
    if (!conversationId) return;
    let live = true;
    api()
      .openMcpApp({ conversationId, runId: item.runId, callId: item.callId, args })
      .then((r) => live && setView(r.view))
      .catch((err: unknown) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
    // The call's arguments do not change once it ran.
  }, [conversationId, item.runId, item.callId]);

  useEffect(() => {
    const frame = ref.current?.contentWindow;
    if (!view || !frame || !conversationId) return;
    const call = { conversationId, runId: item.runId, callId: item.callId };
    const theme = document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light';
    const hostContext: McpUiHostContext = { theme, displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'desktop', locale: navigator.language };
    const bridge = new AppBridge(null, { name: 'Deskhand', version: '1' }, { serverTools: {}, openLinks: {}, logging: {}, message: { text: {} } }, { hostContext });
    const toResult = (o: McpAppCallOutcome) => {
      if (o.status === 'done') return o.result as never;
      return { content: [{ type: 'text' as const, text: o.status === 'refused' ? o.reason : 'not answered' }], isError: true };
    };
    bridge.oncalltool = async (params) => {
      const first = await api().callMcpAppTool({ ...call, tool: params.name, arguments: params.arguments ?? {} });
      if (first.status !== 'ask') return toResult(first);
      // The approval engine asks: the person answers on this card; the view waits.
      const answered = await new Promise<McpAppCallOutcome>((settle) => setAsks((list) => [...list, { ...first, settle }]));
      return toResult(answered);
    };
    bridge.onmessage = async (params) => {
      const text = params.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n').trim();
      if (!text) return { isError: true };
      try {
        await api().sendMcpAppMessage({ ...call, text });
        setNote('The view sent a message to the conversation (marked as coming from the view).');
        return {};
      } catch (err) {
        setNote(`The view's message was not sent: ${errorText(err)}`);
        return { isError: true };
      }
    };
    bridge.onopenlink = async ({ url }) => {
      const parsed = parseWebUrl(url);
      if (!parsed.ok) {
        setNote(`The view asked to open a link Deskhand does not open: ${parsed.reason}.`);
        return { isError: true };
      }
      setLink({ url: parsed.dest.url.href, host: parsed.dest.host });
      return {};
    };
    bridge.onsizechange = ({ height: h }) => {
      if (typeof h === 'number' && Number.isFinite(h)) setHeight(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(h))));
    };
    bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
    bridge.onloggingmessage = () => undefined;
    bridge.oninitialized = () => {
      void bridge.sendToolInput({ arguments: view.input });
      if (view.result) void bridge.sendToolResult(view.result as never);
    };
    void bridge.connect(new PostMessageTransport(frame, frame)).catch((err: unknown) => setError(errorText(err)));
    return () => {
      setAsks((list) => {
        for (const a of list) a.settle({ status: 'refused', reason: 'The view was closed.' });
        return [];
      });
      void bridge.close();
    };
  }, [view, conversationId, item.runId, item.callId]);

  async function answer(ask: Ask, allow: boolean) {
    setAsks((list) => list.filter((a) => a !== ask));
    try {
      ask.settle(await api().answerMcpAppCall({ requestId: ask.requestId, allow }));
    } catch (err) {
      ask.settle({ status: 'refused', reason: errorText(err) });
    }
  }

  if (error) return <p className="muted small tool-shot-note">The view of this call could not be shown: {error}</p>;
  if (!view) return null;
  const src = frameSource(view.url);
  if (src === null) return <p className="muted small tool-shot-note">This call has a view from MCP server {view.server}; views are shown in the desktop app and in `deskhand web` on its own machine.</p>;
  return (
    <section className="mcp-app" aria-label={`View of ${view.tool} (MCP server ${view.server})`}>
      <iframe
        ref={ref}
        src={src}
        // The web UI: the outer frame is the sandbox proxy on another origin (it frames the view, sandboxed, itself).
        sandbox={window.deskhand ? 'allow-scripts' : 'allow-scripts allow-same-origin'}
        {...(view.granted.allow.length > 0 ? { allow: view.granted.allow.join('; ') } : {})}
        referrerPolicy="no-referrer"
        title={`View of ${view.tool} from MCP server ${view.server}`}
        style={{ height }}
        className={view.prefersBorder === false ? 'mcp-app-frame borderless' : 'mcp-app-frame'}
      />
      <p className="muted small mcp-app-note">
        View from MCP server {view.server}: it runs sandboxed
        {view.granted.domains.length === 0 ? ' and reaches nothing outside this card.' : `; it may reach only what it declared: ${view.granted.domains.join(', ')}.`}
        {view.granted.allow.length > 0 &&
          (window.deskhand
            ? ` It asks for ${view.granted.allow.join(', ')}, which the desktop app grants no view.`
            : ` It asks for ${view.granted.allow.join(', ')} (the browser asks you before any is used).`)}
        {view.granted.refused.length > 0 && ` Not allowed: ${view.granted.refused.join('; ')}.`}
      </p>
      {asks.map((a) => (
        <div key={a.requestId} className="mcp-app-ask" role="group" aria-label={`The view asks to call ${a.tool}`}>
          <p>
            <strong>The view asks</strong> to call <code>{a.tool}</code> on MCP server {view.server} ({a.risk}).
          </p>
          <ArgsView args={a.args} label={`Arguments the view gives ${a.tool}`} />
          {a.reasons.length > 0 && <p className="muted small">Why it asks: {a.reasons.join('; ')}</p>}
          <div className="actions approval-actions">
            <button type="button" className="btn primary" onClick={() => void answer(a, true)}>
              Allow
            </button>
            <button type="button" className="btn" onClick={() => void answer(a, false)}>
              Decline
            </button>
          </div>
        </div>
      ))}
      {link && (
        <div className="mcp-app-ask" role="group" aria-label="The view asks to open a link">
          <p>
            The view asks to open a page on <strong>{link.host}</strong>:
          </p>
          <pre className="preview-text">{link.url}</pre>
          <div className="actions approval-actions">
            <a className="btn" href={link.url} target="_blank" rel="noopener noreferrer" onClick={() => setLink(null)}>
              Open in the browser
            </a>
            <button type="button" className="btn" onClick={() => setLink(null)}>
              Dismiss
            </button>
          </div>
        </div>
      )}
      {note && <p className="muted small" role="status">{note}</p>}
    </section>
  );
}
