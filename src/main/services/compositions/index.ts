/**
 * Compositions: things the agent makes for the person to look at (an HTML page, an SVG chart, an image, a document),
 * kept with their versions in the data dir and reviewed in the app. This module is what tools and hosts import: the
 * service interface, its types and the pure helpers (kinds, the viewer's sandbox policy, the viewer document).
 */
import type { CompositionCommentRow, CompositionKind, CompositionRow, CompositionVersionRow, ReviewState } from '../store/modules/compositions';
import { escapeHtml, markdownPage } from './markdown-html';
import { printableHtml } from './printable';

export { markdownPage, printableHtml };

export type { CompositionKind, ReviewState };
export const COMPOSITION_KINDS = ['html', 'svg', 'image', 'markdown'] as const;

/** The largest version kept (a composition is something to look at, not a data store). */
export const MAX_COMPOSITION_BYTES = 20 * 1024 * 1024;

export interface CompositionVersion {
  version: number;
  revises: number | null;
  mime: string;
  bytes: number;
  sha256: string;
  review: ReviewState;
  createdAt: number;
}

export interface CompositionSummary {
  id: string;
  conversationId: string | null;
  title: string;
  kind: CompositionKind;
  createdAt: number;
  updatedAt: number;
  approvedVersion: number | null;
  latestVersion: number;
}

export interface CompositionDetail extends CompositionSummary {
  versions: CompositionVersion[];
  comments: { version: number; kind: 'comment' | 'approve' | 'changes'; text: string; at: number }[];
}

export interface NewComposition {
  conversationId: string | null;
  title: string;
  kind: CompositionKind;
  bytes: Buffer;
  /** An existing composition id: the bytes become its next version, revising its latest. */
  revises?: string;
}

export interface CompositionService {
  create(input: NewComposition): { detail: CompositionDetail; version: CompositionVersion };
  get(id: string): CompositionDetail | null;
  list(opts?: { conversationId?: string | null; limit?: number }): CompositionSummary[];
  /** The exact bytes of one version, checked against the sha256 recorded when it was made. */
  read(id: string, version: number): Buffer;
  /** The person's review of one version: a comment, an approval (of exactly that version), or a request for changes. */
  review(id: string, version: number, kind: 'comment' | 'approve' | 'changes', text: string): CompositionDetail;
}

export const toSummary = (row: CompositionRow, latest: number): CompositionSummary => ({
  id: row.id,
  conversationId: row.conversation_id,
  title: row.title,
  kind: row.kind,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  approvedVersion: row.approved_version,
  latestVersion: latest,
});

export const toVersion = (v: CompositionVersionRow): CompositionVersion => ({
  version: v.version,
  revises: v.revises,
  mime: v.mime,
  bytes: v.bytes,
  sha256: v.sha256,
  review: v.review,
  createdAt: v.created_at,
});

export const toComment = (c: CompositionCommentRow) => ({ version: c.version, kind: c.kind, text: c.text, at: c.created_at });

/** The image type by its first bytes, or null for anything that is not PNG, JPEG, GIF or WebP. */
export function imageMime(bytes: Uint8Array): string | null {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return 'image/gif';
  if (b.length >= 12 && String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP') return 'image/webp';
  return null;
}

export const EXTENSIONS: Record<string, string> = {
  'text/html': 'html',
  'image/svg+xml': 'svg',
  'text/markdown': 'md',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * The viewer's content policy: scripts and inline styles run; nothing is fetched (no network, no remote images or
 * fonts — only data:/blob: images and fonts), no forms post anywhere, no frames, workers or plugins. The header form
 * adds `sandbox allow-scripts` (an opaque origin even when opened directly) and `frame-ancestors` (only the app).
 */
export const VIEWER_CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline' 'unsafe-eval'",
  "style-src 'unsafe-inline'",
  'img-src data: blob:',
  'font-src data:',
  'media-src data: blob:',
  "connect-src 'none'",
  "form-action 'none'",
  "frame-src 'none'",
  "child-src 'none'",
  "worker-src 'none'",
  "manifest-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * Injected first into every viewed document: reports what the sandbox and the policy blocked to the app (the viewer
 * lists it), and when the page first painted. It cannot unblock anything; a composition can only add noise to the list.
 */
export const VIEWER_REPORTER = `(function(){var P=parent;function r(k,d){try{P.postMessage({deskhandComposition:1,kind:k,detail:String(d||'').slice(0,300)},'*')}catch(e){}}
document.addEventListener('securitypolicyviolation',function(e){r(e.effectiveDirective||e.violatedDirective,e.blockedURI||'inline')});
window.addEventListener('error',function(e){var m=String(e.message||'');if(/navigat|SecurityError|sandbox|top/i.test(m))r('navigation',m)});
window.addEventListener('unhandledrejection',function(e){var m=String(e.reason&&e.reason.message||e.reason||'');if(/Content Security|Failed to fetch|NetworkError/i.test(m))r('connect-src',m)});
document.addEventListener('submit',function(e){var f=e.target;r('form-action',(f&&f.getAttribute&&f.getAttribute('action'))||'(this page)')},true);
var S=HTMLFormElement.prototype.submit;HTMLFormElement.prototype.submit=function(){r('form-action',this.getAttribute('action')||'(this page)');return S.call(this)};
var W=window.open;window.open=function(u){r('popup',u);return W.apply(window,arguments)};
requestAnimationFrame(function(){requestAnimationFrame(function(){r('painted','')})});})();`;

/**
 * Runs before anything of the composition: WebRTC and WebTransport are gone from the page (no content policy governs
 * a peer connection's STUN packets, so the constructors are removed, unforgeably), and a viewer document that finds
 * itself in a tab of its own instead of the app's frame stops before the composition's first element is parsed (the
 * hosts already serve it only into a frame; a tab's page could navigate itself anywhere).
 */
export const VIEWER_PROLOGUE = `(function(){try{if(window.top===window){window.stop();document.documentElement.textContent='This composition is shown only inside the Deskhand viewer.';return}}catch(e){}
['RTCPeerConnection','webkitRTCPeerConnection','RTCDataChannel','RTCIceCandidate','RTCSessionDescription','RTCRtpSender','RTCRtpReceiver','RTCRtpTransceiver','RTCDtlsTransport','RTCIceTransport','RTCSctpTransport','RTCCertificate','RTCDTMFSender','RTCPeerConnectionIceEvent','RTCPeerConnectionIceErrorEvent','RTCTrackEvent','RTCDataChannelEvent','RTCEncodedAudioFrame','RTCEncodedVideoFrame','RTCRtpScriptTransform','WebTransport','WebTransportError','WebTransportBidirectionalStream','WebTransportDatagramDuplexStream'].forEach(function(n){try{Object.defineProperty(window,n,{value:undefined,writable:false,configurable:false,enumerable:false})}catch(e){}});})();`;

const HEAD = `<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${VIEWER_CSP}"><script>${VIEWER_PROLOGUE}</script><script>${VIEWER_REPORTER}</script>`;

/**
 * Puts the policy, the prologue and the reporter before anything of the document: only a leading doctype (anchored at
 * the very start, so the page keeps its rendering mode) may precede them. Nothing is searched for inside the
 * document: a `<head>` in a comment, a script string, CDATA or an attribute, `<HEAD >`, a missing head, all end up
 * after the prologue. The document's own `<html>`/`<head>`/`<body>` tags that follow are what a browser does with a
 * second one (attributes merged onto the root, a second head ignored, its title, meta and style kept in the head).
 */
export function injectHead(html: string): string {
  const text = html.replace(/^\uFEFF/, '');
  const doctype = /^[\t\n\f\r ]*<!doctype[^>]*>/i.exec(text);
  const lead = doctype ? doctype[0] : '';
  return `${lead}<html><head>${HEAD}</head>${text.slice(lead.length)}`;
}

/** What the viewer shows for one version: the document with the policy and reporter injected (never the published bytes). */
export function viewerDocument(kind: CompositionKind, bytes: Buffer, mime: string, title: string): string {
  if (kind === 'html') return injectHead(bytes.toString('utf8'));
  if (kind === 'markdown') return injectHead(markdownPage(bytes.toString('utf8'), title));
  const wrap = (body: string) =>
    `<!doctype html><html><head>${HEAD}<title>${escapeHtml(title)}</title><style>html,body{margin:0;height:100%}body{display:flex;align-items:center;justify-content:center}img,svg{max-width:100%;max-height:100%}</style></head><body>${body}</body></html>`;
  if (kind === 'svg') return wrap(bytes.toString('utf8').replace(/^\s*<\?xml[^>]*\?>/, ''));
  return wrap(`<img alt="${escapeHtml(title)}" src="data:${mime};base64,${bytes.toString('base64')}">`);
}

/** The page a composition publishes as: HTML as is, markdown rendered; SVG and images are published as their own file. */
export function publishedFileName(kind: CompositionKind, mime: string): string {
  if (kind === 'html') return 'index.html';
  if (kind === 'markdown') return 'index.md';
  return `image.${EXTENSIONS[mime] ?? 'bin'}`;
}

export interface GitTargetView {
  repository: string;
  branch: string;
  folder?: string;
  /** The address the branch is served at (GitHub Pages style), when the person gave one. */
  url?: string;
}

export interface PublishFile {
  name: string;
  bytes: Uint8Array;
}

/** Where publish_composition sends a version (implemented in publish.ts). */
export interface Publisher {
  /** A git remote the person configured by name, or null. */
  gitTarget(name: string): GitTargetView | null;
  gitTargetNames(): string[];
  /** Commits the files under `folder` on the target's branch and pushes; the new commit's hash. */
  toGit(target: GitTargetView, folder: string, files: PublishFile[], message: string, signal?: AbortSignal): Promise<string>;
  /** The stable URL a file published under `folder` is served at, or null when no pages host is known for the target. */
  pageUrl(target: GitTargetView, folder: string, file: string): string | null;
  zip(files: PublishFile[]): Uint8Array;
}
