/**
 * Deskhand as an Agent Client Protocol agent: the contract's one implementation (AppService) driven from an editor.
 * A session is a Deskhand conversation (visible in the app, resumed with `session/load`); a prompt is `sendMessage`,
 * its run's events become `session/update`s; every approval the engine opens in a session becomes
 * `session/request_permission` with the card's options, and the editor's answer is `decideApproval` recorded as the
 * person's, answered in the editor. Requests ACP has no shape for (questions, file picks, secrets) are said in one
 * line and wait in the app or the CLI (`deskhand runs answer`), never silently denied. Cancel stops the run.
 *
 * Built on the SDK's app API (`agent()`, `onRequest`, `connect`); the SDK is imported by acp-command.ts and handed in,
 * so this module's mapping stays testable in process (an SDK `client()` connected straight to it).
 */
import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { errorMessage } from '../../../shared/errors';
import type { ContractEvent, MethodName, MethodParams, MethodResult, PendingApproval } from '../../../shared/contract';
import type { RunEvent } from '../../../shared/events';
import type { AppService } from '../app/app-service';
import { createDispatch, type Dispatch } from '../app/dispatch';
import type { Logger } from '../assembly/logger';
import type { EditorFiles } from '../../runtime/tool';
import {
  alwaysScopeOf,
  decisionOf,
  denialReason,
  diffsOf,
  hookUpdate,
  permissionOptions,
  planOf,
  promptText,
  replayOf,
  resultStatus,
  stopReasonOf,
  textContent,
  toolKind,
  toolLocations,
  toolTitle,
  mcpConfigOf,
  type AcpToolContent,
  type AcpUpdate,
  type EditorMcpServer,
  type PromptBlock,
} from './acp-mapping';

type Sdk = typeof acp;

const FORK_CAPABILITY = { fork: {} } as Record<string, unknown> as acp.SessionCapabilities;
/** `session/fork` (not in the stable SDK's method list; its unstable schema names these fields). */
const forkParams = z.looseObject({ sessionId: z.string().max(100), cwd: z.string().max(4096), mcpServers: z.array(z.unknown()).max(50).optional() });

/** How often a running command's output is sent to the editor at most (it arrives in chunks much faster). */
const OUTPUT_FLUSH_MS = 150;

/** The most changed files a turn's summary carries as diffs (the rest are named by count). */
const TURN_DIFFS = 50;

interface Session {
  id: string;
  cwd: string;
  /** Runs that ended, with how (a prompt whose run ended before sendMessage returned still finds its end). */
  ended: Map<string, Extract<RunEvent, { type: 'run.finished' }>>;
  prompt: { runId: string | null; settle: (end: Extract<RunEvent, { type: 'run.finished' }>) => void } | null;
  cancelled: boolean;
  /** Approvals put to the editor and not answered yet: aborting one withdraws the editor's dialog. */
  asking: Map<string, AbortController>;
  /** Input requests already said in a line (each once). */
  told: Set<string>;
  /** Live output per call, sent at most every OUTPUT_FLUSH_MS. */
  output: Map<string, { text: string; timer: NodeJS.Timeout | null }>;
  /** The diff each asked-about write showed, kept on its tool call when it completes (content replaces content). */
  diffs: Map<string, AcpToolContent[]>;
}

/** Connects the MCP servers an editor passes (the runtime's MCP manager, as `deskhand mcp add` servers connect). */
export interface EditorMcp {
  /** Names already in use (configured servers, and the editor's connected earlier). */
  names(): string[];
  connect(config: Record<string, unknown>): Promise<{ status: string; toolCount: number; lastError: string | null }>;
}

export interface AcpAgentOptions {
  service: AppService;
  mcp: EditorMcp;
  /** Makes the editor the file system of a conversation's file tools (Runtime.linkEditor); returns the unlink. */
  linkEditor: (conversationId: string, files: EditorFiles) => () => void;
  version: string;
  log: Logger;
  /** Told who answered in the editor once `initialize` names the client (decideApproval records it). */
  setAnsweredBy: (by: string) => void;
  /** The slash commands of a folder, announced to the editor as available_commands (docs/commands.md). */
  commands?: (cwd: string) => readonly { name: string; description: string; argumentHint: string | null }[];
}

export class AcpAgent {
  private readonly sessions = new Map<string, Session>();
  private readonly runSession = new Map<string, string>();
  /** The editor's MCP servers connected on this connection: their settings → the name Deskhand gave them. */
  private readonly editorServers = new Map<string, string>();
  private client: acp.AgentContext | null = null;
  private clientName = 'the editor';
  /** What of the editor's file system the client offers (`initialize`'s clientCapabilities.fs). */
  private fs = { read: false, write: false };
  private readonly unlinks: (() => void)[] = [];
  private reconciling: Promise<void> = Promise.resolve();
  private readonly off: () => void;

  private readonly dispatch: Dispatch;
  private sdk: Sdk | null = null;

  constructor(private readonly opts: AcpAgentOptions) {
    this.dispatch = createDispatch(opts.service, opts.log);
    this.off = opts.service.onEvent((e) => this.onEvent(e));
  }

  /** The SDK app with every agent method this host answers. */
  app(sdk: Sdk): acp.AgentApp {
    this.sdk = sdk;
    return sdk
      .agent({ name: 'deskhand' })
      .onConnect((connection) => {
        this.client = connection.client;
      })
      .onRequest(sdk.methods.agent.initialize, ({ params, client }) => {
        this.client = client;
        this.fs = { read: params.clientCapabilities?.fs?.readTextFile === true, write: params.clientCapabilities?.fs?.writeTextFile === true };
        const info = params.clientInfo;
        if (info?.name) this.clientName = `the editor (${info.title ?? info.name})`;
        this.opts.setAnsweredBy(this.clientName);
        return {
          protocolVersion: sdk.PROTOCOL_VERSION,
          agentCapabilities: {
            loadSession: true,
            // session/fork, as the unstable schema advertises it (the stable type has no `fork` yet).
            sessionCapabilities: FORK_CAPABILITY,
            promptCapabilities: { image: false, audio: false, embeddedContext: true },
            mcpCapabilities: { http: true, sse: true },
          },
          agentInfo: { name: 'deskhand', title: 'Deskhand', version: this.opts.version },
          authMethods: [],
        };
      })
      .onRequest(sdk.methods.agent.authenticate, () => ({}))
      .onRequest(sdk.methods.agent.session.new, async ({ params }) => {
        const settings = await this.call('getSettings', {});
        const summary = await this.call('createConversation', { folder: params.cwd, policy: settings.settings.defaultPolicy });
        const session = this.open(summary.id, summary.folder);
        await this.connectMcp(session, (params.mcpServers ?? []) as EditorMcpServer[]);
        this.announceCommands(session);
        return { sessionId: summary.id };
      })
      // session/fork (the editor's "fork this chat"): a new conversation with this one's whole history (docs/chat.md).
      .onRequest('session/fork', forkParams, async ({ params }) => {
        const forked = await this.call('forkConversation', { conversationId: params.sessionId }, params.sessionId);
        const session = this.open(forked.conversationId, params.cwd);
        await this.connectMcp(session, (params.mcpServers ?? []) as EditorMcpServer[]);
        this.announceCommands(session);
        return { sessionId: forked.conversationId };
      })
      .onRequest(sdk.methods.agent.session.load, async ({ params }) => {
        const messages = await this.call('getMessages', { conversationId: params.sessionId }, params.sessionId);
        const session = this.open(messages.conversation.id, messages.conversation.folder);
        for (const update of replayOf(messages.items, session.cwd)) await this.update(session, update);
        await this.connectMcp(session, (params.mcpServers ?? []) as EditorMcpServer[]);
        this.announceCommands(session);
        return {};
      })
      .onRequest(sdk.methods.agent.session.prompt, async ({ params }) => {
        const session = this.sessions.get(params.sessionId);
        if (!session) throw sdk.RequestError.sessionNotFound(params.sessionId);
        if (session.prompt) throw sdk.RequestError.invalidRequest({ sessionId: session.id }, 'A prompt is already running in this session: wait for it or cancel it.');
        const text = promptText(params.prompt as PromptBlock[]);
        if ('error' in text) throw sdk.RequestError.invalidParams({ prompt: text.error }, text.error);
        session.cancelled = false;
        const ended = new Promise<Extract<RunEvent, { type: 'run.finished' }>>((settle) => (session.prompt = { runId: null, settle }));
        let runId: string;
        try {
          runId = (await this.call('sendMessage', { conversationId: session.id, text: text.text })).runId;
        } catch (err) {
          session.prompt = null;
          throw err;
        }
        session.prompt!.runId = runId;
        this.track(session, runId);
        const early = session.ended.get(runId);
        if (early) session.prompt!.settle(early);
        if (session.cancelled) void this.stop(session);
        const end = await ended;
        await this.sendTurnChanges(session, runId);
        session.prompt = null;
        const reason = session.cancelled ? 'cancelled' : stopReasonOf(end.status);
        if (!reason) throw sdk.RequestError.internalError({ status: end.status }, end.error ?? `The run ${end.status}.`);
        return { stopReason: reason, _meta: { deskhand: { runId, status: end.status, usage: end.usage, steps: end.steps } } };
      })
      .onNotification(sdk.methods.agent.session.cancel, async ({ params }) => {
        const session = this.sessions.get(params.sessionId);
        if (!session) return;
        session.cancelled = true;
        for (const ask of session.asking.values()) ask.abort();
        await this.stop(session);
      });
  }

  close(): void {
    this.off();
    for (const unlink of this.unlinks.splice(0)) unlink();
    for (const session of this.sessions.values()) {
      for (const ask of session.asking.values()) ask.abort();
      for (const o of session.output.values()) if (o.timer) clearTimeout(o.timer);
    }
  }

  // ── Sessions ──────────────────────────────────────────────────────────────────────────────────────────────────────

  private open(id: string, cwd: string): Session {
    const existing = this.sessions.get(id);
    if (existing) return existing;
    const session: Session = { id, cwd, ended: new Map(), prompt: null, cancelled: false, asking: new Map(), told: new Set(), output: new Map(), diffs: new Map() };
    this.sessions.set(id, session);
    if (this.fs.read || this.fs.write) this.unlinks.push(this.opts.linkEditor(id, this.editorFiles(id)));
    return session;
  }

  /**
   * The editor's file system for one session: file tools read its buffers (unsaved changes included) and write
   * through it, after the path was resolved, contained and approved as for the disk (tool.ts EditorFiles).
   */
  private editorFiles(sessionId: string): EditorFiles {
    const files: EditorFiles = { name: this.clientName };
    if (this.fs.read) {
      files.readText = async (path, signal) => {
        if (!this.client) return null;
        const r = await this.client.request('fs/read_text_file', { sessionId, path }, { cancellationSignal: signal });
        return typeof r.content === 'string' ? r.content : null;
      };
    }
    if (this.fs.write) {
      files.writeText = async (path, content, signal) => {
        if (!this.client) throw new Error('the editor is gone');
        await this.client.request('fs/write_text_file', { sessionId, path, content }, { cancellationSignal: signal });
      };
    }
    return files;
  }

  private track(session: Session, runId: string): void {
    this.runSession.set(runId, session.id);
  }

  /** Stops the session's run, parked or running; the prompt then ends "cancelled". */
  /** The folder's slash commands as the editor's available_commands (sent after the session exists; not awaited). */
  private announceCommands(session: Session): void {
    const commands = this.opts.commands?.(session.cwd) ?? [];
    if (!commands.length) return;
    const availableCommands = commands.map((c) => ({ name: c.name, description: c.description, ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}) }));
    setImmediate(() => void this.update(session, { sessionUpdate: 'available_commands_update', availableCommands }).catch(() => undefined));
  }

  private async stop(session: Session): Promise<void> {
    try {
      const { stopped } = await this.call('stopRun', { conversationId: session.id });
      if (!stopped) {
        // Parked (nobody was there to answer): stopping it ends it and its open requests.
        const active = (await this.call('getMessages', { conversationId: session.id })).activeRun;
        if (active?.status === 'parked') await this.call('stopParkedRun', { conversationId: session.id, runId: active.runId });
      }
    } catch (err) {
      this.opts.log.warn('acp: could not stop the run', { sessionId: session.id, error: errorMessage(err) });
    }
    // Nothing was running (it ended as the cancel arrived): the prompt still ends.
    const runId = session.prompt?.runId;
    const end = runId ? session.ended.get(runId) : undefined;
    if (end) session.prompt?.settle(end);
  }

  /**
   * Connects the editor's MCP servers through the same manager as configured ones (health, restarts, deferral of
   * their tools, stdio servers started through the launcher), sandboxed like project servers (acp-mapping.ts
   * mcpConfigOf), every call asking unless a rule says otherwise (tier `ask`). One the editor passed before (same name and settings) is not started twice; what failed is said in a line.
   */
  private async connectMcp(session: Session, servers: EditorMcpServer[]): Promise<void> {
    for (const server of servers) {
      const key = JSON.stringify(server);
      const known = this.editorServers.get(key);
      if (known) continue;
      const made = mcpConfigOf(server, this.clientName, new Set(this.opts.mcp.names()), session.cwd);
      if ('error' in made) {
        await this.update(session, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `${made.error} It is not connected.\n` } });
        continue;
      }
      this.editorServers.set(key, String(made.config.name));
      try {
        const health = await this.opts.mcp.connect(made.config);
        if (health.status === 'failed') {
          await this.update(session, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `The editor's MCP server "${server.name}" did not start: ${health.lastError ?? 'no reason given'}. Deskhand retries it.\n` } });
        }
      } catch (err) {
        await this.update(session, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `The editor's MCP server "${server.name}" could not be connected: ${errorMessage(err)}\n` } });
      }
    }
  }

  // ── Events → updates ──────────────────────────────────────────────────────────────────────────────────────────────

  private onEvent(e: ContractEvent): void {
    if (e.event === 'approvalsChanged') return void this.reconcile(e.payload.approvals);
    if (e.event === 'todosChanged') {
      const session = this.sessions.get(e.payload.conversationId);
      if (session) void this.update(session, { sessionUpdate: 'plan', entries: planOf(e.payload.todos) });
      return;
    }
    if (e.event !== 'run') return;
    const event = e.payload;
    if (event.type === 'state.changed') return; // the todo list arrives as todosChanged
    if (event.type === 'run.started') {
      const session = this.sessions.get(event.conversationId);
      if (session) this.track(session, event.runId);
      return;
    }
    const sessionId = this.runSession.get(event.runId);
    const session = sessionId ? this.sessions.get(sessionId) : undefined;
    if (!session) return;
    void this.onRunEvent(session, event);
  }

  private async onRunEvent(session: Session, event: RunEvent): Promise<void> {
    switch (event.type) {
      case 'text':
        if (event.delta) await this.update(session, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.delta } });
        return;
      case 'tool.call':
        await this.update(session, {
          sessionUpdate: 'tool_call',
          toolCallId: event.callId,
          title: toolTitle(event.tool, event.summary),
          kind: toolKind(event.tool),
          status: 'pending',
          rawInput: event.args,
          locations: toolLocations(event.args, session.cwd),
        });
        return;
      case 'tool.decision':
        if (event.decision === 'allow') await this.update(session, { sessionUpdate: 'tool_call_update', toolCallId: event.callId, status: 'in_progress' });
        return;
      case 'approval.decided': {
        this.withdraw(session, event.approvalId);
        return;
      }
      case 'approval.requested': {
        // The change asked about stays on the tool call (its diff), whoever answers and wherever.
        const diffs = diffsOf(event.preview, session.cwd);
        if (diffs.length) session.diffs.set(event.callId, diffs);
        if (diffs.length) await this.update(session, { sessionUpdate: 'tool_call_update', toolCallId: event.callId, content: diffs });
        return void this.reconcile((await this.call('listPendingApprovals', {})).approvals);
      }
      case 'input.requested':
        return void this.reconcile((await this.call('listPendingApprovals', {})).approvals);
      case 'tool.output': {
        const o = session.output.get(event.callId) ?? { text: '', timer: null };
        o.text += event.chunk;
        session.output.set(event.callId, o);
        o.timer ??= setTimeout(() => {
          o.timer = null;
          void this.update(session, { sessionUpdate: 'tool_call_update', toolCallId: event.callId, status: 'in_progress', content: textContent(o.text) });
        }, OUTPUT_FLUSH_MS);
        return;
      }
      case 'tool.result': {
        const o = session.output.get(event.callId);
        if (o?.timer) clearTimeout(o.timer);
        session.output.delete(event.callId);
        const diffs = session.diffs.get(event.callId) ?? [];
        session.diffs.delete(event.callId);
        await this.update(session, { sessionUpdate: 'tool_call_update', toolCallId: event.callId, status: resultStatus(event.status), content: [...diffs, ...textContent(event.output)], rawOutput: { status: event.status, durationMs: event.durationMs } });
        return;
      }
      case 'hook.note':
        await this.update(session, hookUpdate(event));
        return;
      case 'run.finished': {
        session.ended.set(event.runId, event);
        if (session.prompt?.runId === event.runId) session.prompt.settle(event);
        return;
      }
      default:
        return;
    }
  }

  /**
   * What the turn changed on disk, whichever tool or command made the change (the change ledger, docs/rewind.md): one
   * completed `edit` tool call whose content is a `diff` (oldText/newText, whole texts) per changed text file and a
   * line for anything else. ACP has no rewind request; the app and `deskhand rewind` take it back.
   */
  private async sendTurnChanges(session: Session, runId: string): Promise<void> {
    try {
      const turn = (await this.call('listChanges', { conversationId: session.id })).turns.find((t) => t.runId === runId);
      if (!turn) return;
      const content: AcpToolContent[] = [];
      const others: string[] = [];
      for (const c of turn.changes.slice(0, TURN_DIFFS)) {
        const d = c.type === 'file' ? await this.call('getChangeDiff', { conversationId: session.id, messageId: turn.messageId, path: c.path, texts: true }) : null;
        if (d && typeof d.newText === 'string') content.push({ type: 'diff', path: c.path, oldText: c.kind === 'created' ? null : d.oldText ?? null, newText: d.newText });
        else others.push(`${c.kind} ${c.path}`);
      }
      const more = turn.total - Math.min(turn.total, TURN_DIFFS);
      if (more > 0) others.push(`… and ${more} more (deskhand changes ${session.id})`);
      if (others.length) content.push(...textContent(others.join('\n')));
      const title = `${turn.total} file${turn.total === 1 ? '' : 's'} changed (undo: deskhand rewind ${session.id} --to ${turn.messageId})`;
      await this.update(session, { sessionUpdate: 'tool_call', toolCallId: `changes:${runId}`, title, kind: 'edit', status: 'completed', content, locations: turn.changes.slice(0, TURN_DIFFS).map((c) => ({ path: c.path })) });
    } catch (err) {
      this.opts.log.warn('acp: could not list the turn\'s changes', { sessionId: session.id, error: errorMessage(err) });
    }
  }

  private async update(session: Session, update: AcpUpdate): Promise<void> {
    if (!this.client) return;
    try {
      await this.client.notify('session/update', { sessionId: session.id, update } as acp.SessionNotification);
    } catch (err) {
      this.opts.log.warn('acp: could not send an update', { sessionId: session.id, error: errorMessage(err) });
    }
  }

  // ── Approvals → session/request_permission ────────────────────────────────────────────────────────────────────────

  /** Puts every new approval of an open session to the editor, withdraws what was answered elsewhere, tells input requests once. */
  private reconcile(approvals: PendingApproval[]): Promise<void> {
    this.reconciling = this.reconciling.then(() => {
      const pending = new Set(approvals.map((a) => a.approvalId));
      for (const session of this.sessions.values()) {
        for (const id of [...session.asking.keys()]) if (!pending.has(id)) this.withdraw(session, id);
      }
      for (const approval of approvals) {
        const session = this.sessions.get(approval.conversationId);
        if (!session || approval.runStatus === 'other') continue;
        if (approval.kind === 'approval') {
          if (!session.asking.has(approval.approvalId)) void this.ask(session, approval);
        } else if (!session.told.has(approval.approvalId)) {
          session.told.add(approval.approvalId);
          void this.update(session, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: inputLine(approval) } });
        }
      }
    });
    return this.reconciling;
  }

  private withdraw(session: Session, approvalId: string): void {
    const ask = session.asking.get(approvalId);
    if (!ask) return;
    session.asking.delete(approvalId);
    ask.abort();
  }

  private async ask(session: Session, approval: PendingApproval): Promise<void> {
    if (!this.client) return;
    const controller = new AbortController();
    session.asking.set(approval.approvalId, controller);
    const diffs = diffsOf(approval.preview, session.cwd);
    const why = [approval.description, approval.reasons.length ? `Why Deskhand asks: ${approval.reasons.join('; ')}` : '', approval.subagent ? `Asked by the subagent "${approval.subagent.description}".` : '']
      .filter(Boolean)
      .join('\n');
    let response: acp.RequestPermissionResponse;
    try {
      response = await this.client.request(
        'session/request_permission',
        {
          sessionId: session.id,
          toolCall: {
            toolCallId: approval.callId,
            title: toolTitle(approval.tool, null, approval.title),
            kind: toolKind(approval.tool),
            status: 'pending',
            rawInput: approval.args,
            content: [...textContent(why), ...(diffs.length ? diffs : textContent(approval.preview ?? ''))],
            locations: toolLocations(approval.args, session.cwd),
          },
          options: permissionOptions(approval),
        },
        { cancellationSignal: controller.signal },
      );
    } catch (err) {
      if (!controller.signal.aborted) this.opts.log.warn('acp: the editor did not answer a permission request', { approvalId: approval.approvalId, error: errorMessage(err) });
      session.asking.delete(approval.approvalId);
      return;
    }
    const wasAsking = session.asking.get(approval.approvalId) === controller;
    session.asking.delete(approval.approvalId);
    // Cancelled (the prompt was cancelled, or answered in the app meanwhile): the request stays where it is.
    if (response.outcome.outcome !== 'selected' || !wasAsking) return;
    const decision = decisionOf(response.outcome.optionId, approval);
    if (!decision) {
      this.opts.log.warn('acp: the editor chose an option this agent never offered', { optionId: response.outcome.optionId });
      return;
    }
    const reason = decision === 'deny' ? denialReason(response.outcome._meta) : undefined;
    try {
      const scope = decision === 'always' ? alwaysScopeOf(response.outcome.optionId) : undefined;
      await this.call('decideApproval', { approvalId: approval.approvalId, decision, ...(scope ? { scope } : {}), ...(reason ? { reason } : {}) });
    } catch (err) {
      // Answered in the app or the CLI first: theirs stands.
      this.opts.log.warn('acp: could not record the editor\'s answer', { approvalId: approval.approvalId, error: errorMessage(err) });
    }
  }

  /**
   * A contract call through the same path as the other transports (createDispatch: parsed against the contract, so
   * what the editor sent is checked like any UI request); failures as the protocol's errors (a conversation that does
   * not exist is the session-not-found error).
   */
  private async call<M extends MethodName>(method: M, params: MethodParams<M>, sessionId?: string): Promise<MethodResult<M>> {
    const json = JSON.stringify(params);
    const sdk = this.sdk!;
    const reply = await this.dispatch(method, JSON.parse(json), { source: `acp ${this.clientName}`, bytes: Buffer.byteLength(json) });
    if (reply.ok) return reply.result as MethodResult<M>;
    const { code, message } = reply.error;
    if (code === 'not_found' && sessionId) throw sdk.RequestError.sessionNotFound(sessionId);
    if (code === 'not_found') throw sdk.RequestError.resourceNotFound();
    if (code === 'invalid_params' || code === 'usage' || code === 'too_large') throw sdk.RequestError.invalidParams(undefined, message);
    if (code === 'conflict') throw sdk.RequestError.invalidRequest(undefined, message);
    throw sdk.RequestError.internalError(undefined, message);
  }
}

/** The one line an input request ACP has no shape for gets, with where to answer it. */
export function inputLine(approval: Pick<PendingApproval, 'approvalId' | 'kind' | 'description' | 'title'>): string {
  const what = approval.kind === 'question' ? 'a question' : approval.kind === 'file_pick' ? 'a file pick' : approval.kind === 'secret' ? 'a secret' : `an answer (${approval.kind})`;
  const how = approval.kind === 'secret' ? 'in the Deskhand app (a hidden field; the value never passes through the editor)' : `in the Deskhand app or with \`deskhand runs answer ${approval.approvalId} --value JSON\``;
  return `\n\nDeskhand is waiting for ${what} the editor cannot show (${approval.description || approval.title}). Answer it ${how}, or deny it with \`deskhand runs deny ${approval.approvalId}\`; the run goes on when it is answered.\n`;
}
