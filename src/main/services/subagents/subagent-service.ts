/**
 * Subagents: a child is a conversation of its own, linked to its parent, run by the same runtime loop (through the
 * runner the host injects). Its tools are at most its parent's turn set narrowed by its type's profile, its policy at
 * most its parent's, and it starts tainted when the parent is; its taint is reported back with its result. Limits on
 * minutes, tokens, cost and live children (a queue beyond the cap) are enforced here; a background child is a task in
 * the one task table. A result schema is checked and the child asked once more with the validation error.
 *
 * This file makes and runs children: spawn, map, create, launch and run, limits and spend, the end of a child, crash
 * recovery. Beside it: controlling live children — wait, steer, pause and resume, cancel, the blackboard
 * (subagent-control.ts, whose methods SubagentService offers under the same names) — the protocol with the runner
 * and the tools (subagent-protocol.ts), what an ended child leaves (child-results.ts: the result file, its task, the
 * reported mark), the per-parent cap (child-slots.ts) and the pause gate (pause-gate.ts).
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { DeskhandError } from '../../../shared/errors';
import { WaitingForPeople } from '../../../shared/waiting';
import { SUBAGENT_TERMINAL, subagentsModule, type SubagentRow, type SteeringSender, type SubagentStatus } from '../store/modules/subagents';
import type { TaskRow } from '../store/modules/tasks';
import { describeChild } from './describe';
import { isSameProcess, selfIdentity } from '../processes/proc-info';
import { MAX_MAP_CHILDREN, PROFILES, SUBAGENT_TYPES, checkResult, compileResultSchema, lowerPolicy, type SubagentType } from './profiles';
import { Slots } from './child-slots';
import { ChildControl, type Live } from './subagent-control';
import { childOutputPath, finishChildTask, markReported, waitingRequests } from './child-results';
import type { AgentDefinitions, ChildRunOptions, MapInput, SpawnInput, SubagentCallContext, SubagentLimits, SubagentRunner, SubagentServiceOptions } from './subagent-protocol';

export type { AgentDefinitions, ChildAgent, ChildModel, ChildOutcome, ChildRunOptions, MapInput, SpawnInput, SubagentCallContext, SubagentLimits, SubagentRunner, SubagentServiceOptions, WaitResult } from './subagent-protocol';

const DEFAULT_LIMITS: SubagentLimits = { maxMinutes: 120, maxTokens: 2_000_000, maxCostUSD: 5 };
const DEFAULT_PRICES = { input: 3, output: 15 };
const TERMINAL = new Set<string>(SUBAGENT_TERMINAL);

export class SubagentService {
  private runner: SubagentRunner | null = null;
  private readonly rows: ReturnType<typeof subagentsModule.queries>;
  private readonly live = new Map<string, Live>();
  private readonly slots = new Map<string, Slots>();
  private readonly listeners = new Set<(row: SubagentRow) => void>();
  readonly maxLive: number;
  private readonly ceilings: SubagentLimits;
  private readonly prices: { input: number; output: number };
  private readonly ceilingCache = new Map<string, ReadonlySet<string> | null>();
  /** Background children started or resumed here, and whether a person can answer them (else they park). */
  private readonly attended = new Map<string, boolean>();
  /** Waiting for, steering, pausing and cancelling the children made here (subagent-control.ts). */
  private readonly control: ChildControl;

  constructor(private readonly opts: SubagentServiceOptions) {
    this.rows = opts.store.module(subagentsModule);
    this.maxLive = opts.maxLive ?? 8;
    this.ceilings = { ...DEFAULT_LIMITS, ...opts.limits };
    this.prices = opts.prices ?? DEFAULT_PRICES;
    opts.tasks.register('subagent', {
      cancel: (task, reason) => this.cancelTask(task, reason),
      describe: (task) => this.describeTask(task),
      // A background child parked on a person outlives its process: any process's answer resumes it.
      survives: (task) => this.rows.byTask(task.id)?.status === 'parked',
    });
    this.control = new ChildControl({
      rows: this.rows,
      live: this.live,
      need: () => this.need(),
      attendedRun: (runId) => this.attendedRun(runId),
      onChange: (listener) => this.onChange(listener),
      changed: (id) => this.changed(id),
      recoverOrphans: (parent) => this.recoverOrphans(parent),
      resumeParked: (id, attended) => this.resumeParked(id, attended),
      waitingRequests: (row) => this.waitingRequests(row),
      markReported: (rows) => this.markReported(rows),
      end: (id, status, patch, notify) => this.end(id, status, patch, notify),
    });
  }

  /** Agent definitions (services/agents): subagent types beyond the built-in ones, found for the parent's roots. */
  private definitions: AgentDefinitions | null = null;

  useDefinitions(definitions: AgentDefinitions): void {
    this.definitions = definitions;
  }

  /** The runtime arrives after the tools are assembled (they need this service first). */
  attach(runner: SubagentRunner): void {
    this.runner = runner;
  }

  onChange(listener: (row: SubagentRow) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ── Ceilings and hooks the host wires into the runtime ─────────────────────────────────────────────────────────

  /** A child's ceiling (the tools its parent had, narrowed by its type), or null when the conversation is no child. */
  ceilingOf(conversationId: string): ReadonlySet<string> | null {
    let ceiling = this.ceilingCache.get(conversationId);
    if (ceiling === undefined) {
      const row = this.rows.byConversation(conversationId);
      ceiling = row ? new Set(JSON.parse(row.tools) as string[]) : null;
      this.ceilingCache.set(conversationId, ceiling);
    }
    return ceiling;
  }

  /** The registry filter's check for one turn: a child's turn shows only tools in its ceiling (null: not a child). */
  ceilingCheck(conversationId: string): ((tool: { name: string }) => string | null) | null {
    const ceiling = this.ceilingOf(conversationId);
    if (!ceiling) return null;
    const allowed = ceiling;
    return (tool) => (allowed.has(tool.name) ? null : 'a subagent gets at most its parent\'s tools, narrowed by its type; this one is not among them');
  }

  /** Steering messages for a child's next model call (taken once). */
  takeSteering(conversationId: string): { message: string; from: SteeringSender }[] {
    const row = this.rows.byConversation(conversationId);
    if (!row) return [];
    return this.rows.takeSteering(row.id).map((s) => ({ message: s.message, from: s.sender }));
  }

  byConversation(conversationId: string): SubagentRow | undefined {
    return this.rows.byConversation(conversationId);
  }

  get(id: string): SubagentRow | undefined {
    return this.rows.get(id);
  }

  all(limit = 200): SubagentRow[] {
    return this.rows.list(limit);
  }

  workMinutesLeft(conversationId: string): number | null {
    const row = this.rows.byConversation(conversationId);
    if (!row || !row.started_at) return null;
    const limits = JSON.parse(row.limits) as SubagentLimits;
    return Math.max(0, Math.round(((row.started_at + limits.maxMinutes * 60_000 - Date.now()) / 60_000) * 10) / 10);
  }

  // ── Tools ─────────────────────────────────────────────────────────────────────────────────────────────────────

  /** Foreground: waits and returns the child's row when it ended. Background: returns the queued row at once. */
  async spawn(input: SpawnInput, ctx: SubagentCallContext): Promise<SubagentRow> {
    const runner = this.need();
    let row: SubagentRow;
    // The same parent call running again after its run was parked on this child: it rejoins the child it started.
    const started = input.background || !ctx.parks ? undefined : this.rows.forCall(ctx.runId, ctx.callId)[0];
    if (started) return this.rejoin(started, ctx);
    if (input.resume) {
      const old = this.rows.get(input.resume);
      if (!old || old.parent_conversation_id !== ctx.conversationId) throw new DeskhandError('not_found', `No subagent ${input.resume} of this conversation; list_subagents shows them.`);
      if (!TERMINAL.has(old.status)) throw new DeskhandError('conflict', `Subagent ${old.id} is still ${old.status}; steer it with steer_subagent or wait for it.`);
      this.rows.update(old.id, { status: 'queued', prompt: input.prompt, result: null, error: null, reported: 0, background: input.background ? 1 : 0, parent_run_id: ctx.runId, parent_call_id: ctx.callId, finished_at: null, owner_pid: selfIdentity().pid, owner_start: selfIdentity().start });
      row = this.rows.get(old.id)!;
    } else {
      row = this.create(input, ctx, runner);
    }
    if (input.background) {
      const task = this.opts.tasks.start({
        conversationId: ctx.conversationId,
        runId: ctx.runId,
        callId: ctx.callId,
        kind: 'subagent',
        title: `${row.type}: ${row.description}`.slice(0, 200),
        spec: { subagent: row.id },
        outputPath: childOutputPath(this.opts.dataDir, row.id),
      });
      this.rows.update(row.id, { task_id: task.id });
      row = this.rows.get(row.id)!;
      this.attended.set(row.id, runner.attended?.(ctx.runId) ?? true);
      void this.launch(row, undefined).catch(() => undefined);
      return row;
    }
    if (ctx.attended !== undefined) this.attended.set(row.id, ctx.attended);
    return this.launch(row, ctx.signal, false, !!ctx.parks);
  }

  /**
   * A child's provider when it is not the conversation's own (egress to another company's servers): the provider and
   * its host; null for the conversation's own. Without a runner (policy explain), any named provider counts as other.
   */
  otherProvider(conversationId: string | undefined, provider: string): { provider: string; host: string | null } | null {
    if (!conversationId || !this.runner?.childProvider) return { provider, host: null };
    return this.runner.childProvider(conversationId, provider);
  }

  /** Whether a person can answer this run's requests now (its live options are interactive); unknown runs: yes. */
  attendedRun(runId: string): boolean {
    return this.runner?.attended?.(runId) ?? true;
  }

  /** One child per item (≤ 100), at most `maxConcurrency` at once; waits for all and returns their rows in order. */
  async map(input: MapInput, ctx: SubagentCallContext): Promise<SubagentRow[]> {
    const runner = this.need();
    const resumeIds = [...new Set(input.resumeIds ?? [])];
    if (input.items.length && !input.promptTemplate.includes('{{input}}')) throw new DeskhandError('usage', 'prompt_template must contain {{input}} where each item goes.');
    if (!input.items.length && !resumeIds.length) throw new DeskhandError('usage', 'Give items (one new child each) or resume_ids (earlier children to continue).');
    if (input.items.length + resumeIds.length > MAX_MAP_CHILDREN) throw new DeskhandError('usage', `At most ${MAX_MAP_CHILDREN} children per call (${input.items.length} items + ${resumeIds.length} resumed); split the list.`);
    const cap = Math.min(input.maxConcurrency ?? this.maxLive, this.maxLive);
    // Every child (queued or live) listens to the parent's signal.
    setMaxListeners(Math.max(10, input.items.length * 2 + 10), ctx.signal);
    // The parent's turn set is computed once, and every child's rows are written in one commit.
    const parent = runner.parent(ctx.runId);
    // The same call running again after its run parked on some of these children: the batch it started, in order.
    const earlier = ctx.parks ? this.rows.forCall(ctx.runId, ctx.callId) : [];
    const rows = earlier.length ? earlier : this.opts.store.transaction(() => [
      ...this.reopenAll(resumeIds, input.resumePrompt ?? input.promptTemplate.split('{{input}}').join('').trim(), ctx),
      ...input.items.map((item, i) =>
        this.create(
          { prompt: input.promptTemplate.split('{{input}}').join(item), description: `${input.description} #${i + 1}`, ...(input.type ? { type: input.type } : {}), resultSchema: input.resultSchema, ...(input.limits ? { limits: input.limits } : {}), ...(input.model ? { model: input.model } : {}) },
          ctx,
          runner,
          parent,
        ),
      ),
    ]);
    if (ctx.attended !== undefined) for (const row of rows) this.attended.set(row.id, ctx.attended);
    const local = new Slots(cap);
    const settled = await Promise.allSettled(
      rows.map(async (row) => {
        if (TERMINAL.has(row.status)) return row;
        try {
          await local.take(ctx.signal);
        } catch {
          this.end(row.id, 'cancelled', { error: 'The parent stopped before this child started.' });
          return this.rows.get(row.id)!;
        }
        try {
          return await this.launch(row, ctx.signal, row.status === 'parked', !!ctx.parks);
        } finally {
          local.give();
        }
      }),
    );
    // Every child ran to its end or parked: the batch waits for what the parked ones wait for (its call parks).
    const waiting = settled.flatMap((r) => (r.status === 'rejected' && WaitingForPeople.isInstance(r.reason) ? [...r.reason.requestIds] : []));
    if (waiting.length) throw new WaitingForPeople(waiting, `${waiting.length} request(s) of mapped children wait for a person`);
    return settled.map((r, i) => {
      if (r.status === 'fulfilled') return r.value;
      throw r.reason instanceof Error ? r.reason : new DeskhandError('internal', `child ${rows[i]!.id}: ${String(r.reason)}`);
    });
  }

  /**
   * map_subagents' resumed children: each must be an ended child of this conversation; each is queued again with the
   * new prompt, as a foreground child of this call (checked all before any changes: one bad id changes nothing).
   */
  private reopenAll(ids: readonly string[], prompt: string, ctx: SubagentCallContext): SubagentRow[] {
    const olds = ids.map((id) => {
      const old = this.rows.get(id);
      if (!old || old.parent_conversation_id !== ctx.conversationId) throw new DeskhandError('not_found', `No subagent ${id} of this conversation; list_subagents shows them.`);
      if (!TERMINAL.has(old.status)) throw new DeskhandError('conflict', `Subagent ${old.id} is still ${old.status}; steer it with steer_subagent or wait for it.`);
      return old;
    });
    if (olds.length && !prompt) throw new DeskhandError('usage', 'Resumed children need a prompt: give resume_prompt (what each should do now).');
    const me = selfIdentity();
    return olds.map((old) => {
      this.rows.update(old.id, { status: 'queued', prompt, result: null, error: null, reported: 0, background: 0, task_id: null, parent_run_id: ctx.runId, parent_call_id: ctx.callId, finished_at: null, owner_pid: me.pid, owner_start: me.start });
      return this.rows.get(old.id)!;
    });
  }

  /** A parent call running again finds its foreground child: ended (its answer), or parked (continued here). */
  private async rejoin(row: SubagentRow, ctx: SubagentCallContext): Promise<SubagentRow> {
    if (!TERMINAL.has(row.status) && row.status !== 'parked') this.recoverOrphans(row.parent_conversation_id);
    const now = this.rows.get(row.id)!;
    if (TERMINAL.has(now.status)) {
      if (now.reported !== 1) this.markReported([now]);
      return this.rows.get(row.id)!;
    }
    if (now.status !== 'parked') throw new DeskhandError('conflict', `Subagent ${now.id} is ${now.status} in another process; wait_subagents {"ids":["${now.id}"]} collects it.`);
    this.rows.update(now.id, { owner_pid: selfIdentity().pid, owner_start: selfIdentity().start });
    if (ctx.attended !== undefined) this.attended.set(now.id, ctx.attended);
    return this.launch(this.rows.get(now.id)!, ctx.signal, true, !!ctx.parks);
  }

  /**
   * Continues a parked background child here once its requests are answered (from the process that answered, or a
   * parent waiting for it): its run resumes, and it ends (its task with it) or parks again. Rejects with
   * WaitingForPeople when it parks again; a child that is not parked, or still waits, is returned as it is.
   */
  async resumeParked(id: string, attended: boolean): Promise<SubagentRow> {
    const row = this.rows.get(id);
    if (!row || row.status !== 'parked' || this.live.has(id) || this.waitingRequests(row).length > 0) return row!;
    this.rows.update(id, { owner_pid: selfIdentity().pid, owner_start: selfIdentity().start });
    this.attended.set(id, attended);
    return this.launch(this.rows.get(id)!, undefined, true);
  }

  /**
   * When every one of these running tasks is a background child parked on a person (none live here), the requests
   * they wait for: nothing will end while a process waits for them (the CLI parks instead). Else none.
   */
  parkedTasks(tasks: readonly { id: string }[]): string[] {
    const requests: string[] = [];
    for (const task of tasks) {
      const row = this.rows.byTask(task.id);
      if (!row || row.status !== 'parked' || this.live.has(row.id)) return [];
      const waiting = this.waitingRequests(row);
      if (waiting.length === 0) return [];
      requests.push(...waiting);
    }
    return [...new Set(requests)];
  }

  /** The open requests a parked child (or any descendant of it) waits for. */
  waitingRequests(row: SubagentRow): string[] {
    return waitingRequests(this.opts.store, this.rows, row);
  }

  list(parentConversationId: string): SubagentRow[] {
    this.recoverOrphans(parentConversationId);
    return this.rows.forParent(parentConversationId);
  }

  /** Every descendant of a conversation (children of children too), oldest first: the UI's tree. */
  tree(conversationId: string, limit = 500): SubagentRow[] {
    return this.rows.tree(conversationId, limit);
  }

  /**
   * Crash recovery: queued or running children whose owning process is gone (pid and start time; SIGKILL, power
   * loss) are ended as failed with the reason, and their tasks closed as interrupted. Run at start, and whenever a
   * parent lists or waits for its children. Returns the ids ended.
   */
  recoverOrphans(parentConversationId: string | null = null): string[] {
    const ended: string[] = [];
    const me = selfIdentity();
    for (const row of this.rows.open(parentConversationId)) {
      if (this.live.has(row.id)) continue;
      if (row.owner_pid === me.pid && row.owner_start === me.start) continue;
      if (row.owner_pid ? isSameProcess(row.owner_pid, row.owner_start) : Date.now() - row.created_at < 10_000) continue;
      const who = row.owner_pid ? `the process that ran it (pid ${row.owner_pid})` : 'the process that started it';
      this.end(row.id, 'failed', { error: `interrupted: ${who} stopped while it was ${row.status}; its transcript so far is kept (resume it with spawn_subagent {resume: "${row.id}"})` }, false, 'interrupted');
      ended.push(row.id);
    }
    return ended;
  }

  // ── Controlling live children (subagent-control.ts) ──────────────────────────────────────────────────────────

  wait(...args: Parameters<ChildControl['wait']>): ReturnType<ChildControl['wait']> {
    return this.control.wait(...args);
  }

  steer(...args: Parameters<ChildControl['steer']>): ReturnType<ChildControl['steer']> {
    return this.control.steer(...args);
  }

  pause(...args: Parameters<ChildControl['pause']>): ReturnType<ChildControl['pause']> {
    return this.control.pause(...args);
  }

  resume(...args: Parameters<ChildControl['resume']>): ReturnType<ChildControl['resume']> {
    return this.control.resume(...args);
  }

  isPaused(id: string): boolean {
    return this.control.isPaused(id);
  }

  untilResumed(...args: Parameters<ChildControl['untilResumed']>): ReturnType<ChildControl['untilResumed']> {
    return this.control.untilResumed(...args);
  }

  cancel(...args: Parameters<ChildControl['cancel']>): ReturnType<ChildControl['cancel']> {
    return this.control.cancel(...args);
  }

  endParked(...args: Parameters<ChildControl['endParked']>): ReturnType<ChildControl['endParked']> {
    return this.control.endParked(...args);
  }

  post(...args: Parameters<ChildControl['post']>): ReturnType<ChildControl['post']> {
    return this.control.post(...args);
  }

  read(...args: Parameters<ChildControl['read']>): ReturnType<ChildControl['read']> {
    return this.control.read(...args);
  }

  private unpause(id: string): void {
    this.control.unpause(id);
  }

  // ── Running a child ───────────────────────────────────────────────────────────────────────────────────────────

  /** A child's conversation and row, in one commit; owned by this process from the start (queued included). */
  private create(input: SpawnInput, ctx: SubagentCallContext, runner: SubagentRunner, known?: ReturnType<SubagentRunner['parent']>): SubagentRow {
    return this.opts.store.transaction(() => this.createRows(input, ctx, runner, known === undefined ? runner.parent(ctx.runId) : known));
  }

  private createRows(input: SpawnInput, ctx: SubagentCallContext, runner: SubagentRunner, parent: ReturnType<SubagentRunner['parent']>): SubagentRow {
    if (!parent) throw new DeskhandError('not_found', `No run ${ctx.runId}.`);
    const type = input.type ?? 'coder';
    const builtIn = (SUBAGENT_TYPES as readonly string[]).includes(type) ? PROFILES[type as SubagentType] : null;
    const definition = builtIn ? null : (this.definitions?.(type, parent.roots) ?? null);
    if (!builtIn && !definition) {
      const known = this.definitions?.names(parent.roots) ?? [];
      throw new DeskhandError('invalid_args', `No subagent type "${type}": use ${[...SUBAGENT_TYPES, ...known].join(', ')} (agent definitions: .deskhand/agents/*.md, <data dir>/agents/*.md).`);
    }
    // A definition narrows the parent's tools (by Deskhand's or Claude Code's name) and keeps its policy.
    const profile = builtIn ?? { maxPolicy: 'high-risk' as const, keeps: (t: { name: string; claudeName?: string }) => definition!.tools === null || definition!.tools.some((n) => n === t.name || n === t.claudeName) };
    if (input.resultSchema !== undefined) compileResultSchema(input.resultSchema);
    const asked = input.model ?? (definition?.model ? { model: definition.model } : undefined);
    const model = asked ? (runner.checkModel ? runner.checkModel(ctx.runId, asked) : asked) : undefined;
    // A caller's role (Tower) holds a definition within a built-in profile and keeps the role's own tools.
    const cap = input.within ? PROFILES[input.within.type] : null;
    const role = input.within?.keepRole;
    const keeps = (t: (typeof parent.tools)[number]) => (profile.keeps(t) && (!cap || cap.keeps(t))) || (role !== undefined && (t.roles ?? []).includes(role));
    const tools = parent.tools.filter((t) => !t.parentOnly && keeps(t)).map((t) => t.name);
    const policy = lowerPolicy(parent.policy, cap ? lowerPolicy(profile.maxPolicy, cap.maxPolicy) : profile.maxPolicy);
    const limits = this.limitsFor(input.limits);
    const me = this.rows.byConversation(parent.conversationId);
    const where = input.workspace ?? { folder: parent.folder, cwd: parent.cwd, roots: parent.roots };
    const conversationId = runner.createChild({ folder: where.folder, cwd: where.cwd, roots: where.roots, policy, sandbox: parent.sandbox, title: `Subagent: ${input.description}`.slice(0, 80), tainted: parent.tainted || definition?.origin === 'project', ...(model ? { model } : {}), ...(definition ? { agent: { name: definition.name, prompt: definition.prompt, origin: definition.origin, path: definition.path } } : {}) });
    return this.rows.insert({
      id: `sub_${randomBytes(4).toString('hex')}`,
      parent_conversation_id: parent.conversationId,
      parent_run_id: ctx.runId,
      parent_call_id: ctx.callId,
      root_conversation_id: me?.root_conversation_id ?? parent.conversationId,
      conversation_id: conversationId,
      task_id: null,
      type,
      description: input.description,
      prompt: input.prompt,
      background: input.background ? 1 : 0,
      policy,
      tools: JSON.stringify(tools),
      result_schema: input.resultSchema === undefined ? null : JSON.stringify(input.resultSchema),
      limits: JSON.stringify(limits),
      owner_pid: selfIdentity().pid,
      owner_start: selfIdentity().start,
    });
  }

  private limitsFor(asked: Partial<SubagentLimits> | undefined): SubagentLimits {
    const c = this.ceilings;
    return {
      maxMinutes: Math.min(asked?.maxMinutes ?? c.maxMinutes, c.maxMinutes),
      maxTokens: Math.min(asked?.maxTokens ?? c.maxTokens, c.maxTokens),
      maxCostUSD: Math.min(asked?.maxCostUSD ?? c.maxCostUSD, c.maxCostUSD),
    };
  }

  /** Queues for a slot of its tree, runs (with a schema retry), ends the row and its task. */
  private async launch(row: SubagentRow, parentSignal: AbortSignal | undefined, rejoin = false, parks = false): Promise<SubagentRow> {
    const live: Live = { controller: new AbortController() };
    this.live.set(row.id, live);
    const onParent = () => {
      live.stop ??= { status: 'cancelled', reason: 'its parent was stopped' };
      live.controller.abort();
    };
    parentSignal?.addEventListener('abort', onParent, { once: true });
    if (parentSignal?.aborted) onParent();
    // Cancelled by another process (`deskhand subagents cancel`): its row says so.
    const offExternal = this.opts.store.onExternalChange(() => {
      const now = this.rows.get(row.id);
      if (now?.status === 'cancelled' && !live.stop) {
        live.stop = { status: 'cancelled', reason: now.error ?? 'cancelled' };
        live.controller.abort();
      }
    });
    let slots = this.slots.get(row.root_conversation_id);
    if (!slots) this.slots.set(row.root_conversation_id, (slots = new Slots(this.maxLive)));
    let holding = false;
    let parked: WaitingForPeople | null = null;
    try {
      await slots.take(live.controller.signal);
      holding = true;
      await this.runChild(row, live, rejoin, parks);
    } catch (err) {
      if (WaitingForPeople.isInstance(err) && !live.stop) parked = err;
      else {
        const stop = live.stop ?? { status: 'failed' as const, reason: err instanceof Error ? err.message : String(err) };
        this.end(row.id, stop.status, { error: stop.reason });
      }
    } finally {
      if (holding) slots.give();
      offExternal();
      parentSignal?.removeEventListener('abort', onParent);
      this.live.delete(row.id);
    }
    // Parked (not ended): the parent's call parks on the same requests, and rejoins this child when it runs again.
    if (parked) throw parked;
    const ended = this.rows.get(row.id)!;
    if ((!row.background || !row.task_id) && ended.reported !== 1) this.markReported([ended]);
    return ended;
  }

  private async runChild(row: SubagentRow, live: Live, rejoin = false, parks = false): Promise<void> {
    const runner = this.need();
    const limits = JSON.parse(row.limits) as SubagentLimits;
    // Bookkeeping of a live child: committed without an fsync (a power loss ends the child anyway; docs/performance.md).
    this.opts.store.withoutFsync(() => this.rows.update(row.id, rejoin ? { status: 'running' } : { status: 'running', started_at: Date.now(), attempts: 1 }));
    this.changed(row.id);
    const timer = setTimeout(() => {
      live.stop = { status: 'timed_out', reason: `stopped at its limit of ${limits.maxMinutes} minutes` };
      live.controller.abort();
    }, limits.maxMinutes * 60_000);
    const validator = row.result_schema ? compileResultSchema(JSON.parse(row.result_schema)) : null;
    const schemaNote = row.result_schema
      ? `\n\nWhen you are done, answer with only a JSON value matching this JSON Schema (no prose around it):\n${row.result_schema}`
      : '';
    const brief = PROFILES[row.type as SubagentType]?.brief;
    let message = `${brief ? `${brief}\n\n` : ''}${row.prompt}${schemaNote}`;
    try {
      for (let attempt = 1; ; attempt++) {
        if (attempt > 1) this.opts.store.withoutFsync(() => this.rows.update(row.id, { attempts: attempt }));
        const opts: ChildRunOptions = {
          parentRunId: row.parent_run_id,
          background: row.background === 1,
          parks,
          attended: this.attended.get(row.id) ?? true,
          signal: live.controller.signal,
          onUsage: (input, output) => this.spend(row.id, input, output, limits, live),
        };
        const outcome = rejoin && attempt === 1 ? await runner.resume(row.conversation_id, opts) : await runner.run(row.conversation_id, message, opts);
        if (live.stop) throw new DeskhandError('aborted', live.stop.reason);
        if (outcome.status === 'parked' && outcome.approvalIds?.length) {
          // Durable: the process may exit now (exit code 3), and `runs approve` in another one continues the tree.
          this.rows.update(row.id, { status: 'parked' });
          this.changed(row.id);
          throw new WaitingForPeople(outcome.approvalIds, `subagent ${row.id} waits for ${outcome.approvalIds.join(', ')}`);
        }
        if (outcome.status !== 'finished') throw new DeskhandError('internal', `its run ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`);
        const text = runner.lastText(row.conversation_id);
        if (!validator) return this.succeed(row, text);
        const checked = checkResult(text, validator);
        if (checked.ok) return this.succeed(row, JSON.stringify(checked.value, null, 1));
        if (attempt >= 2) throw new DeskhandError('invalid_args', `its answer did not match result_schema after a retry: ${checked.error}`);
        message = `Your answer did not match the result schema: ${checked.error}. Answer again with only the JSON value that matches the schema:\n${row.result_schema}`;
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private spend(id: string, input: number, output: number, limits: SubagentLimits, live: Live): void {
    const row = this.rows.get(id)!;
    const inTok = row.input_tokens + input;
    const outTok = row.output_tokens + output;
    const cost = (inTok * this.prices.input + outTok * this.prices.output) / 1_000_000;
    this.opts.store.withoutFsync(() => this.rows.update(id, { input_tokens: inTok, output_tokens: outTok, cost_usd: cost }));
    if (inTok + outTok > limits.maxTokens) live.stop ??= { status: 'failed', reason: `stopped at its limit of ${limits.maxTokens} tokens` };
    else if (cost > limits.maxCostUSD) live.stop ??= { status: 'failed', reason: `stopped at its cost limit of $${limits.maxCostUSD} (estimated $${cost.toFixed(4)})` };
    if (live.stop) live.controller.abort();
    this.changed(id);
  }

  private succeed(row: SubagentRow, result: string): void {
    this.end(row.id, 'finished', { result });
  }

  /** Ends the row (once), records taint, writes the result file and ends its task. */
  private end(id: string, status: SubagentStatus, patch: { result?: string; error?: string }, notify = true, taskStatusOverride?: 'interrupted'): void {
    const row = this.rows.get(id);
    if (!row) return;
    const tainted = this.runner?.tainted(row.conversation_id) ? 1 : 0;
    // A foreground child's answer goes to its waiting parent call: reported in the same commit that ends it.
    const foreground = !row.background || !row.task_id;
    const reported = foreground ? { reported: 1 } : {};
    // A foreground child's end skips the fsync: its answer is its parent's call result, a full commit that syncs it
    // (a power loss before that loses the parent's call too, which recovery closes as interrupted). A background
    // child's end is the only record of its answer until its parent reads it: a full commit.
    const finish = () => this.rows.finish(id, status, { ...patch, tainted, ...reported });
    if (!(foreground ? this.opts.store.withoutFsync(finish) : finish())) return;
    this.attended.delete(id);
    this.unpause(id);
    // Ended while parked (cancelled, its parent stopped): its parked run stops too, and its requests expire.
    if (row.status === 'parked') this.runner?.stopParked?.(row.conversation_id);
    finishChildTask(this.opts, this.rows.get(id)!, status, notify, taskStatusOverride);
    this.changed(id);
  }

  private markReported(rows: readonly SubagentRow[]): void {
    markReported(this.opts.store, this.rows, rows);
  }

  private async cancelTask(task: TaskRow, reason: string): Promise<void> {
    const row = this.rows.byTask(task.id);
    if (row) await this.cancel(row.id, reason);
    else this.opts.tasks.finish(task.id, 'cancelled', reason, false);
  }

  private describeTask(task: TaskRow): string {
    const row = this.rows.byTask(task.id);
    if (!row) return task.summary ?? '';
    return describeChild(row);
  }

  private changed(id: string): void {
    // Headless (a CLI run, a job) nobody listens: the row is not read for nobody.
    if (this.listeners.size === 0) return;
    const row = this.rows.get(id);
    if (!row) return;
    for (const l of this.listeners) {
      try {
        l(row);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  private need(): SubagentRunner {
    if (!this.runner) throw new DeskhandError('internal', 'Subagents are not available in this host.');
    return this.runner;
  }
}

