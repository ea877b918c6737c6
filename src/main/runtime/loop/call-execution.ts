/**
 * Running and recording a call (the acting half of the call pipeline, call-pipeline.ts): a decided call runs with a
 * signal and a timeout (paused while it asks a person), its paths re-checked and its secret arguments substituted;
 * its output is redacted, offloaded or cut, wrapped when untrusted, and recorded with its `tool.result` event.
 * Opening a call's request is open-request.ts.
 */
import { WaitingForPeople } from '../../../shared/waiting';
import { chatModule } from '../../services/store/modules/chat';
import { DeskhandError, ToolError, errorMessage } from '../../../shared/errors';
import type { RunRow, ToolCallRow } from '../../services/store/store';
import { parsePathChecks, sanitizeOutput, untrustedReadSource } from '../decision/call-security';
import { credentialFileValues } from '../decision/credential-files';
import type { PersistentConversationState } from '../context/conversation-state';
import type { RunOptions, RuntimeCore } from '../core';
import { recheckPaths, type PathCheck } from '../decision/path-guard';
import type { StreamRedactor } from '../context/redaction';
import { checkPlaceholders, substituteSecrets } from '../decision/secret-args';
import type { Effects, ToolContext, ToolDefinition } from '../tool';
import { wrapUntrusted } from '../context/untrusted';
import { NO_REDACTION } from './model-step';
import { offloadResult } from './offload';
import { contextFigures } from '../context/compaction';
import { fireHooks, postToolText, toolTarget } from './hook-calls';
import { askDuringCall, type Pausable } from './call-requests';
import { ledgerSink } from './usage-meter';
import { openBackgroundRequest, type DecisionFields } from './open-request';

const DEFAULT_TOOL_TIMEOUT_MS = 3 * 60_000;
/** What the model receives of one tool result; tools page larger outputs themselves. */
const MAX_RESULT_CHARS = 200_000;

/** A call parsed and inspected once; kept while its run lives in this process (approval waits included). */
export interface Prepared {
  runId: string;
  tool: ToolDefinition;
  args: unknown;
  effects: Effects;
}

export interface Runnable extends Prepared {
  row: ToolCallRow;
  decided?: DecisionFields;
}

/**
 * A call that only reads local files, allowed without asking: its rows may be committed without an fsync
 * (Store.withoutFsync). Losing them to a power loss loses nothing that happened outside Deskhand, and reading again
 * is harmless. Anything else (writes, processes, network, URLs, apps, screens, secrets, a person's answer) is not.
 */
export function isQuiet(item: Runnable): boolean {
  const e = item.effects;
  return (
    item.decided?.risk === 'read-only' &&
    item.decided.decision === 'allow' &&
    item.row.status === 'pending' &&
    !e.network &&
    !e.egress &&
    !e.processes &&
    !e.urls?.length &&
    !e.hosts?.length &&
    !e.apps?.length &&
    !e.screens?.length &&
    !e.secretArgs?.length &&
    !e.paths?.write?.length
  );
}

/** A call that may change files under the writable roots: it writes, starts processes, or comes from outside. */
export function mayChangeFiles(item: Runnable): boolean {
  return !!item.effects.paths?.write?.length || !!item.effects.processes || (item.tool.kind ?? 'builtin') !== 'builtin';
}

/** The change ledger records what it can; a failure of its own never fails the call or the run. */
export async function swallow(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch {
    // the step's changes go unrecorded; the next scan records them as found between steps
  }
}

/** What the pipeline keeps per live run that running a call updates: its prepared calls and the secrets it holds. */
export interface KeptCalls {
  prepared: Map<string, Prepared>;
  heldByRun: Map<string, Set<string>>;
}

export class CallRunner {
  constructor(
    private readonly core: RuntimeCore,
    private readonly kept: KeptCalls,
  ) {}

  /** Starts the file watchers (the change ledger) for a step's calls; returns what ends them. */
  async watchFiles(run: RunRow, state: PersistentConversationState): Promise<(() => Promise<void>)[]> {
    const out: (() => Promise<void>)[] = [];
    for (const watch of this.core.fileWatchers) {
      await swallow(async () => {
        const after = await watch({ conversationId: run.conversation_id, runId: run.id, step: run.step, roots: state.workspaceRoots });
        if (after) out.push(after);
      });
    }
    return out;
  }

  /** Runs one call's acting half. Returns true when its output tainted the run, or what it waits for (left open). */
  async execute(
    run: RunRow,
    item: Runnable,
    state: PersistentConversationState,
    options: RunOptions,
    tainted: boolean,
    held: ReadonlySet<string>,
    quietResults: (() => void)[],
  ): Promise<boolean | WaitingForPeople> {
    const { row, tool, args, effects, decided } = item;
    const { redactor } = this.core;
    // No "running" write: recovery treats a call without a result as interrupted either way.
    const started = Date.now();
    // After a wait for a person, the card's duration counts from here, not from when the call was proposed.
    if (row.status === 'approved') this.core.store.module(chatModule).noteStarted(row.id, started);
    const controller = new AbortController();
    const timeoutMs = tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
    const timer = pausableTimer(() => controller.abort(new DeskhandError('aborted', `timed out after ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => controller.abort(new DeskhandError('aborted', 'stopped by the person'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const checks = parsePathChecks(decided ? decided.paths : row.paths);
    // Live output is held back just enough that a secret split across chunks, or across stdout and stderr, is
    // redacted whole; what is held is released when the call ends.
    const live = redactor.stream((stream, chunk) =>
      this.core.emit(options, { type: 'tool.output', runId: run.id, callId: row.call_id, stream: stream === 'stderr' ? 'stderr' : 'stdout', chunk: sanitizeOutput(chunk, NO_REDACTION) }),
    );
    try {
      // A call that acts on the world (writes, runs processes, reaches the network, asks a person…) finds its own
      // record and everything before it on disk, even if earlier steps that only read skipped the fsync.
      if (!isQuiet(item)) this.core.store.sync();
      // The paths it was decided on must still lead where they led (no swapping a link in between).
      const runLater = this.core.limits.runLater?.() ?? [];
      const moved = recheckPaths(checks, { cwd: state.cwd, workspaceRoots: [...state.workspaceRoots, ...state.readableRoots], dataDir: this.core.limits.dataDir, ...(runLater.length ? { runLater } : {}) });
      if (moved) throw new ToolError(moved, 'conflict');
      // A file this call reaches whose content holds credentials teaches the redactor its values first, so output
      // that carries them bare (cut, rev, awk) is redacted exactly, live output included (credential-files.ts).
      for (const c of checks) if (c.exists && !c.error) for (const v of credentialFileValues(c.resolved)) redactor.addSecret(v.name, v.value);
      const runArgs = await this.withSecrets(tool, args, effects, held);
      const answer = this.answerOf(row);
      const decision = { byPerson: row.status === 'approved', reasons: parseReasons(decided ? decided.reasons : row.reasons) };
      const asked = new Map<string, number>();
      const ask: ToolContext['ask'] = (spec) => askDuringCall(this.core, run, row, spec, options, controller.signal, asked, timer);
      const result = await tool.execute(runArgs as never, this.toolContext(run, row, state, options, controller.signal, live, checks, answer, decision, ask));
      live.flush();
      let output = sanitizeOutput(result.output, redactor);
      const untrusted = result.untrustedSource ?? untrustedReadSource(checks);
      const { offloadChars, dataDir } = this.core.limits;
      // A large result is stored in full; the model reads a head, a tail and the id (retrieve_tool_result pages it).
      if (output.length > offloadChars && tool.offload !== false) {
        output = offloadResult(dataDir, run.conversation_id, tool.name, output, offloadChars, untrusted ?? null);
        // The notice names retrieve_tool_result: it is loaded from the next step on (it may be deferred).
        if (this.core.registry.lookup('retrieve_tool_result')) state.revealTools(['retrieve_tool_result']);
      }
      if (output.length > MAX_RESULT_CHARS) {
        output = `${output.slice(0, MAX_RESULT_CHARS)}\n[… ${output.length - MAX_RESULT_CHARS} more characters cut; narrow the request to see them]`;
      }
      if (untrusted) output = wrapUntrusted(untrusted, output);
      // PostToolUse hooks: what they say reaches the model after the output (a project hook's as untrusted text).
      const conv = this.core.hooks ? this.core.store.getConversation(run.conversation_id) : undefined;
      const post = conv ? postToolText(await fireHooks(this.core, 'PostToolUse', run, conv, { tool_name: tool.name, tool_input: args, tool_response: output, tool_use_id: row.call_id }, toolTarget(tool), options.signal)) : null;
      if (post) output = `${output}\n\n${sanitizeOutput(post.text, redactor)}`;
      const taintedBy = untrusted ?? post?.untrusted;
      const becameTainted = !!taintedBy && !tainted;
      if (taintedBy) this.taint(run, taintedBy);
      await this.holdSecret(tool, args);
      const holds = tool.holdsSecret?.(args as never);
      if (holds) this.kept.heldByRun.get(run.id)?.add(holds);
      if (isQuiet(item)) {
        const result = this.result(run, row, output, 'done', options, Date.now() - started, decided);
        result.show();
        quietResults.push(result.write);
      } else this.complete(run, row, output, 'done', options, Date.now() - started, decided);
      return becameTainted;
    } catch (err) {
      live.flush();
      if (WaitingForPeople.isInstance(err) && !controller.signal.aborted && err.requestIds.length > 0) return err;
      const message = controller.signal.aborted ? `${tool.name} was stopped: ${errorMessage(controller.signal.reason)}.` : sanitizeOutput(errorMessage(err), redactor);
      this.complete(run, row, message, controller.signal.aborted ? 'interrupted' : 'error', options, Date.now() - started, decided);
      return false;
    } finally {
      timer.clear();
      options.signal?.removeEventListener('abort', onAbort);
      this.kept.prepared.delete(row.id);
    }
  }

  /** The stored answer of the call's input request (what its kind accepted), if it had one. */
  private answerOf(row: ToolCallRow): unknown {
    if (row.status !== 'approved') return undefined;
    const request = this.core.store.latestApprovalForCall(row.id);
    if (!request || request.kind === 'approval' || request.answer === null) return undefined;
    return JSON.parse(request.answer) as unknown;
  }

  /**
   * Marks the run and its conversation as having read untrusted content (taint survives into later runs), and keeps
   * which one source it all came from while there is only one (`taint_only`; a second source, or a run tainted
   * before the conversation knew its source, makes it null for good).
   */
  private taint(run: RunRow, source: string): void {
    const { store } = this.core;
    const wasRun = store.getRun(run.id)?.tainted === 1;
    if (!wasRun) store.updateRun(run.id, { tainted: 1 });
    const conv = store.getConversation(run.conversation_id);
    if (!conv) return;
    if (conv.tainted !== 1) store.updateConversation(conv.id, { tainted: 1, taint_only: wasRun ? null : source });
    else if (conv.taint_only !== null && conv.taint_only !== source) store.updateConversation(conv.id, { taint_only: null });
  }

  /** The arguments a tool runs with: its declared secret arguments with placeholders replaced by the values. */
  private async withSecrets(tool: ToolDefinition, args: unknown, effects: Effects, held: ReadonlySet<string>): Promise<unknown> {
    if (!effects.secretArgs?.length) return args;
    const declared = { name: tool.name, secretArgs: effects.secretArgs, secretQuoting: effects.secretQuoting };
    const verdict = checkPlaceholders(declared, args);
    if (verdict.refused) throw new ToolError(verdict.refused);
    if (verdict.used.length === 0) return args;
    const values = new Map<string, string>();
    for (const name of verdict.used) {
      if (!held.has(name)) throw new ToolError(`[redacted:${name}] is not a secret this run holds; load it with use_saved_secret first.`);
      const value = this.core.vault ? await this.core.vault.get(name) : null;
      if (value === null) throw new ToolError(`The saved secret ${name} is no longer in the keyring (or the keyring is locked). Ask the person to save it again.`);
      this.core.redactor.addSecret(name, value);
      values.set(name, value);
    }
    return substituteSecrets(args, declared, values);
  }

  /** After ask_user_secret / use_saved_secret: the redactor holds the value even when another process saved it. */
  private async holdSecret(tool: ToolDefinition, args: unknown): Promise<void> {
    const name = tool.holdsSecret?.(args as never);
    if (!name || !this.core.vault) return;
    try {
      this.core.redactor.addSecret(name, await this.core.vault.get(name));
    } catch {
      // the tool itself reported whether the secret is there
    }
  }

  /** Records the call's result, then shows it. */
  complete(
    run: RunRow,
    row: ToolCallRow,
    output: string,
    status: 'done' | 'error' | 'denied' | 'interrupted',
    options: Pick<RunOptions, 'onEvent'> | undefined,
    durationMs = 0,
    decided?: DecisionFields,
  ): void {
    const result = this.result(run, row, output, status, options, durationMs, decided);
    result.write();
    result.show();
  }

  /** A call's result: the write that records it and its `tool.result` event, for the caller to order. */
  result(
    run: RunRow,
    row: ToolCallRow,
    output: string,
    status: 'done' | 'error' | 'denied' | 'interrupted',
    options: Pick<RunOptions, 'onEvent'> | undefined,
    durationMs: number,
    decided?: DecisionFields,
  ): { write: () => void; show: () => void } {
    const stored = status === 'denied' ? 'done' : status;
    const finishedAt = Date.now();
    return {
      write: () => this.core.store.updateToolCall(row.id, { ...decided, status: stored, output, is_error: status === 'done' ? 0 : 1, finished_at: finishedAt }),
      show: () => {
        const summary = status === 'done' ? this.core.registry.summarize(row.tool, safeJson(row.args), output) : null;
        this.core.emit(options, { type: 'tool.result', runId: run.id, callId: row.call_id, tool: row.tool, status: status === 'done' ? 'ok' : status, output, durationMs, ...(summary ? { summary } : {}) });
      },
    };
  }

  toolContext(
    run: RunRow,
    row: ToolCallRow,
    state: PersistentConversationState,
    options: RunOptions,
    signal: AbortSignal,
    live?: StreamRedactor,
    checks: readonly PathCheck[] = [],
    answer?: unknown,
    decision?: { byPerson: boolean; reasons: string[] },
    ask?: ToolContext['ask'],
  ): ToolContext {
    const { store, redactor, limits } = this.core;
    return {
      runId: run.id,
      conversationId: run.conversation_id,
      callId: row.call_id,
      signal,
      state,
      progress: live
        ? (stream, chunk) => live.push(stream, chunk)
        : (stream, chunk) => this.core.emit(options, { type: 'tool.output', runId: run.id, callId: row.call_id, stream, chunk: sanitizeOutput(chunk, redactor) }),
      redact: (text) => redactor.redact(text),
      unchangedByRedaction: redactor.unchangedFiles,
      publish: (update) => this.core.emit(options, { type: 'state.changed', conversationId: run.conversation_id, ...update }),
      meter: (cause, usage) => ledgerSink(store, { cause, conversationId: run.conversation_id, runId: run.id, toolCallId: row.id })(usage),
      checkedPaths: new Map(checks.filter((c) => !c.raw && !c.error).map((c) => [c.path, c])),
      writePaths: checks.filter((c) => c.access === 'write' && !c.error).map((c) => c.resolved),
      get sandbox() {
        return store.getConversation(run.conversation_id)?.sandbox;
      },
      get tainted() {
        return store.getRun(run.id)?.tainted === 1 || store.getConversation(run.conversation_id)?.tainted === 1;
      },
      ...(answer !== undefined ? { answer } : {}),
      ...(decision ? { approvedByPerson: decision.byPerson, decisionReasons: decision.reasons } : {}),
      openBackgroundRequest: (spec) => openBackgroundRequest(this.core, run, row, spec, options),
      ...(ask ? { ask } : {}),
      ...(this.core.editors.has(run.conversation_id) ? { editor: this.core.editors.get(run.conversation_id)! } : {}),
      usage: {
        inputTokens: run.input_tokens,
        outputTokens: run.output_tokens,
        contextWindow: limits.contextWindow,
        get messages() {
          return store.countMessages(run.conversation_id);
        },
        figures: () => contextFigures(this.core, run.conversation_id),
        instructions: () => this.core.instructions.report(state.cwd, state.workspaceRoots),
      },
    };
  }
}

/** A timeout that stops counting while the call waits for a person (call-requests.ts), and counts on after. */
function pausableTimer(fire: () => void, ms: number): Pausable & { clear(): void } {
  let left = ms;
  let started = Date.now();
  let handle: NodeJS.Timeout | null = setTimeout(fire, ms);
  let paused = 0;
  let cleared = false;
  return {
    pause() {
      if (cleared || paused++ > 0 || !handle) return;
      clearTimeout(handle);
      handle = null;
      left -= Date.now() - started;
    },
    resume() {
      if (cleared || paused === 0 || --paused > 0) return;
      started = Date.now();
      handle = setTimeout(fire, Math.max(0, left));
    },
    clear() {
      if (handle) clearTimeout(handle);
      handle = null;
      cleared = true;
    },
  };
}

function parseReasons(text: string | null | undefined): string[] {
  if (!text) return [];
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? parsed.filter((r): r is string => typeof r === 'string') : [];
  } catch {
    return [];
  }
}

export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
