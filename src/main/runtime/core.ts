/**
 * What the runtime's parts share: the store, the live registry, the redactor every sink goes through, the input
 * kinds, the vault, the waiters, and the one place events leave (redacted). Built once by `Runtime`.
 */
import type { ContextDisclosure, PeerCeiling } from './decision/peer-ceiling';
import { DecisionBook } from './decision/decision-book';
import type { LanguageModel } from 'ai';
import type { RunEvent, RunStatus } from '../../shared/events';
import type { ConversationRow, RunRow, Store } from '../services/store/store';
import type { ProviderConfig } from '../services/providers/providers';
import type { Vault } from '../services/vault/vault';
import type { AppGrants } from './decision/approval-engine';
import type { AnswerWaiters } from './loop/answer-waiters';
import type { BackgroundAnswer, InputKinds } from './loop/input-kinds';
import type { ToolRegistry } from './registry';
import type { SecretRedactor } from './context/redaction';
import { sanitizeEvent } from './decision/call-security';
import type { RunLaterPath } from './decision/path-guard';
import type { ContentReader } from '../../shared/content-reader';
import { GuardedContentReader } from './context/content-reader';
import { ProjectInstructions } from './context/project-instructions';
import { instructionPinsModule } from '../services/store/modules/instruction-pins';
import type { EditorFiles } from './tool';
import type { LifecycleHooks } from '../../shared/lifecycle-hooks';
import type { PromptCommands } from '../../shared/prompt-commands';

export interface RunOptions {
  provider: ProviderConfig;
  /** Can a person answer approvals while this run waits? If not, the run parks. */
  interactive: boolean;
  signal?: AbortSignal;
  onEvent?: (event: RunEvent) => void;
  /**
   * The requests (approvals, questions) of this run's subagents, at any depth, for a host that answers them where it
   * answers the run's own (the CLI's terminal); the app shows them from the store instead.
   */
  onChildRequest?: (event: Extract<RunEvent, { type: 'approval.requested' | 'input.requested' }>) => void;
  /**
   * A foreground subagent's run: its start and its end are committed without an fsync, since its answer becomes its
   * parent's call result, a full commit that syncs them (docs/performance.md, Durability). Its calls that act on the
   * world still sync the store first.
   */
  syncedByParent?: boolean;
}

export interface RunOutcome {
  runId: string;
  conversationId: string;
  status: RunStatus;
  error?: string;
  approvalIds: string[];
}

/**
 * What a family adds to a turn's system prompt (recalled memory, the scratchpad, the pinned plan, the goal). Whatever
 * it returns is context, never authority: tools, policy and approvals are decided elsewhere. A block with
 * `untrustedSource` carries content a third party may have written (recalled agent-written memory): the run that
 * reads it becomes tainted.
 */
export type ContextBlock = string | { text: string; untrustedSource: string };

export type { ContextDisclosure, ContextReveal } from './decision/peer-ceiling';

export interface ContextSource {
  /** For messages and tests: what the block is. */
  name: string;
  discloses: ContextDisclosure;
  block(turn: { conversationId: string; folder: string; slots: Readonly<Record<string, unknown>>; lastUserText: string }): ContextBlock | null;
}

export interface RuntimeLimits {
  dataDir: string;
  modelFactory: (cfg: ProviderConfig) => LanguageModel;
  idleTimeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  /** The longest one wait before a retry may be, a provider's `retry-after` included. */
  maxRetryDelayMs: number;
  maxSteps: number;
  contextWindow: number;
  /** Text appended to a conversation's system prompt (an agent profile's instructions). */
  systemAddendum?: (conversationId: string) => string | null;
  /** Share of the context window at which history is compacted (context.ts). */
  compactAt: number;
  /** Tool results longer than this are stored in full and the model gets a head, a tail and an id. */
  offloadChars: number;
  /** Run-later files known at run time (a trusted project MCP server's scripts): writes to them always ask. */
  runLater?: () => readonly RunLaterPath[];
}

/** Runs before each model call of a run (compaction, a subagent's steering messages); may add messages. */
export type StepHook = (run: RunRow, conv: ConversationRow, options: RunOptions) => void | Promise<void>;

/**
 * Watches what a step's calls change on disk (the change ledger): called before the calls of a step that may change
 * files (writes, processes, tools from outside), with the conversation's writable roots; what it returns is called
 * once they all ended. Must not throw into the run: the runtime swallows its errors.
 */
export type StepFilesWatcher = (scope: { conversationId: string; runId: string; step: number; roots: readonly string[] }) => Promise<(() => Promise<void>) | null>;

export class RuntimeCore {
  private readonly listeners = new Set<(e: RunEvent) => void>();
  /** The options of the runs this process drives now (a subagent inherits its parent's provider from here). */
  readonly live = new Map<string, RunOptions>();
  readonly stepHooks = new Set<StepHook>();
  /** What records the files each step changes (the change ledger; StepFilesWatcher). */
  readonly fileWatchers = new Set<StepFilesWatcher>();
  /** Whether the change ledger records every one of these roots and keeps what the writes replace (so the change can be taken back); null: nothing records. */
  recordsRoots: ((roots: readonly string[], writes?: readonly string[]) => boolean) | null = null;
  /**
   * Called when a parked run ends without being resumed (stopped by the person, replaced by a new message): what
   * parked with it (a subagent parked with its call) ends too. The host's subagent wiring registers one.
   */
  readonly parkedEndHooks = new Set<(run: RunRow, reason: string) => void>();
  /** Editors serving conversations' files (`deskhand acp`), by conversation id (tool.ts EditorFiles). */
  readonly editors = new Map<string, EditorFiles>();
  /**
   * The run to resume when a parked run's last request is answered: itself, or the top of the parked tree it belongs
   * to (a subagent parked with its parent's call; the host's subagent wiring knows the links).
   */
  parkedRoot: (runId: string) => string = (runId) => runId;
  /**
   * Resumes a parked run that is not the runtime's to drive on its own (a background subagent: its service runs it),
   * or returns null to let the runtime resume it.
   */
  parkedResume: (runId: string, options: RunOptions) => Promise<RunOutcome> | null = () => null;
  /** Lifecycle hooks (the host's HookService; hook-calls.ts fires them), or null. */
  hooks: LifecycleHooks | null = null;
  /** Slash commands a message may start with (the host's services/commands catalog; slash-commands.ts), or null. */
  commands: PromptCommands | null = null;
  /** AGENTS.md / CLAUDE.md files for the system prompt, read through the guarded reader (project-instructions.ts). */
  readonly instructions: ProjectInstructions;

  constructor(
    readonly store: Store,
    readonly registry: ToolRegistry,
    readonly redactor: SecretRedactor,
    readonly vault: Vault | null,
    readonly inputKinds: InputKinds,
    readonly waiters: AnswerWaiters,
    readonly limits: RuntimeLimits,
    readonly grants: AppGrants | undefined,
    /** Where answers to background tasks' requests go (the host's task service). */
    readonly onBackgroundAnswer?: (answer: BackgroundAnswer) => void | Promise<void>,
    /** Blocks families add to each turn's system prompt. */
    readonly contextSources: readonly ContextSource[] = [],
    reader?: ContentReader,
    /** The inspectors and holds every call's decision goes through (decision-book.ts). */
    readonly decisions: DecisionBook = new DecisionBook(registry),
  ) {
    this.instructions = new ProjectInstructions(reader ?? new GuardedContentReader({ dataDir: limits.dataDir }), limits.dataDir, store.module(instructionPinsModule));
  }

  readonly #models = new WeakMap<ProviderConfig, LanguageModel>();

  /** The provider's model for a run's configuration: made once per configuration object (a run's steps share it). */
  model(cfg: ProviderConfig): LanguageModel {
    let model = this.#models.get(cfg);
    if (!model) this.#models.set(cfg, (model = this.limits.modelFactory(cfg)));
    return model;
  }

  /**
   * The peer ceiling context is judged by: the conversation's own (a peer started it), or one it inherits (a subagent
   * of a peer's conversation), or null — as the registered holds say.
   */
  contextCeilingOf(conversationId: string): PeerCeiling | null {
    return this.decisions.contextCeilingOf(conversationId);
  }

  onEvent(listener: (e: RunEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every event leaves through here, redacted (streamed text and output went through their stream redactors). */
  emit(options: Pick<RunOptions, 'onEvent'> | undefined, raw: RunEvent): void {
    const event = sanitizeEvent(raw, this.redactor);
    options?.onEvent?.(event);
    for (const l of this.listeners) l(event);
  }
}
