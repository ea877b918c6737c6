/**
 * The subagent service's protocol: what it needs of the runtime (the runner the host injects), what a child's run is
 * given and gives back, the limits, and what the tools pass in (spawn, map) and get out (a wait's result). Types only.
 */
import type { Store } from '../store/store';
import type { SubagentRow } from '../store/modules/subagents';
import type { ExternalTasks } from '../tasks/external-tasks';
import type { PolicyName, SubagentType } from './profiles';

/** What the service needs of the runtime (the host implements it over the real runtime). */
export interface SubagentRunner {
  /** The parent's turn as a child inherits it, or null for an unknown run. */
  parent(runId: string): { conversationId: string; folder: string; cwd: string; roots: string[]; sandbox: string; policy: PolicyName; tainted: boolean; tools: { name: string; risk: string; parentOnly?: boolean; claudeName?: string; roles?: readonly string[] }[] } | null;
  createChild(input: { folder: string; cwd: string; roots: string[]; policy: PolicyName; sandbox: string; title: string; tainted: boolean; model?: ChildModel; agent?: ChildAgent }): string;
  /**
   * Checks a child's own model before anything is created: another model of the parent's provider, or any configured
   * provider's. Throws a message the model can act on (the provider is not configured here, and what configures it).
   */
  checkModel?(parentRunId: string, asked: ChildModel): ChildModel;
  /**
   * Where a child on `provider` would send what it is given, when that is not the conversation's own provider: the
   * provider and its host (null when it is not configured here). Null: the conversation's own provider.
   */
  childProvider?(conversationId: string, provider: string): { provider: string; host: string | null } | null;
  /**
   * Runs one turn of a child conversation to its end. Its approvals wait for a person when its parent's run waits
   * (they surface in the parent's UI); when the parent's run would park (nobody can answer: `deskhand run --json`),
   * a foreground child parks too and says on which requests (`approvalIds`).
   */
  run(conversationId: string, message: string, opts: ChildRunOptions): Promise<ChildOutcome>;
  /** Continues the child's latest turn: a parked one is resumed here (or parks again); an ended one says how it ended. */
  resume(conversationId: string, opts: ChildRunOptions): Promise<ChildOutcome>;
  lastText(conversationId: string): string;
  tainted(conversationId: string): boolean;
  /** A person can answer this run's requests now (its live options are interactive); unknown runs count as attended. */
  attended?(runId: string): boolean;
  /** Stops the child conversation's parked run (the child ended while parked: cancelled, its parent stopped). */
  stopParked?(conversationId: string): void;
}

/** The agent definition a child runs as: its instructions become the child's system prompt (a project's as untrusted content). */
export interface ChildAgent {
  name: string;
  prompt: string;
  origin: 'person' | 'plugin' | 'project';
  path: string;
}

/** The agent definitions a spawn may name as its type (services/agents, injected by the host). */
export interface AgentDefinitions {
  (name: string, roots: readonly string[]): { name: string; tools: string[] | null; model: string | null; prompt: string; origin: ChildAgent['origin']; path: string } | null;
  names(roots: readonly string[]): string[];
}

/** A child's own model (spawn_subagent / map_subagents `model`, optional `provider`); absent: its parent's. */
export interface ChildModel {
  provider?: string;
  model: string;
}

export interface ChildRunOptions {
  parentRunId: string | null;
  background: boolean;
  /** The parent's call can park with the child (spawn_subagent, map_subagents): else the child waits for answers. */
  parks: boolean;
  /**
   * A background child: whether a person can answer its requests here (its parent run could when it started it, or
   * the run that resumes it can). When nobody can, it parks instead of waiting, and any process resumes it.
   */
  attended: boolean;
  signal: AbortSignal;
  onUsage(input: number, output: number): void;
}

export interface ChildOutcome {
  status: string;
  error?: string;
  /** When parked: the requests (its own, or its descendants') it waits for. */
  approvalIds?: readonly string[];
}

export interface SubagentLimits {
  maxMinutes: number;
  maxTokens: number;
  maxCostUSD: number;
}

export interface SubagentServiceOptions {
  store: Store;
  tasks: Pick<ExternalTasks, 'register' | 'start' | 'finish' | 'update'>;
  dataDir: string;
  /** Children of one conversation tree running at once; more wait in a queue. */
  maxLive?: number;
  /** Ceilings for every child (a call may ask for less). */
  limits?: Partial<SubagentLimits>;
  /** USD per million tokens, for the cost estimate and limit. */
  prices?: { input: number; output: number };
}

export interface SubagentCallContext {
  runId: string;
  conversationId: string;
  callId: string;
  signal: AbortSignal;
  /**
   * The calling tool runs again when its run resumes (spawn_subagent, map_subagents): a foreground child may then park
   * with it instead of waiting. Callers that cannot be run again (a workflow script, a Tower worker) leave it unset.
   */
  parks?: boolean;
  /**
   * Whether a person can answer this caller's children when its run is not driven here (a workflow script: whether
   * one could answer the run that started or resumed it). Unset: they wait (or, under a live parent run, do as it does).
   */
  attended?: boolean;
}

export interface SpawnInput {
  prompt: string;
  description: string;
  /** A built-in type (coder, explore, researcher, general) or an agent definition's name. */
  type?: SubagentType | (string & {});
  background?: boolean;
  resume?: string;
  resultSchema?: unknown;
  limits?: Partial<SubagentLimits>;
  /** The child's own model (default: its parent's). */
  model?: ChildModel;
  /** Where the child works instead of its parent's folder (a Tower worker's git worktree): folder, cwd and roots. */
  workspace?: { folder: string; cwd: string; roots: string[] };
  /**
   * A caller's role for the child (a Tower worker or reviewer whose `type` the model chose): the type — an agent
   * definition or a built-in — is held within this built-in type's profile (its tools and policy cap), and the
   * parent's tools that declare `keepRole` (facts.roles: the role's own tools, e.g. tower_send) stay whatever the
   * type's tools say.
   */
  within?: { type: SubagentType; keepRole?: string };
}

export interface MapInput {
  promptTemplate: string;
  items: string[];
  /** Earlier children of this conversation (ended) to continue in the same batch, each with `resumePrompt`. */
  resumeIds?: string[];
  resumePrompt?: string;
  description: string;
  /** A built-in type (coder, explore, researcher, general) or an agent definition's name. */
  type?: SubagentType | (string & {});
  resultSchema?: unknown;
  maxConcurrency?: number;
  limits?: Partial<SubagentLimits>;
  /** The new children's own model (resumed ones keep theirs). */
  model?: ChildModel;
}

export interface WaitResult {
  finished: SubagentRow[];
  running: SubagentRow[];
  timedOut: boolean;
}

/** Spec II: a child times out after 2 hours by default. */
