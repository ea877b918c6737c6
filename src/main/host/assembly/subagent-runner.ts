/**
 * Wires the subagent service into the runtime: the runner that runs a child's turns through the same loop (with its
 * parent's provider), the families a child starts with, and the step hook that hands a child
 * its steering messages before its next model call.
 */
import { DeskhandError } from '../../../shared/errors';
import { WaitingForPeople } from '../../../shared/waiting';
import type { Runtime } from '../../runtime/runtime';
import { PersistentConversationState } from '../../runtime/context/conversation-state';
import { enabledFamiliesOf } from '../../runtime/prompt/tool-families';
import { KEY_ENV, PROVIDERS, isProviderName, type ProviderConfig, type ProviderName } from '../../services/providers/config';
import type { Records, RunRow, SubagentRow } from '../../runtime/records';
import type { ChildAgent, ChildOutcome, ChildRunOptions, SubagentRunner, SubagentService } from '../../services/subagents/subagent-service';
import type { RunEvent } from '../../../shared/events';
import type { RunOutcome } from '../../runtime/runtime';
import { steeringText, type PolicyName } from '../../services/subagents/index';

export interface SubagentWiring {
  /** The provider for a child whose parent run is not driven by this process (from the parent run's row). */
  provider?(parentRun: RunRow): ProviderConfig | Promise<ProviderConfig>;
  /**
   * A foreground child parked by a caller that is not a run (a workflow's script): resumes that caller, which rejoins
   * the child; settles when the caller ends or parks again. Null: the child is no such caller's.
   */
  resumeCaller?(child: SubagentRow, attended: boolean): Promise<unknown> | null;
  /**
   * A provider other than the parent's, as configured here (its key, its base URL), for a child given its own
   * `provider`; null when it is not configured. Default: from the environment (envProvider).
   */
  otherProvider?(name: ProviderName): Omit<ProviderConfig, 'model'> | null;
}

/** The conversation state slot holding a child's own model (spawn_subagent `model`/`provider`). */
export const CHILD_MODEL_SLOT = 'subagent_model';

/** The conversation state slot holding the agent definition a child runs as (its system prompt; services/agents). */
export const CHILD_AGENT_SLOT = 'subagent_agent';

/** Claude Code's model aliases in agent definitions (`model: sonnet`), as Anthropic model names. */
const CLAUDE_MODEL_ALIASES: Record<string, string> = { sonnet: 'claude-sonnet-4-5', opus: 'claude-opus-4-1', haiku: 'claude-haiku-4-5' };

/** The agent definition of a child conversation, from its state slot (null: none, or not a child). */
export function childAgentOf(slots: Readonly<Record<string, unknown>>): ChildAgent | null {
  const v = slots[CHILD_AGENT_SLOT] as Partial<ChildAgent> | undefined;
  return v && typeof v.name === 'string' && typeof v.prompt === 'string' && typeof v.path === 'string' && (v.origin === 'person' || v.origin === 'plugin' || v.origin === 'project') ? (v as ChildAgent) : null;
}

/**
 * A provider configured in the environment: anthropic and openai with their key variable (and ANTHROPIC_BASE_URL /
 * OPENAI_BASE_URL when set); openai-compatible needs a base URL, so only OPENAI_COMPATIBLE_BASE_URL configures it.
 */
export function envProvider(name: ProviderName, env: NodeJS.ProcessEnv = process.env): Omit<ProviderConfig, 'model'> | null {
  if (name === 'openai-compatible') {
    const baseURL = env.OPENAI_COMPATIBLE_BASE_URL;
    return baseURL ? { provider: name, baseURL, apiKey: env.OPENAI_COMPATIBLE_API_KEY ?? null } : null;
  }
  const key = env[KEY_ENV[name]!];
  if (!key) return null;
  const baseURL = name === 'anthropic' ? env.ANTHROPIC_BASE_URL : env.OPENAI_BASE_URL;
  return { provider: name, apiKey: key, ...(baseURL ? { baseURL } : {}) };
}

/** The host a provider's requests go to: its base URL's, or the provider's own API host. */
export function providerHost(p: Omit<ProviderConfig, 'model'>): string | null {
  if (p.baseURL) {
    try {
      return new URL(p.baseURL).host;
    } catch {
      return null;
    }
  }
  return p.provider === 'anthropic' ? 'api.anthropic.com' : p.provider === 'openai' ? 'api.openai.com' : null;
}

function notConfigured(name: ProviderName): string {
  return name === 'openai-compatible'
    ? 'openai-compatible is not configured here (set OPENAI_COMPATIBLE_BASE_URL, or leave out provider to use your own)'
    : `${name} is not configured here (set ${KEY_ENV[name]}, or leave out provider to use your own)`;
}

export function wireSubagents(runtime: Runtime, subagents: SubagentService, wiring: SubagentWiring = {}): () => void {
  const { records, registry } = runtime;
  const runner: SubagentRunner = {
    parent(runId) {
      const run = records.getRun(runId);
      const conv = run && records.getConversation(run.conversation_id);
      if (!run || !conv) return null;
      const state = new PersistentConversationState(conv.folder, conv.state);
      const set = registry.toolSet({ conversationId: conv.id, policy: run.policy, revealed: state.revealedTools, slots: state.slots, enabled: enabledFamiliesOf(state.slots) });
      return {
        conversationId: conv.id,
        folder: conv.folder,
        cwd: state.cwd,
        roots: [...state.workspaceRoots],
        sandbox: conv.sandbox,
        policy: run.policy as PolicyName,
        tainted: run.tainted === 1 || conv.tainted === 1,
        tools: set.specs.map((s) => {
          const tool = registry.lookup(s.name);
          return { name: tool?.name ?? s.name, risk: tool?.risk ?? 'unknown', parentOnly: tool?.facts?.parentOnly === true, ...(tool?.claudeCodeName ? { claudeName: tool.claudeCodeName } : {}), ...(tool?.facts?.roles ? { roles: tool.facts.roles } : {}) };
        }),
      };
    },
    createChild(input) {
      const conv = runtime.createConversation({ folder: input.folder, policy: input.policy, title: input.title, sandbox: input.sandbox as never });
      const state = new PersistentConversationState(input.folder, '{}');
      state.cwd = input.cwd;
      state.workspaceRoots = [...input.roots];
      if (input.model) state.slots[CHILD_MODEL_SLOT] = input.model;
      if (input.agent) state.slots[CHILD_AGENT_SLOT] = input.agent;
      records.updateConversation(conv.id, { state: state.serialize(), ...(input.tainted ? { tainted: 1, taint_only: null } : {}) });
      return conv.id;
    },
    async run(conversationId, message, opts) {
      const { provider, interactive } = await childTurn(opts, conversationId);
      const outcome = await runtime.sendMessage(conversationId, message, childOptions(provider, interactive, opts));
      return outcomeOf(outcome);
    },
    async resume(conversationId, opts) {
      const last = records.latestRunForConversation(conversationId);
      if (!last) throw new DeskhandError('not_found', 'The child has no turn to continue.');
      if (last.status !== 'parked') return { status: last.status, ...(last.error ? { error: last.error } : {}) };
      const { provider, interactive } = await childTurn(opts, conversationId);
      return outcomeOf(await runtime.resume(last.id, childOptions(provider, interactive, opts)));
    },
    lastText(conversationId) {
      const last = records.listMessages(conversationId).filter((m) => m.role === 'assistant').at(-1);
      if (!last) return '';
      const content = JSON.parse(last.content) as unknown;
      if (typeof content === 'string') return content;
      return (content as { type?: string; text?: string }[]).filter((p) => p.type === 'text').map((p) => p.text ?? '').join('');
    },
    tainted(conversationId) {
      return records.getConversation(conversationId)?.tainted === 1;
    },
    checkModel(parentRunId, asked) {
      const parentRun = records.getRun(parentRunId);
      const own = runtime.liveRunOptions(parentRunId)?.provider.provider ?? parentRun?.provider;
      // Claude Code's aliases in an agent definition: Anthropic's models there, the parent's own model elsewhere.
      const alias = asked.provider === undefined ? CLAUDE_MODEL_ALIASES[asked.model] : undefined;
      if (alias) return { model: own === 'anthropic' ? alias : (runtime.liveRunOptions(parentRunId)?.provider.model ?? parentRun?.model ?? alias) };
      if (asked.provider === undefined || asked.provider === own) return { model: asked.model };
      if (!isProviderName(asked.provider)) throw new DeskhandError('usage', `Unknown provider "${asked.provider}": use one of ${PROVIDERS.join(', ')}, or leave it out for your own.`);
      if (!otherProvider(asked.provider)) throw new DeskhandError('usage', `The child cannot use ${asked.provider}: ${notConfigured(asked.provider)}.`);
      return { provider: asked.provider, model: asked.model };
    },
    childProvider(conversationId, asked) {
      const run = records.latestRunForConversation(conversationId);
      const own = (run ? runtime.liveRunOptions(run.id)?.provider.provider : undefined) ?? run?.provider;
      if (asked === own) return null;
      const other = isProviderName(asked) ? otherProvider(asked) : null;
      return { provider: asked, host: other ? providerHost(other) : null };
    },
    attended(runId) {
      return runtime.liveRunOptions(runId)?.interactive ?? true;
    },
    stopParked(conversationId) {
      const last = records.latestRunForConversation(conversationId);
      if (last?.status === 'parked') runtime.stopParked(last.id);
    },
  };
  const otherProvider = (name: ProviderName) => (wiring.otherProvider ?? envProvider)(name);
  const childModelOf = (conversationId: string): { provider?: string; model: string } | null => {
    const conv = records.getConversation(conversationId);
    const v = conv ? new PersistentConversationState(conv.folder, conv.state).slots[CHILD_MODEL_SLOT] : undefined;
    return v && typeof v === 'object' && typeof (v as { model?: unknown }).model === 'string' ? (v as { provider?: string; model: string }) : null;
  };
  /** The provider of the run that resumes a parked background child here (its parent is not running in this process). */
  const resumeProviders = new Map<string, ProviderConfig>();
  /** The parent's model, and whether the child waits for its approvals (its parent waits) or parks (its parent would). */
  const childTurn = async (opts: ChildRunOptions, conversationId: string): Promise<{ provider: ProviderConfig; interactive: boolean }> => {
    const parentRun = opts.parentRunId ? records.getRun(opts.parentRunId) : undefined;
    const live = opts.parentRunId ? runtime.liveRunOptions(opts.parentRunId) : undefined;
    let provider = live?.provider ?? resumeProviders.get(conversationId) ?? (parentRun && wiring.provider ? await wiring.provider(parentRun) : undefined);
    if (!provider) throw new DeskhandError('conflict', 'The parent run is not running in this process, so its model is unknown.');
    const chosen = childModelOf(conversationId);
    if (chosen) {
      // The child's own model: on its parent's provider, or on another configured one (checked again: settings change).
      if (!chosen.provider || chosen.provider === provider.provider) provider = { ...provider, model: chosen.model };
      else {
        const other = isProviderName(chosen.provider) ? otherProvider(chosen.provider) : null;
        if (!other) throw new DeskhandError('usage', `The child's provider ${chosen.provider} is not configured here any more.`);
        provider = { ...other, model: chosen.model };
      }
    }
    // A background child has no call to park with, nor a child of a caller that cannot run again (a workflow script, a
    // Tower worker): they wait. A foreground child of spawn/map_subagents parks when its parent's run would.
    // A background child parks when nobody could answer the run that started (or resumed) it: any process resumes it.
    // So does a foreground child whose parent run is not driven here (a workflow's: its script replays when answered).
    if (opts.background || (!live && opts.parks)) return { provider, interactive: opts.attended };
    return { provider, interactive: !opts.parks || !live || live.interactive };
  };
  // A child's requests reach whoever answers its parent's inline (the CLI's terminal), through every level.
  const forward = (opts: ChildRunOptions) => (e: Extract<RunEvent, { type: 'approval.requested' | 'input.requested' }>) => {
    if (opts.parentRunId) runtime.liveRunOptions(opts.parentRunId)?.onChildRequest?.(e);
  };
  const childOptions = (provider: ProviderConfig, interactive: boolean, opts: ChildRunOptions) => ({
    provider,
    interactive,
    signal: opts.signal,
    onEvent: (e: RunEvent) => {
      if (e.type === 'usage') opts.onUsage(e.usage.inputTokens, e.usage.outputTokens);
      if (interactive && (e.type === 'approval.requested' || e.type === 'input.requested')) forward(opts)(e);
    },
    onChildRequest: forward(opts),
    // A foreground child's run start and end are synced by its parent's call result (RunOptions.syncedByParent).
    ...(opts.background ? {} : { syncedByParent: true }),
  });
  subagents.attach(runner);
  // An answer to a parked child's request resumes the top of its parked tree, which runs down to the child again.
  const offRoot = runtime.setParkedRoot((runId) => parkedRoot(records, subagents, runId));
  // A parked parent that is stopped or replaced takes its parked children with it: rows cancelled, runs stopped.
  const offParkedEnd = runtime.addParkedEndHook((run, reason) => void subagents.endParked(run.id, reason));
  // An answer to a parked background child (its parent's run is not parked with it): the service continues it here.
  const offOwn = runtime.setParkedResume((runId, options) => {
    const run = records.getRun(runId);
    const row = run && subagents.byConversation(run.conversation_id);
    if (!row || row.status !== 'parked') return null;
    if (row.background !== 1) {
      // A workflow's child: its script replays here (answered from its journal) and rejoins the child.
      const caller = wiring.resumeCaller?.(row, options.interactive ?? false);
      if (!caller) return null;
      // Settled when the workflow ended or parked again: what it is now is its task's (ended: a wake-up for the top
      // conversation; parked: the CLI parks on it), so the answer's own part is done ('finished').
      return caller.then(() => {
        const last = records.latestRunForConversation(row.conversation_id)!;
        return { runId: last.id, conversationId: last.conversation_id, status: 'finished' as const, approvalIds: [] };
      });
    }
    resumeProviders.set(row.conversation_id, options.provider);
    return subagents
      .resumeParked(row.id, options.interactive ?? false)
      .catch((err: unknown) => {
        if (!WaitingForPeople.isInstance(err)) throw err;
      })
      .then(() => {
        const last = records.latestRunForConversation(row.conversation_id)!;
        const open = last.status === 'parked' ? subagents.waitingRequests(subagents.get(row.id)!) : [];
        return { runId: last.id, conversationId: last.conversation_id, status: last.status, ...(last.error ? { error: last.error } : {}), approvalIds: open };
      })
      .finally(() => resumeProviders.delete(row.conversation_id));
  });
  // The ceiling itself (the parent's tools, its plan mode, policy, taint) is the subagents' hold, registered with the
  // services (tools/subagents/hold.ts, declared there; host/assembly/holds.ts), so `policy explain` judges a child's call as its run does.
  // A child starts with its ceiling loaded (what its parent had loaded): the families of those tools are enabled.
  const offEnabler = registry.addEnabler('subagent-ceiling', (turn) => {
    const ceiling = subagents.ceilingOf(turn.conversationId);
    return ceiling ? [...new Set([...ceiling].map((n) => registry.familyOf(n)).filter((f): f is string => !!f))] : [];
  });
  const offHook = runtime.addStepHook(async (run, conv, options) => {
    // A paused child (steer_subagent pause) makes no model request until it is resumed or stopped.
    await subagents.untilResumed(conv.id, options.signal);
    for (const { message, from } of subagents.takeSteering(conv.id)) records.addMessage(conv.id, run.id, 'user', steeringText(from, message));
  });
  return () => {
    offEnabler();
    offHook();
    offRoot();
    offParkedEnd();
    offOwn();
  };
}

function outcomeOf(outcome: RunOutcome): ChildOutcome {
  return { status: outcome.status, ...(outcome.error ? { error: outcome.error } : {}), ...(outcome.status === 'parked' ? { approvalIds: outcome.approvalIds } : {}) };
}

/**
 * The run to resume when a parked run's requests are all answered: the highest ancestor whose call parked on it (a
 * foreground child parked with its parent's call), else the run itself. Resuming the top runs the parent's call again,
 * which rejoins the child and continues it: the whole tree resumes in the answering process.
 */
export function parkedRoot(records: Records, subagents: Pick<SubagentService, 'byConversation'>, runId: string): string {
  let current = runId;
  for (let depth = 0; depth < 16; depth++) {
    const run = records.getRun(current);
    const row = run && subagents.byConversation(run.conversation_id);
    if (!row || row.status !== 'parked' || !row.parent_run_id) return current;
    const parent = records.getRun(row.parent_run_id);
    if (!parent || parent.status !== 'parked') return current;
    current = parent.id;
  }
  return current;
}
