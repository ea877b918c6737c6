/**
 * Controlling live children: what a parent (its tools, a workflow, the tower), the person (the UI's tree, `deskhand
 * subagents`) or the task table does with children that were made — wait for them, steer, pause and resume them,
 * cancel them, end the ones parked with a stopped run — and the blackboard a tree shares. Making and running children
 * (create, limits, spend, end, crash recovery) is subagent-service.ts, which holds this and hands it what it needs
 * (ChildCore); SubagentService's methods of the same names call here.
 */
import { DeskhandError } from '../../../shared/errors';
import { WaitingForPeople } from '../../../shared/waiting';
import { SUBAGENT_TERMINAL, type BlackboardPost, type SteeringSender, type subagentsModule, type SubagentRow, type SubagentStatus } from '../store/modules/subagents';
import { PauseGate } from './pause-gate';
import type { SubagentRunner, WaitResult } from './subagent-protocol';

const TERMINAL = new Set<string>(SUBAGENT_TERMINAL);

/** A child running in this process. */
export interface Live {
  controller: AbortController;
  /** Why it was stopped: a limit, the parent, cancel. */
  stop?: { status: SubagentStatus; reason: string };
}

/** What controlling children takes from the service that makes and runs them. */
export interface ChildCore {
  rows: ReturnType<typeof subagentsModule.queries>;
  /** The children running in this process. */
  live: ReadonlyMap<string, Live>;
  need(): SubagentRunner;
  attendedRun(runId: string): boolean;
  onChange(listener: (row: SubagentRow) => void): () => void;
  changed(id: string): void;
  recoverOrphans(parentConversationId: string | null): string[];
  resumeParked(id: string, attended: boolean): Promise<SubagentRow>;
  waitingRequests(row: SubagentRow): string[];
  markReported(rows: readonly SubagentRow[]): void;
  end(id: string, status: SubagentStatus, patch: { result?: string; error?: string }, notify?: boolean): void;
}

export class ChildControl {
  private readonly rows: ChildCore['rows'];
  private readonly live: ChildCore['live'];
  /** Children paused by steer_subagent (in this process): their next model call waits until they are resumed. */
  private readonly paused = new PauseGate();

  constructor(private readonly core: ChildCore) {
    this.rows = core.rows;
    this.live = core.live;
  }

  /**
   * Waits until any (or all) of the children end; returns each ended child's result once (marks it reported).
   * `parks` (wait_subagents): when every child still waited for is parked on a person, the call parks on their
   * requests (WaitingForPeople) instead of waiting; parked children whose requests were answered are resumed here.
   */
  async wait(parentConversationId: string, ids: readonly string[] | null, mode: 'any' | 'all', timeoutMs: number, signal: AbortSignal, opts: { parks?: boolean; runId?: string } = {}): Promise<WaitResult> {
    // Children a dead process left "running" are ended first, so the wait returns them instead of waiting forever.
    this.core.recoverOrphans(parentConversationId);
    const mine = this.rows.forParent(parentConversationId);
    for (const id of ids ?? []) if (!mine.some((r) => r.id === id)) throw new DeskhandError('not_found', `No subagent ${id} of this conversation; list_subagents shows them.`);
    const targets = ids ? [...new Set(ids)] : mine.filter((r) => r.reported === 0).map((r) => r.id);
    const snapshot = () => targets.map((id) => this.rows.get(id)!);
    const ready = () => {
      const rows = snapshot();
      const ended = rows.filter((r) => TERMINAL.has(r.status));
      return mode === 'all' ? ended.length === rows.length : ended.length > 0 || rows.length === 0;
    };
    // A parked child whose requests were answered (the call runs again after its run resumed) continues here.
    if (opts.parks) for (const row of snapshot()) if (row.status === 'parked') void this.core.resumeParked(row.id, opts.runId ? this.core.attendedRun(opts.runId) : true).catch(() => undefined);
    // Every child still waited for is parked on a person, none live here: nothing will end while this call waits.
    const blocked = (): string[] => {
      if (!opts.parks) return [];
      const open = snapshot().filter((r) => !TERMINAL.has(r.status));
      if (open.length === 0 || open.some((r) => r.status !== 'parked' || this.live.has(r.id))) return [];
      const requests = open.flatMap((r) => this.core.waitingRequests(r));
      return open.every((r) => this.core.waitingRequests(r).length > 0) ? requests : [];
    };
    let timedOut = false;
    if (!ready() && blocked().length === 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          clearInterval(poll);
          off();
          signal.removeEventListener('abort', done);
          resolve();
        };
        const check = () => {
          this.core.recoverOrphans(parentConversationId);
          if (ready() || blocked().length > 0) done();
        };
        const timer = setTimeout(() => {
          timedOut = true;
          done();
        }, timeoutMs);
        const off = this.core.onChange((r) => targets.includes(r.id) && check());
        // Children another process runs are noticed by polling the store.
        const poll = setInterval(check, 500);
        signal.addEventListener('abort', done, { once: true });
      });
    }
    if (signal.aborted) throw new DeskhandError('aborted', 'The wait was stopped.');
    const waiting = ready() ? [] : blocked();
    if (waiting.length) throw new WaitingForPeople(waiting, `the subagents waited for are parked on ${waiting.join(', ')}`);
    const rows = snapshot();
    const finished = rows.filter((r) => TERMINAL.has(r.status));
    this.core.markReported(finished);
    return { finished: finished.map((r) => this.rows.get(r.id)!), running: rows.filter((r) => !TERMINAL.has(r.status)), timedOut };
  }

  /** Queues a message for a child's next model call; `from` says who sent it (the child is told). */
  steer(parentConversationId: string, id: string, message: string, from: SteeringSender = 'parent'): SubagentRow {
    const row = this.rows.get(id);
    if (!row || row.parent_conversation_id !== parentConversationId) throw new DeskhandError('not_found', `No subagent ${id} of this conversation; list_subagents shows them.`);
    if (TERMINAL.has(row.status)) throw new DeskhandError('conflict', `Subagent ${id} already ${row.status}; start it again with spawn_subagent {resume: "${id}"}.`);
    this.rows.steer(id, message, from);
    return row;
  }

  /**
   * Pauses a live child: it finishes the model call or tool calls in flight, then makes no model request until it is
   * resumed (or stopped: cancel, its limit, its parent). Its minutes limit keeps counting.
   */
  pause(parentConversationId: string, id: string): SubagentRow {
    const row = this.ownChild(parentConversationId, id);
    this.paused.hold(id);
    this.core.changed(id);
    return row;
  }

  /** Resumes a paused child: its next model call goes ahead. */
  resume(parentConversationId: string, id: string): SubagentRow {
    const row = this.ownChild(parentConversationId, id);
    if (!this.paused.has(id)) throw new DeskhandError('conflict', `Subagent ${id} is not paused.`);
    this.unpause(id);
    return row;
  }

  isPaused(id: string): boolean {
    return this.paused.has(id);
  }

  /** Before each model call of a child: waits while it is paused; a stop (its signal) ends the wait at once. */
  async untilResumed(conversationId: string, signal?: AbortSignal): Promise<void> {
    const row = this.rows.byConversation(conversationId);
    if (row) await this.paused.wait(row.id, signal);
  }

  /** A paused child goes on (its end, or resume). */
  unpause(id: string): void {
    if (this.paused.release(id)) this.core.changed(id);
  }

  private ownChild(parentConversationId: string, id: string): SubagentRow {
    const row = this.rows.get(id);
    if (!row || row.parent_conversation_id !== parentConversationId) throw new DeskhandError('not_found', `No subagent ${id} of this conversation; list_subagents shows them.`);
    if (TERMINAL.has(row.status)) throw new DeskhandError('conflict', `Subagent ${id} already ${row.status}; start it again with spawn_subagent {resume: "${id}"}.`);
    return row;
  }

  /** Cancels a child (and its run); from the parent's tools, the task table, the CLI or the UI. */
  async cancel(id: string, reason = 'cancelled by its parent', parentConversationId: string | null = null): Promise<SubagentRow> {
    const row = this.rows.get(id);
    if (!row || (parentConversationId !== null && row.parent_conversation_id !== parentConversationId)) throw new DeskhandError('not_found', `No subagent ${id}.`);
    if (TERMINAL.has(row.status)) return row;
    const live = this.live.get(id);
    if (live) {
      live.stop = { status: 'cancelled', reason };
      live.controller.abort();
    }
    this.core.end(id, 'cancelled', { error: reason }, false);
    return this.rows.get(id)!;
  }

  /**
   * A parked parent run ended without being resumed (stopped, replaced): the foreground children parked with its calls
   * end as cancelled with the reason, and their parked runs stop (and so their own parked children). Returns them.
   */
  endParked(parentRunId: string, reason: string): SubagentRow[] {
    const ended: SubagentRow[] = [];
    for (const row of this.rows.withStatus(['parked'])) {
      if (row.parent_run_id !== parentRunId || row.background === 1 || this.live.has(row.id)) continue;
      this.core.end(row.id, 'cancelled', { error: reason }, false);
      ended.push(this.rows.get(row.id)!);
    }
    return ended;
  }

  post(ctx: { runId: string; conversationId: string }, topic: string, body: string): { id: number; untrusted: boolean } {
    const runner = this.core.need();
    const me = this.rows.byConversation(ctx.conversationId);
    const board = me?.root_conversation_id ?? ctx.conversationId;
    const untrusted = runner.parent(ctx.runId)?.tainted ?? true;
    return { id: this.rows.post(board, me ? me.id : 'parent', topic, body, untrusted), untrusted };
  }

  read(conversationId: string, opts: { topic?: string; afterId?: number; limit: number }): BlackboardPost[] {
    const me = this.rows.byConversation(conversationId);
    return this.rows.read(me?.root_conversation_id ?? conversationId, opts);
  }
}
