/**
 * Compositions for the UI (issue 17): the contract methods (list, get, source, open, review) and the viewer's pages.
 * A viewer page is reached by a short-lived ticket (`/cv/<ticket>` on the web host), never by the host's token, so a
 * composition's scripts cannot learn the token from their own URL. A review (comment, approve, ask for changes) is
 * stored and becomes a review event of the composition's conversation (review-message.ts); asking for changes starts a
 * run. Exports (file, PDF, zip) of a version are made here for the viewer's buttons.
 */
import type { HandlerGroup } from '../handler-groups';
import { randomBytes } from 'node:crypto';
import type { ContractEvent, MethodResult, ParsedParams } from '../../../../shared/contract';
import { DeskhandError } from '../../../../shared/errors';
import { versionZip } from '../../../services/compositions/export';
import { EXTENSIONS, printableHtml, VIEWER_CSP, viewerDocument, type CompositionDetail, type CompositionService } from '../../../services/compositions';
import type { PdfPrinter } from '../../../services/pdf';
import { ChromiumPdfPrinter } from '../../../services/pdf/print';
import type { AppRuntime } from '../../assembly/open-runtime';
import { reviewMessage } from '../../assembly/review-message';

/** Text sources above this are sent cut (the diff says so); images above it are not sent for the visual diff. */
const SOURCE_LIMIT = 2_000_000;
const TICKET_MS = 10 * 60_000;

export interface CompositionHostOptions {
  runtime: AppRuntime;
  dataDir: string;
  /** Starts a run in the conversation with this user-role message; throws 'conflict' while one is working. */
  send(conversationId: string, text: string): Promise<{ runId: string }>;
  emit(event: ContractEvent): void;
  /** Prints "Save as PDF" and "Print" (default: Chromium, as create_pdf prints). */
  printer?: PdfPrinter;
}

/** A download's name: the title in safe characters, the version, the extension. */
function exportName(title: string, version: number, ext: string): string {
  const base = title.normalize('NFKD').replace(/[^\w .-]+/g, '').replace(/\s+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 80) || 'composition';
  return `${base}-v${version}.${ext}`;
}

/** What a `/cv/<ticket>` serves (web host route, Electron's app protocol). */
export interface CompositionPage {
  body: string | Buffer;
  type: string;
  /** The Content-Security-Policy header (the host adds frame-ancestors). */
  csp: string;
  /** An MCP App's view (mcp-apps.ts), with the frame's `allow` list: the web host serves it on the view origin only, inside its sandbox proxy. */
  view?: { allow: readonly string[] };
}

export class CompositionHost {
  readonly service: CompositionService;
  private readonly tickets = new Map<string, { id: string; version: number; until: number }>();
  /** Print tickets: the PDF a Print click made, served once into the app's hidden print frame (same host, like a view). */
  private readonly prints = new Map<string, { pdf: Buffer; until: number }>();
  private readonly off: () => void;
  private readonly printer: PdfPrinter;

  /** Reviews given while the agent worked, by conversation, in order: told when its run ends (this host's lifetime). */
  private readonly waiting = new Map<string, { action: 'comment' | 'approve' | 'changes'; message: string }[]>();

  constructor(private readonly opts: CompositionHostOptions) {
    this.service = opts.runtime.compositionFiles(opts.dataDir);
    this.printer = opts.printer ?? new ChromiumPdfPrinter();
    // A composition made (or revised) by a tool: the panel lists it at once.
    this.off = opts.runtime.onEvent((e) => {
      // A review given while a run worked is told once the conversation's run ends.
      if (e.type === 'run.finished' && this.waiting.has(e.conversationId)) setImmediate(() => void this.deliver(e.conversationId).catch(() => undefined));
      if (e.type === 'tool.result' && (e.tool === 'create_composition' || e.tool === 'execute_create_composition') && e.status === 'ok') {
        const conversationId = opts.runtime.records.getRun(e.runId)?.conversation_id ?? null;
        opts.emit({ event: 'compositionsChanged', payload: { conversationId } });
      }
    });
  }

  close(): void {
    this.off();
  }

  private detail(id: string): CompositionDetail {
    const d = this.service.get(id);
    if (!d) throw new DeskhandError('not_found', `No composition ${id}.`);
    return d;
  }

  list(p: ParsedParams<'listCompositions'>): MethodResult<'listCompositions'> {
    return { compositions: this.service.list({ conversationId: p.conversationId ?? null }) };
  }

  get(p: ParsedParams<'getComposition'>): MethodResult<'getComposition'> {
    return this.detail(p.id);
  }

  source(p: ParsedParams<'getCompositionSource'>): MethodResult<'getCompositionSource'> {
    const d = this.detail(p.id);
    const v = d.versions.find((x) => x.version === p.version);
    if (!v) throw new DeskhandError('not_found', `Composition ${p.id} has no version ${p.version}.`);
    const bytes = this.service.read(p.id, p.version);
    if (d.kind === 'image') {
      return { kind: d.kind, mime: v.mime, bytes: v.bytes, text: null, truncated: false, dataUrl: bytes.length <= SOURCE_LIMIT ? `data:${v.mime};base64,${bytes.toString('base64')}` : null };
    }
    const text = bytes.toString('utf8');
    return { kind: d.kind, mime: v.mime, bytes: v.bytes, text: text.slice(0, SOURCE_LIMIT), truncated: text.length > SOURCE_LIMIT, dataUrl: null };
  }

  /** A ticket for the viewer page of one version (the iframe's src). */
  open(p: ParsedParams<'openComposition'>): MethodResult<'openComposition'> {
    const d = this.detail(p.id);
    if (!d.versions.some((v) => v.version === p.version)) throw new DeskhandError('not_found', `Composition ${p.id} has no version ${p.version}.`);
    const now = Date.now();
    for (const [k, t] of this.tickets) if (t.until < now) this.tickets.delete(k);
    const ticket = randomBytes(18).toString('base64url');
    this.tickets.set(ticket, { id: p.id, version: p.version, until: now + TICKET_MS });
    return { url: `/cv/${ticket}` };
  }

  /**
   * What a ticket serves, with the header form of its policy, or null for an unknown or expired ticket: the viewer
   * document of a version, or the PDF a Print made (for the print frame; nothing in it is the page's own HTML).
   */
  page(ticket: string): CompositionPage | null {
    const now = Date.now();
    const print = this.prints.get(ticket);
    if (print) return print.until < now ? null : { body: print.pdf, type: 'application/pdf', csp: "default-src 'none'" };
    const t = this.tickets.get(ticket);
    if (!t || t.until < now) return null;
    const d = this.service.get(t.id);
    const v = d?.versions.find((x) => x.version === t.version);
    if (!d || !v) return null;
    return { body: viewerDocument(d.kind, this.service.read(d.id, v.version), v.mime, d.title), type: 'text/html; charset=utf-8', csp: `${VIEWER_CSP}; sandbox allow-scripts` };
  }

  /** Print: the version's PDF (as Save as PDF makes it) behind a short-lived ticket the app's print frame loads. */
  async print(p: ParsedParams<'printComposition'>): Promise<MethodResult<'printComposition'>> {
    const d = this.detail(p.id);
    const v = d.versions.find((x) => x.version === p.version);
    if (!v) throw new DeskhandError('not_found', `Composition ${p.id} has no version ${p.version}.`);
    const pdf = await this.printer.print(printableHtml(d.kind, d.title, v.mime, this.service.read(d.id, v.version)), { landscape: false });
    const now = Date.now();
    for (const [k, t] of this.prints) if (t.until < now) this.prints.delete(k);
    const ticket = randomBytes(18).toString('base64url');
    this.prints.set(ticket, { pdf, until: now + TICKET_MS });
    return { url: `/cv/${ticket}` };
  }

  /**
   * The shown version as the person asked for it: its own file, the PDF create_pdf would print of it (the same
   * printable page and default page setup, printed here: no model turn, no approval, since the person asked), or the
   * zip `deskhand compositions export` writes.
   */
  async export(p: ParsedParams<'exportComposition'>): Promise<MethodResult<'exportComposition'>> {
    const d = this.detail(p.id);
    const v = d.versions.find((x) => x.version === p.version);
    if (!v) throw new DeskhandError('not_found', `Composition ${p.id} has no version ${p.version}.`);
    const bytes = this.service.read(d.id, v.version);
    let out: { bytes: Uint8Array; mime: string; ext: string };
    if (p.as === 'file') out = { bytes, mime: v.mime, ext: EXTENSIONS[v.mime] ?? 'bin' };
    else if (p.as === 'zip') out = { bytes: versionZip(d, v.version, bytes), mime: 'application/zip', ext: 'zip' };
    else out = { bytes: await this.printer.print(printableHtml(d.kind, d.title, v.mime, bytes), { landscape: false }), mime: 'application/pdf', ext: 'pdf' };
    return { name: exportName(d.title, v.version, out.ext), mime: out.mime, base64: Buffer.from(out.bytes).toString('base64'), bytes: out.bytes.length };
  }

  /**
   * The person's review of one version, stored, and in the conversation as a review event the model reads with
   * Deskhand's instructions (review-message.ts). Only "Ask for changes" starts a run; a comment or an approval waits
   * in the conversation for the next turn. While a run works (or waits for an answer) in the conversation, nothing is
   * added to it mid-turn: the review waits, and is told when that run ends (`deliver`).
   */
  async review(p: ParsedParams<'reviewComposition'>): Promise<MethodResult<'reviewComposition'>> {
    const before = this.detail(p.id);
    const text = p.text.trim();
    if (p.action !== 'approve' && !text) throw new DeskhandError('usage', p.action === 'comment' ? 'The comment is empty.' : 'Say what should change.');
    const detail = this.service.review(p.id, p.version, p.action, text);
    let runId: string | null = null;
    let note: string | null = null;
    const conversationId = before.conversationId;
    if (conversationId) {
      const message = reviewMessage({ composition: p.id, title: before.title, version: p.version, action: p.action, text });
      const queue = this.waiting.get(conversationId) ?? [];
      queue.push({ action: p.action, message });
      this.waiting.set(conversationId, queue);
      runId = await this.deliver(conversationId);
      if (this.waiting.has(conversationId)) note = 'Saved. The agent is working in this conversation: it is told when it finishes (while Deskhand stays open).';
    }
    this.opts.emit({ event: 'compositionsChanged', payload: { conversationId } });
    return { composition: detail, runId, note };
  }

  /**
   * Tells the agent the reviews waiting for this conversation, in order, unless a run works (or waits) there: comments
   * and approvals join the conversation for its next turn, and one asking for changes starts a run (the rest wait for
   * that run's end). Returns the run started, if any.
   */
  private async deliver(conversationId: string): Promise<string | null> {
    const queue = this.waiting.get(conversationId);
    const store = this.opts.runtime.records;
    while (queue?.length) {
      if (store.activeRunForConversation(conversationId)) return null;
      const next = queue[0]!;
      if (next.action === 'changes') {
        let runId: string;
        try {
          runId = (await this.opts.send(conversationId, next.message)).runId;
        } catch (err) {
          if (!DeskhandError.isInstance(err) || err.code !== 'conflict') throw err;
          return null; // a run started meanwhile: told when it ends
        }
        queue.shift();
        if (!queue.length) this.waiting.delete(conversationId);
        return runId;
      }
      store.addMessage(conversationId, null, 'user', this.opts.runtime.redactor.redact(next.message));
      queue.shift();
    }
    this.waiting.delete(conversationId);
    return null;
  }
}

type CompositionMethods = 'listCompositions' | 'getComposition' | 'getCompositionSource' | 'openComposition' | 'reviewComposition' | 'exportComposition' | 'printComposition';

/** The compositions contract methods (a handler group, handler-groups.ts), each delegating to the service's host. */
export const compositionGroup =
  (host: CompositionHost): HandlerGroup<CompositionMethods> =>
  () => ({
    listCompositions: async (p) => host.list(p),
    getComposition: async (p) => host.get(p),
    getCompositionSource: async (p) => host.source(p),
    openComposition: async (p) => host.open(p),
    reviewComposition: async (p) => host.review(p),
    exportComposition: async (p) => host.export(p),
    printComposition: async (p) => host.print(p),
  });
