/**
 * Workflows: a script orchestrating subagents in phases, run in the background. A run is a row (store module
 * `workflows`) and a task of kind `workflow` in the one task table: listed, cancelled and — when it ends — delivered
 * to its conversation as a wake-up like every background task. The script runs in the isolated script host; each
 * API call it makes goes through the run's journal here and is answered by the script API (script-api.ts), children
 * through the subagent service (their parent is the run that called `workflow`); workflow-run.ts holds the run's
 * limits, its live state and its description in words. Limits (minutes, tokens, cost summed over every child, number of agents) are checked as the children
 * spend; a throw, a spent budget or a cancel stops the script and every child.
 *
 * Parking: when nobody can answer the run that started a workflow (`deskhand run --json`, a scheduled fire), a child
 * that needs a person parks instead of waiting, and once the script can go no further (every call it waits on waits
 * for parked children, nothing else runs) the run parks: its script host stops, its row says `parked`, its task
 * survives the process. Every call the script made is in its journal with the answer it got; an answer to a parked
 * child's request (from any process) resumes the run there: the script runs again from the top, each call it makes
 * is checked against the journal (same method and arguments, in the same order) and answered from it, and the calls
 * that were still open rejoin their children (the answered one continues). A script that asks for anything else
 * than its journal recorded fails instead of mixing results.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { DeskhandError } from '../../../shared/errors';
import type { Store } from '../store/store';
import { WORKFLOW_TERMINAL, workflowsModule, type WorkflowJournalEntry, type WorkflowPhase, type WorkflowRow, type WorkflowStatus } from '../store/modules/workflows';
import type { SubagentRow } from '../store/modules/subagents';
import type { TaskRow } from '../store/modules/tasks';
import type { ExternalTasks } from '../tasks/external-tasks';
import type { StartQuestionInput } from '../tasks/question-tasks';
import type { SubagentService } from '../subagents/subagent-service';
import { CATALOG, catalogEntry } from './catalog';
import { ScriptApi } from './script-api';
import { runScript, type ScriptCall } from './script-host';
import {
  DEFAULT_WORKFLOW_LIMITS,
  ParkedCall,
  SUB_TERMINAL,
  describeRun,
  diverged,
  never,
  type Live,
  type StartWorkflowInput,
  type WorkflowCallContext,
  type WorkflowLimits,
} from './workflow-run';

export { DEFAULT_WORKFLOW_LIMITS, describeRun, type StartWorkflowInput, type WorkflowCallContext, type WorkflowLimits } from './workflow-run';

export interface WorkflowServiceOptions {
  store: Store;
  subagents: Pick<SubagentService, 'spawn' | 'map' | 'steer' | 'cancel' | 'post' | 'read' | 'list' | 'get' | 'onChange' | 'attendedRun' | 'waitingRequests'>;
  tasks: Pick<ExternalTasks, 'register' | 'start' | 'finish' | 'update' | 'adopt'>;
  /** Background questions (`ask`): the task service's question tasks. */
  questions?: { startQuestion(input: StartQuestionInput): { task: TaskRow } };
  dataDir: string;
  /** Ceilings for every run (a call may ask for less). */
  limits?: Partial<WorkflowLimits>;
}

export class WorkflowService {
  private readonly rows: ReturnType<typeof workflowsModule.queries>;
  private readonly live = new Map<string, Live>();
  private readonly ceilings: WorkflowLimits;
  private readonly listeners = new Set<(row: WorkflowRow) => void>();
  private readonly api: ScriptApi;

  constructor(private readonly opts: WorkflowServiceOptions) {
    this.rows = opts.store.module(workflowsModule);
    this.api = new ScriptApi(opts, this.rows, (id) => this.publish(id));
    this.ceilings = { ...DEFAULT_WORKFLOW_LIMITS, ...opts.limits };
    opts.tasks.register('workflow', {
      cancel: async (task, reason) => {
        const row = this.rows.byTask(task.id);
        if (row) await this.cancel(row.id, reason);
        else opts.tasks.finish(task.id, 'cancelled', reason, false);
      },
      describe: (task) => {
        const row = this.rows.byTask(task.id);
        return row ? describeRun(row) : (task.summary ?? '');
      },
      // A parked run waits for a person, not a process: any process resumes it (start-up recovery leaves it).
      survives: (task) => this.rows.byTask(task.id)?.status === 'parked',
    });
    opts.subagents.onChange((child) => this.onChild(child));
    // Runs a process that is gone left behind are interrupted (their script host went with it).
    for (const row of this.rows.running()) {
      if (row.owner_pid !== process.pid && !alive(row.owner_pid)) {
        this.rows.finish(row.id, 'interrupted', { error: 'Deskhand stopped while this workflow was running' });
        if (row.task_id) opts.tasks.finish(row.task_id, 'interrupted', 'Deskhand stopped while this workflow was running', false);
      }
    }
  }

  onChange(listener: (row: WorkflowRow) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The script, its phases and limits a call would run (for the approval preview): errors the model can act on. */
  resolve(input: StartWorkflowInput): { name: string | null; script: string; args: string; limits: WorkflowLimits } {
    if ((input.name === undefined) === (input.script === undefined)) throw new DeskhandError('usage', 'Give exactly one of name (a catalog workflow such as deep-research) or script (inline JavaScript).');
    let script: string;
    if (input.name !== undefined) {
      const entry = catalogEntry(input.name);
      if (!entry) throw new DeskhandError('not_found', `No catalog workflow "${input.name}"; the catalog has ${catalogNames()}.`);
      script = entry.script;
    } else {
      script = input.script!;
      if (!script.trim()) throw new DeskhandError('usage', 'script is empty; write the workflow as the body of an async function (await agent(...), phase(...), return ...).');
    }
    return { name: input.name ?? null, script, args: input.args ?? '', limits: this.limitsFor(input.limits) };
  }

  /** Starts a run in the background; returns its row (with the task id) at once. */
  start(input: StartWorkflowInput, ctx: WorkflowCallContext): WorkflowRow {
    const r = this.resolve(input);
    const id = `wf_${randomBytes(4).toString('hex')}`;
    let row = this.rows.insert({ id, conversation_id: ctx.conversationId, run_id: ctx.runId, call_id: ctx.callId, name: r.name, script: r.script, args: r.args, limits: JSON.stringify(r.limits) });
    const task = this.opts.tasks.start(
      { conversationId: ctx.conversationId, runId: ctx.runId, callId: ctx.callId, kind: 'workflow', title: `workflow ${r.name ?? '(inline script)'}${r.args ? `: ${r.args}` : ''}`.slice(0, 200), spec: { workflow: id }, outputPath: this.outputPath(id) },
      'wf',
    );
    this.rows.update(id, { task_id: task.id });
    row = this.rows.get(id)!;
    const live = this.newLive(row, ctx, r.limits, Date.now(), this.opts.subagents.attendedRun(ctx.runId));
    this.live.set(id, live);
    live.done = this.execute(live).catch(() => undefined);
    return row;
  }

  private newLive(row: WorkflowRow, ctx: WorkflowCallContext, limits: WorkflowLimits, started: number, attended: boolean, journal: WorkflowJournalEntry[] = []): Live {
    const live: Live = {
      row, controller: new AbortController(), ctx, children: new Set(), pending: new Map(), started, limits, attended,
      journal: new Map(journal.map((e) => [e.seq, e])),
      recordedPhases: journal.length || row.status === 'parked' ? (JSON.parse(row.phases) as WorkflowPhase[]) : [],
      phaseAt: 0, seen: 0, inflight: 0, parkedCalls: 0,
    };
    setMaxListeners(0, live.controller.signal);
    return live;
  }

  /** The workflow run a child was started by (its call id is the run's call id and the script's call number). */
  ownerOf(child: Pick<SubagentRow, 'parent_run_id' | 'parent_call_id'>): WorkflowRow | undefined {
    if (!child.parent_run_id || !child.parent_call_id?.includes('#')) return undefined;
    return this.rows.byChildCall(child.parent_run_id, child.parent_call_id);
  }

  /** The requests a parked run waits for (its parked children's, and their descendants'); none when it is not parked. */
  waitingFor(taskId: string): string[] {
    const row = this.rows.byTask(taskId);
    if (!row || row.status !== 'parked' || this.live.has(row.id)) return [];
    return [...new Set(this.childrenOf(row).filter((c) => c.status === 'parked').flatMap((c) => this.opts.subagents.waitingRequests(c)))];
  }

  /**
   * Resumes a parked run here (an answer to one of its children's requests came): the script replays from its
   * journal, the answered child continues, and the promise settles when the run ends or parks again. A run that is
   * not parked, or whose children still all wait, is left as it is.
   */
  async resumeParked(id: string, attended: boolean): Promise<WorkflowRow> {
    const row = this.rows.get(id);
    if (!row || row.status !== 'parked' || this.live.has(id)) return row!;
    const children = this.childrenOf(row);
    if (children.some((c) => c.status === 'parked') && children.filter((c) => c.status === 'parked').every((c) => this.opts.subagents.waitingRequests(c).length > 0)) return row;
    if (!this.rows.unpark(id)) return this.rows.get(id)!;
    if (row.task_id) this.opts.tasks.adopt(row.task_id);
    const now = this.rows.get(id)!;
    const ctx: WorkflowCallContext = { runId: row.run_id, conversationId: row.conversation_id, callId: row.call_id };
    // The minutes limit counts the time it ran before it parked, not the time it waited.
    const live = this.newLive(now, ctx, JSON.parse(row.limits) as WorkflowLimits, Date.now() - Math.max(0, row.updated_at - row.created_at), attended, this.rows.journal(id));
    for (const c of children) live.children.add(c.id);
    this.live.set(id, live);
    this.rows.event(id, 'resume', `replaying ${live.journal.size} recorded call(s)`);
    this.publish(id);
    live.done = this.execute(live).catch(() => undefined);
    await live.done;
    return this.rows.get(id)!;
  }

  private childrenOf(row: WorkflowRow): SubagentRow[] {
    return this.opts.subagents.list(row.conversation_id).filter((c) => c.parent_run_id === row.run_id && !!c.parent_call_id?.startsWith(`${row.call_id}#`));
  }

  get(id: string): WorkflowRow | undefined {
    return this.rows.get(id);
  }

  list(conversationId?: string): WorkflowRow[] {
    return conversationId ? this.rows.forConversation(conversationId) : this.rows.list(100);
  }

  events(id: string) {
    return this.rows.events(id);
  }

  /** Stops a run and every child it started. */
  async cancel(id: string, reason = 'cancelled'): Promise<WorkflowRow> {
    const row = this.rows.get(id);
    if (!row) throw new DeskhandError('not_found', `No workflow run ${id}.`);
    const live = this.live.get(id);
    if (live) await this.halt(live, { status: 'cancelled', reason });
    else if (row.status === 'running' || row.status === 'parked') {
      // A parked run's children wait in the store: they end with it (their requests expire).
      for (const c of this.childrenOf(row)) if (!SUB_TERMINAL.has(c.status)) await this.opts.subagents.cancel(c.id, `its workflow stopped: ${reason}`).catch(() => undefined);
      this.end(row, 'cancelled', { error: reason }, false);
    }
    return this.rows.get(id)!;
  }

  /** On quit: every run this process drives stops with its children (interrupted, nobody woken). */
  async shutdown(): Promise<void> {
    const all = [...this.live.values()];
    await Promise.all(all.map((live) => this.halt(live, { status: 'interrupted', reason: 'Deskhand stopped while this workflow was running' })));
    await Promise.all(all.map((live) => live.done));
  }

  // ── Running ───────────────────────────────────────────────────────────────────────────────────────────────────

  private async execute(live: Live): Promise<void> {
    const { row } = live;
    const left = Math.max(1_000, live.limits.maxMinutes * 60_000 - (Date.now() - live.started));
    const timer = setTimeout(() => void this.halt(live, { status: 'failed', reason: `stopped at its limit of ${live.limits.maxMinutes} minutes` }), left);
    // Cancelled from another process (`deskhand workflows cancel`): the row says so.
    const offExternal = this.opts.store.onExternalChange(() => {
      const now = this.rows.get(row.id);
      if (now && now.status === 'cancelled' && !live.stop) void this.halt(live, { status: 'cancelled', reason: now.error ?? 'cancelled' });
    });
    let outcome;
    try {
      outcome = await runScript({
        script: row.script,
        args: row.args,
        signal: live.controller.signal,
        notice: (call) => this.notice(live, call),
        handle: (call) => this.call(live, call),
        onStart: (controls) => (live.idle = controls.idle),
      });
    } finally {
      clearTimeout(timer);
      offExternal();
    }
    if (live.parking && !live.stop) {
      // Parked: its children stay as they are (parked or ended), its task survives; an answer replays it.
      this.live.delete(row.id);
      this.rows.park(row.id);
      this.rows.event(row.id, 'park', `waiting for ${this.waitingFor(row.task_id ?? '').join(', ') || 'a person'}`);
      this.publish(row.id);
      return;
    }
    // The replayed script ended without making every call it had made before: it is not the same script.
    const unreached = outcome.ok && !live.stop ? [...live.journal.values()].find((e) => e.seq > live.seen) : undefined;
    if (unreached) live.stop = { status: 'failed', reason: diverged(`it ended before making call ${unreached.seq} (${unreached.summary})`) };
    else if (outcome.ok && !live.stop && live.phaseAt < live.recordedPhases.length) live.stop = { status: 'failed', reason: diverged(`it ended before naming phase "${live.recordedPhases[live.phaseAt]!.name}"`) };
    // Whatever ended the script, no child outlives it.
    await this.stopChildren(live, live.stop?.reason ?? (outcome.ok ? 'the workflow ended' : 'the workflow failed'));
    this.live.delete(row.id);
    const now = this.rows.get(row.id)!;
    this.closePhase(now);
    if (live.stop) this.end(now, live.stop.status, { error: live.stop.reason }, live.stop.status !== 'cancelled' && live.stop.status !== 'interrupted');
    else if (outcome.ok) this.end(now, 'finished', { result: outcome.value ?? '' });
    else this.end(now, 'failed', { error: outcome.error ?? 'the script failed' });
  }

  private async halt(live: Live, stop: { status: WorkflowStatus; reason: string }): Promise<void> {
    live.stop ??= stop;
    live.controller.abort(new Error(live.stop.reason));
    await this.stopChildren(live, live.stop.reason);
  }

  private async stopChildren(live: Live, reason: string): Promise<void> {
    for (const id of live.children) {
      const child = this.opts.subagents.get(id);
      if (child && !SUB_TERMINAL.has(child.status)) await this.opts.subagents.cancel(id, `its workflow stopped: ${reason}`).catch(() => undefined);
    }
  }

  private notice(live: Live, call: ScriptCall): void {
    const a = call.args ?? {};
    const id = live.row.id;
    const row = this.rows.get(id)!;
    if (call.method === 'phase' && live.phaseAt < live.recordedPhases.length) {
      // Replaying: the phases it named before it parked, again and in order (recorded already).
      const name = String(a.name).slice(0, 120);
      const expected = live.recordedPhases[live.phaseAt++]!;
      if (expected.name !== name) void this.halt(live, { status: 'failed', reason: diverged(`its phase ${live.phaseAt} is "${name}" where it was "${expected.name}"`) });
      return;
    } else if (call.method === 'phase_output' && live.recordedPhases.some((p, i) => i < live.phaseAt && p.name === a.name && p.status === 'done')) {
      return;
    } else if (call.method === 'phase') {
      const name = String(a.name).slice(0, 120);
      const phases = this.closePhase(row);
      phases.push({ name, status: 'running', output: null, started_at: Date.now(), ended_at: null });
      this.rows.update(id, { phase: name, phases: JSON.stringify(phases) });
      this.rows.event(id, 'phase', name);
    } else if (call.method === 'phase_output') {
      const phases = JSON.parse(row.phases) as WorkflowPhase[];
      const p = [...phases].reverse().find((x) => x.name === a.name);
      if (p) {
        p.output = String(a.output ?? '').slice(0, 20_000);
        p.status = 'done';
        p.ended_at = Date.now();
      }
      this.rows.update(id, { phases: JSON.stringify(phases) });
      this.rows.event(id, 'phase_output', `${String(a.name)}: ${String(a.output ?? '').slice(0, 2000)}`);
    } else if (call.method === 'progress') {
      this.rows.update(id, { progress: String(a.message).slice(0, 500) });
      this.rows.event(id, 'progress', String(a.message));
    } else if (call.method === 'log') {
      this.rows.event(id, 'log', String(a.message));
    }
    this.publish(id);
  }

  private closePhase(row: WorkflowRow): WorkflowPhase[] {
    const phases = JSON.parse(row.phases) as WorkflowPhase[];
    let changed = false;
    for (const p of phases) {
      if (p.status === 'running') {
        p.status = 'done';
        p.ended_at = Date.now();
        changed = true;
      }
    }
    if (changed) this.rows.update(row.id, { phases: JSON.stringify(phases) });
    return phases;
  }

  /**
   * One call of the script, through the journal: replayed (its recorded answer, once its method and arguments match),
   * or answered here and recorded. A call that waits for parked children stays open, and may park the run.
   */
  private async call(live: Live, call: ScriptCall): Promise<unknown> {
    if (live.parking) return never();
    const seq = call.seq ?? 0;
    const id = live.row.id;
    const args = JSON.stringify(call.args ?? null);
    const sha = createHash('sha256').update(`${call.method}\n${args}`).digest('hex');
    const summary = `${call.method}(${args.slice(0, 100)}${args.length > 100 ? '…' : ''})`;
    live.seen = Math.max(live.seen, seq);
    const entry = live.journal.get(seq);
    if (entry) {
      if (entry.method !== call.method || entry.args_sha256 !== sha) {
        void this.halt(live, { status: 'failed', reason: diverged(`its call ${seq} is ${summary} where it was ${entry.summary}`) });
        return never();
      }
      if (entry.status === 'ok') return entry.payload === null ? undefined : (JSON.parse(entry.payload) as unknown);
      if (entry.status === 'error') throw new Error(entry.payload ?? 'the call failed');
    } else {
      // Without an fsync, like a live child's bookkeeping: the park's own commit (fsync'd) comes after it.
      this.opts.store.withoutFsync(() => this.rows.issue({ workflow_id: id, seq, method: call.method, args_sha256: sha, summary }));
    }
    live.inflight++;
    try {
      const value = await this.api.handle(live, call, seq);
      this.opts.store.withoutFsync(() => this.rows.answer(id, seq, 'ok', value === undefined ? null : JSON.stringify(value)));
      return value;
    } catch (err) {
      if (err instanceof ParkedCall && !live.stop) {
        live.parkedCalls++;
        return never();
      }
      if (!live.stop) this.opts.store.withoutFsync(() => this.rows.answer(id, seq, 'error', err instanceof Error ? err.message : String(err)));
      throw err;
    } finally {
      live.inflight--;
      void this.maybePark(live);
    }
  }

  /** Parks the run when its script can go no further: calls open only on parked children, no child running. */
  private async maybePark(live: Live): Promise<void> {
    const blocked = () =>
      !live.stop && !live.parking && live.parkedCalls > 0 && live.inflight === 0 &&
      [...live.children].every((id) => {
        const c = this.opts.subagents.get(id);
        return !c || SUB_TERMINAL.has(c.status) || c.status === 'parked';
      });
    if (!blocked() || !live.idle) return;
    await live.idle();
    if (!blocked()) return;
    live.parking = true;
    live.controller.abort(new Error('parked: its children wait for a person'));
  }

  /** A child spent: the run's totals, and its budget. */
  private onChild(child: SubagentRow): void {
    for (const live of this.live.values()) {
      if (!live.children.has(child.id)) continue;
      let input = 0;
      let output = 0;
      let cost = 0;
      for (const id of live.children) {
        const r = this.opts.subagents.get(id);
        if (!r) continue;
        input += r.input_tokens;
        output += r.output_tokens;
        cost += r.cost_usd;
      }
      this.rows.update(live.row.id, { input_tokens: input, output_tokens: output, cost_usd: cost });
      if (SUB_TERMINAL.has(child.status)) this.rows.event(live.row.id, 'agent', `${child.id} ${child.status}: ${child.description}`);
      if (!live.stop && input + output > live.limits.maxTokens) void this.halt(live, { status: 'failed', reason: `stopped at its budget of ${live.limits.maxTokens} tokens (spent ${input + output})` });
      else if (!live.stop && cost > live.limits.maxCostUSD) void this.halt(live, { status: 'failed', reason: `stopped at its cost budget of $${live.limits.maxCostUSD} (estimated $${cost.toFixed(4)})` });
      this.publish(live.row.id);
      if (child.status === 'parked' || SUB_TERMINAL.has(child.status)) void this.maybePark(live);
    }
  }

  private end(row: WorkflowRow, status: WorkflowStatus, patch: { result?: string; error?: string }, notify = true): void {
    if (!this.rows.finish(row.id, status, patch)) return;
    const ended = this.rows.get(row.id)!;
    this.rows.event(row.id, 'end', `${status}${ended.error ? `: ${ended.error}` : ''}`);
    if (ended.task_id) {
      mkdirSync(join(this.opts.dataDir, 'workflows'), { recursive: true, mode: 0o700 });
      writeFileSync(this.outputPath(row.id), describeRun(ended), { mode: 0o600 });
      const taskStatus = status === 'finished' ? 'finished' : status === 'cancelled' ? 'cancelled' : status === 'interrupted' ? 'interrupted' : 'failed';
      this.opts.tasks.finish(ended.task_id, taskStatus, status === 'finished' ? 'finished' : `${status}: ${ended.error ?? ''}`.slice(0, 300), notify);
    }
    this.publish(row.id);
  }

  private limitsFor(asked: Partial<WorkflowLimits> | undefined): WorkflowLimits {
    const c = this.ceilings;
    const pick = (k: keyof WorkflowLimits) => Math.min(asked?.[k] ?? c[k], c[k]);
    return { maxMinutes: pick('maxMinutes'), maxTokens: pick('maxTokens'), maxCostUSD: pick('maxCostUSD'), maxAgents: pick('maxAgents'), maxConcurrency: pick('maxConcurrency') };
  }

  private outputPath(id: string): string {
    return join(this.opts.dataDir, 'workflows', `${id}.txt`);
  }

  private publish(id: string): void {
    const row = this.rows.get(id);
    if (!row) return;
    // The task's progress changes too: every UI listing tasks (and the workflows panel) hears of it.
    if (row.task_id && row.status === 'running') this.opts.tasks.update(row.task_id, { workflow: row.id, phase: row.phase, progress: row.progress, agents: row.agents, tokens: row.input_tokens + row.output_tokens });
    for (const l of this.listeners) {
      try {
        l(row);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function catalogNames(): string {
  return CATALOG.map((w) => w.name).join(', ');
}

export { WORKFLOW_TERMINAL };
