/**
 * The workflow API a script calls (script-host.ts), answered for one run: agents started, waited for, mapped,
 * steered and cancelled through the subagent service (the run's children, counted against its max_agents and given
 * what is left of its limits), the blackboard, questions to the person as background question tasks, sleep and the
 * budget. Journal, replay and parking are the service's (workflow-service.ts); a call here that waits for children
 * parked on a person throws `ParkedCall`.
 */
import type { Store } from '../store/store';
import { workflowsModule } from '../store/modules/workflows';
import type { SubagentRow } from '../store/modules/subagents';
import type { TaskRow } from '../store/modules/tasks';
import { WaitingForPeople } from '../../../shared/waiting';
import type { StartQuestionInput } from '../tasks/question-tasks';
import type { SubagentService, SubagentLimits } from '../subagents/subagent-service';
import { SUBAGENT_TYPE_NAME } from '../subagents/profiles';
import type { ScriptCall } from './script-host';
import { ParkedCall, outcomeOf, type Live } from './workflow-run';

/** A built-in type or an agent definition's name (the subagent service says when it names neither). */
const TYPE_NAME = SUBAGENT_TYPE_NAME;

export interface ScriptApiOptions {
  store: Store;
  subagents: Pick<SubagentService, 'spawn' | 'map' | 'steer' | 'cancel' | 'post' | 'read' | 'list' | 'get'>;
  /** Background questions (`ask`): the task service's question tasks. */
  questions?: { startQuestion(input: StartQuestionInput): { task: TaskRow } };
}

export class ScriptApi {
  constructor(
    private readonly opts: ScriptApiOptions,
    private readonly rows: ReturnType<typeof workflowsModule.queries>,
    /** Tells every UI the run changed (its children, its count). */
    private readonly publish: (id: string) => void,
  ) {}

  async handle(live: Live, call: ScriptCall, seq: number): Promise<unknown> {
    if (live.stop) throw new Error(`the workflow is stopping: ${live.stop.reason}`);
    const a = (call.args ?? {}) as Record<string, unknown>;
    const { ctx } = live;
    switch (call.method) {
      case 'agent': {
        const child = await this.spawnChild(live, a, seq);
        const row = await live.pending.get(child.id)!;
        if (row.status === 'parked') throw new ParkedCall(row.id);
        if (row.status !== 'finished') throw new Error(`agent "${row.description}" ${row.status}: ${row.error ?? ''}`.trim());
        return row.result_schema ? (JSON.parse(row.result ?? 'null') as unknown) : (row.result ?? '');
      }
      case 'spawn':
        return { id: (await this.spawnChild(live, a, seq)).id };
      case 'wait': {
        const ids = Array.isArray(a.ids) ? a.ids.map(String) : [];
        const waits = ids.map((id) => this.pendingOf(live, id));
        const rows = await Promise.all(waits);
        if (rows.some((r) => r.status === 'parked')) throw new ParkedCall('wait');
        return rows.map(outcomeOf);
      }
      case 'map': {
        const items = Array.isArray(a.items) ? a.items.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : null;
        if (!items || items.length === 0) throw new Error('map(items, template, opts) needs a non-empty array of items');
        if (items.length > 100) throw new Error('map takes at most 100 items');
        const callId = `${ctx.callId}#${seq}`;
        const earlier = this.opts.subagents.list(ctx.conversationId).some((r) => r.parent_run_id === ctx.runId && r.parent_call_id === callId);
        if (!earlier) this.count(live, items.length);
        const started = this.opts.subagents.map(
          {
            promptTemplate: String(a.template ?? ''),
            items,
            description: String(a.description ?? 'workflow map').slice(0, 120),
            ...(typeof a.type === 'string' && TYPE_NAME.test(a.type) ? { type: a.type } : {}),
            ...(a.result_schema !== undefined ? { resultSchema: a.result_schema } : {}),
            maxConcurrency: Math.min(Number(a.max_concurrency ?? live.limits.maxConcurrency) || 1, live.limits.maxConcurrency),
            limits: this.childLimits(live, a),
          },
          { runId: ctx.runId, conversationId: ctx.conversationId, callId, signal: live.controller.signal, parks: true, attended: live.attended },
        );
        for (const r of this.opts.subagents.list(ctx.conversationId)) if (r.parent_call_id === callId) live.children.add(r.id);
        this.publish(live.row.id);
        try {
          return (await started).map(outcomeOf);
        } catch (err) {
          if (WaitingForPeople.isInstance(err)) throw new ParkedCall('map');
          throw err;
        }
      }
      case 'steer':
        this.mine(live, a.id);
        this.opts.subagents.steer(ctx.conversationId, String(a.id), String(a.message ?? ''));
        return null;
      case 'cancel':
        this.mine(live, a.id);
        return outcomeOf(await this.opts.subagents.cancel(String(a.id), 'cancelled by its workflow'));
      case 'post':
        return this.opts.subagents.post({ runId: ctx.runId, conversationId: ctx.conversationId }, String(a.topic ?? 'note'), String(a.body ?? '')).id;
      case 'read':
        return this.opts.subagents.read(ctx.conversationId, { ...(typeof a.topic === 'string' ? { topic: a.topic } : {}), ...(typeof a.after_id === 'number' ? { afterId: a.after_id } : {}), limit: Math.min(Number(a.limit ?? 50) || 50, 200) }).map((p) => ({ id: p.id, topic: p.topic, body: p.body, author: p.author, untrusted: p.untrusted === 1 }));
      case 'ask':
        return this.ask(live, a);
      case 'sleep': {
        const ms = Math.max(0, Math.min(Number(a.ms) || 0, 60_000));
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, ms);
          live.controller.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
        });
        return null;
      }
      case 'budget': {
        const row = this.rows.get(live.row.id)!;
        return { minutes: Math.round((Date.now() - live.started) / 600) / 100, tokens: row.input_tokens + row.output_tokens, cost_usd: row.cost_usd, agents: row.agents, limits: live.limits };
      }
      default:
        throw new Error(`no workflow API call "${call.method}"`);
    }
  }

  /** A child's end as a wait sees it; a child started before the run parked (not waited for here yet) is rejoined. */
  private pendingOf(live: Live, id: string): Promise<SubagentRow> {
    const known = live.pending.get(id);
    if (known) return known;
    const row = this.opts.subagents.get(id);
    if (!row || !live.children.has(id) || !row.parent_run_id || !row.parent_call_id) throw new Error(`${id} is not an agent this workflow spawned`);
    const { ctx } = live;
    const done = this.opts.subagents
      .spawn({ prompt: row.prompt, description: row.description }, { runId: row.parent_run_id, conversationId: ctx.conversationId, callId: row.parent_call_id, signal: live.controller.signal, parks: true, attended: live.attended })
      .catch(() => this.opts.subagents.get(id)!);
    live.pending.set(id, done);
    return done;
  }

  private spawnChild(live: Live, a: Record<string, unknown>, seq: number): Promise<SubagentRow> {
    const prompt = typeof a.prompt === 'string' ? a.prompt.trim() : '';
    if (!prompt) throw new Error('agent/spawn needs a prompt: the whole task for the child');
    const { ctx } = live;
    // One child per call of the script: the same call replayed after a park rejoins the child it started.
    const callId = `${ctx.callId}#${seq}`;
    const earlier = this.opts.subagents.list(ctx.conversationId).some((r) => r.parent_run_id === ctx.runId && r.parent_call_id === callId);
    if (!earlier) this.count(live, 1);
    const done = this.opts.subagents.spawn(
      {
        prompt,
        description: String(a.description ?? prompt.split('\n')[0]).slice(0, 120),
        ...(typeof a.type === 'string' && TYPE_NAME.test(a.type) ? { type: a.type } : {}),
        ...(a.result_schema !== undefined ? { resultSchema: a.result_schema } : {}),
        limits: this.childLimits(live, a),
      },
      { runId: ctx.runId, conversationId: ctx.conversationId, callId, signal: live.controller.signal, parks: true, attended: live.attended },
    );
    // The child's row is written before spawn's first await: found by its call id.
    const row = this.opts.subagents.list(ctx.conversationId).find((r) => r.parent_call_id === callId);
    if (!row) return done.then((r) => r);
    live.children.add(row.id);
    live.pending.set(row.id, done.catch(() => this.opts.subagents.get(row.id)!));
    this.publish(live.row.id);
    return Promise.resolve(row);
  }

  private count(live: Live, n: number): void {
    const row = this.rows.get(live.row.id)!;
    if (row.agents + n > live.limits.maxAgents) throw new Error(`this would start agent ${row.agents + n} of at most ${live.limits.maxAgents} (max_agents)`);
    this.rows.update(row.id, { agents: row.agents + n });
  }

  private childLimits(live: Live, a: Record<string, unknown>): Partial<SubagentLimits> {
    const left = Math.max(1, live.limits.maxMinutes - (Date.now() - live.started) / 60_000);
    return {
      maxMinutes: Math.min(Number(a.max_minutes) || left, left),
      maxTokens: Math.min(Number(a.max_tokens) || live.limits.maxTokens, live.limits.maxTokens),
      maxCostUSD: Math.min(Number(a.max_cost_usd) || live.limits.maxCostUSD, live.limits.maxCostUSD),
    };
  }

  private mine(live: Live, id: unknown): void {
    if (typeof id !== 'string' || !live.children.has(id)) throw new Error(`${String(id)} is not an agent this workflow spawned`);
  }

  private async ask(live: Live, a: Record<string, unknown>): Promise<string> {
    const open = live.ctx.openBackgroundRequest;
    if (!this.opts.questions || !open) throw new Error('this host cannot ask the person from a workflow');
    const question = String(a.question ?? '').trim();
    if (!question.endsWith('?')) throw new Error('ask(question, options) needs a question ending with "?"');
    const given = Array.isArray(a.options) ? a.options.map(String).slice(0, 4) : [];
    const options = (given.length >= 2 ? given : ['Yes', 'No']).map((label) => ({ label, description: label }));
    const data = { questions: [{ question, header: null, options, multiSelect: false }] };
    const { task } = this.opts.questions.startQuestion({
      conversationId: live.ctx.conversationId,
      runId: live.ctx.runId,
      callId: live.ctx.callId,
      title: question.slice(0, 200),
      open: (taskId) => open({ kind: 'question', description: 'A workflow asks you a question', prompt: question, data, taskId }),
    });
    this.rows.event(live.row.id, 'ask', question);
    const store = this.opts.store;
    const ended = await new Promise<TaskRow>((resolve, reject) => {
      const check = () => {
        const t = store.tasks.getTask(task.id);
        if (t && t.status !== 'running') {
          clearInterval(poll);
          resolve(t);
        }
      };
      const poll = setInterval(check, 200);
      live.controller.signal.addEventListener('abort', () => (clearInterval(poll), reject(new Error('the workflow stopped'))), { once: true });
    });
    // The answer goes to the script, not to the conversation as a wake-up.
    store.tasks.claimNotifications([task.id]);
    const progress = JSON.parse(ended.progress ?? '{}') as { output?: string | null };
    if (ended.status !== 'finished') throw new Error(`the person did not answer (${ended.summary ?? ended.status})`);
    return progress.output ?? '';
  }
}
