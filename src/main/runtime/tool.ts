/**
 * The tool contract. A tool is one module returning a `ToolDefinition`: its name, the description the model reads,
 * its input (zod, or JSON Schema for tools that arrive at run time), a risk tier, one `effects(args)` declaration of
 * what a call would touch, how it is presented, and — for tools that need a person — an input request. Validation,
 * inspection, approval, redaction, truncation and persistence happen once, in the runtime's call pipeline.
 *
 * Tools get services from their family's factory (injected interfaces), never from this context: `ToolContext` carries
 * per-call data only.
 */
import type { z } from 'zod';
import type { DeclaredRisk, Disclosure, RiskTier } from '../../shared/tools';
import type { SandboxMode } from '../../shared/sandbox';
import type { RulePart } from '../../shared/rules';
import type { ToolPresentationView, ResultHint, ToolIcon } from '../../shared/tool-presentation';
import type { PathCheck, PathSpec, RunLaterPath } from './decision/path-guard';
import type { InstructionsReport } from './context/project-instructions';
import type { UsageCause } from '../../shared/usage';
import type { CallUsage } from './loop/usage-meter';

export type { PathSpec, RunLaterPath };

/** A family's own judgement of one call (the shell family's command classifier). Printed by `policy explain`. */
export interface Classification {
  risk: RiskTier;
  reasons: string[];
  /**
   * The exact pattern an "always allow" rule may cover for this call (e.g. a single safe command), or null when no
   * rule may be saved (compound commands, anything high-risk the classifier could not prove).
   */
  rulePattern?: string | null;
  /**
   * The parts of a command an always-allow rule may cover (shared/rules.ts). When present, the engine offers and
   * matches rules per part: parts the policy clears need none, every other part must be covered.
   */
  ruleParts?: readonly RulePart[];
  /** Set when the call must ask under every policy (e.g. it writes Deskhand's own data); the reason is shown. */
  alwaysAsk?: string | null;
  /** Set when the call is refused under every policy, high-risk included (the shell family's denylist); the reason is shown. */
  deny?: string | null;
  /** The call contacts other machines (a shell network client): asks under every policy once the run is tainted. */
  network?: boolean;
  /** Paths the classifier checked with the path guard (redirection targets, path arguments), for explain. */
  paths?: PathCheck[];
  /**
   * The command runs inside the OS sandbox with the network off and writes only in the workspace roots (mode
   * `workspace-write` or `read-only`): the confined inspector may let it run unasked (confined-inspector.ts).
   */
  confined?: { mode: SandboxMode };
}

/** What an app-using call needs of an app (computer use); checked against the person's grants. */
export interface AppUse {
  app: string;
  capability: 'observe' | 'pointer' | 'input' | 'foreground';
}

/**
 * Everything one call would touch, declared by the tool and judged by the runtime's inspectors. A tool declares only
 * what applies; absent fields touch nothing. Computed once per call, before the decision, and again just before
 * acting (paths must still lead where they led).
 */
export interface Effects {
  /** Paths read and written (for write, also what is removed or replaced), checked with the path guard. */
  paths?: PathSpec;
  /** URLs the call requests (method + URL when known); their hosts count as network. */
  urls?: readonly string[];
  /**
   * The addresses each URL host resolved to when the effects were computed (host → addresses), judged by the
   * url-guard inspector; a host missing here is judged by its name alone (and again at connect time).
   */
  addresses?: Readonly<Record<string, readonly string[]>>;
  /** Hosts contacted without a URL (a socket, a remote command). */
  hosts?: readonly string[];
  /** Desktop apps operated, with the capability each needs. */
  apps?: readonly AppUse[];
  /** Screens observed (`all`, or display ids). */
  screens?: readonly string[];
  /** Top-level arguments (strings, or flat string maps such as headers) that may carry `[redacted:NAME]` placeholders, substituted just before `execute`. */
  secretArgs?: readonly string[];
  /** How values are put into secretArgs: `shell` quotes each for where it sits in a shell command. Default plain. */
  secretQuoting?: 'shell' | 'none';
  /** The request itself sends material off the machine (Spec I "What leaves the machine"). */
  egress?: boolean;
  /** The call contacts other machines. */
  network?: boolean;
  /** The call starts processes. */
  processes?: boolean;
  /** The call schedules the agent to run again later (a wake trigger): in a tainted run it always asks. */
  wakesLater?: boolean;
  /** The family's own judgement of the call (required for tools whose tier is `unknown`). */
  assessment?: Classification;
  /**
   * The untrusted source this call's own answer carries (ask_peer: `peer alice`): in a conversation whose every
   * untrusted read came from that same source, an always-allow rule of the conversation covers the call even though
   * the run is tainted (approval-engine.ts, taint).
   */
  answerSource?: string;
  /**
   * The untrusted source naming the one party this call acts on (computer input into "zenity": `app zenity`, the
   * source computer_observe gives that app's outline): in a conversation tainted only by that party's own content,
   * the taint does not make the call ask (approval-engine.ts, taint); grants, rules and the policy still decide.
   */
  actsOnSource?: string;
}

/** Where a call would run: what `effects` may look at. */
export interface EffectsContext {
  cwd: string;
  workspaceRoots: readonly string[];
  dataDir: string;
  /** The conversation's sandbox mode (default `workspace-write`). */
  sandbox?: SandboxMode;
  /** The conversation the call belongs to (absent in `policy explain`): families with per-conversation state read it. */
  conversationId?: string;
  /** Files known at run time whose change makes something run later (a trusted project MCP server's scripts). */
  runLater?: readonly RunLaterPath[];
}
/** @deprecated name kept for the classifier's signature; same as EffectsContext. */
export type ClassifyContext = EffectsContext;

/** The proposing half of an approval pair: what will happen, shown to the person before anything acts. */
export interface Proposal {
  /** One line in plain words: "Write 12 lines to src/app.ts". */
  description: string;
  /** A unified diff for writes and edits; the exact command for commands; null when there is nothing to preview. */
  preview: string | null;
}

/**
 * Something the agent asks a person (a question, a file pick, a secret…): one input request of a registered kind.
 * The run waits for it (or parks), and `execute` runs with the validated answer in `ctx.answer`.
 */
export interface InputSpec {
  /** A kind registered with the runtime's input kinds (`question`, `file_pick`, `secret`…). */
  kind: string;
  /** One line in plain words, shown as the request's title. */
  description: string;
  /** The full prompt shown to the person. */
  prompt: string;
  /** What the UI needs to draw the request (the questions and options, the secret's name…). Never a secret value. */
  data: unknown;
}

/** A file read recorded so writes can refuse when the file changed on disk since the conversation read it. */
export interface FileSnapshot {
  path: string;
  mtimeMs: number;
  size: number;
  ino: number;
  /** sha256 of the content, for files small enough to hash (a same-size rewrite within one mtime tick is caught). */
  sha256?: string;
  /** 'editor': taken from the editor's buffer (EditorFiles), so only the content counts (the disk may lag behind). */
  source?: 'editor';
}

/** Per-conversation state that tools may read and change (persisted by the runtime after each step). */
export interface ConversationState {
  /** The current working directory (`cd` changes it). Always absolute. */
  cwd: string;
  /** The workspace roots: the conversation's working folder plus folders the person added. */
  readonly workspaceRoots: readonly string[];
  /** Folders and files the person picked (ask_file_picker): readable without asking, never writable because of it. */
  readonly readableRoots: readonly string[];
  addReadableRoots(paths: readonly string[]): void;
  getFileSnapshot(path: string): FileSnapshot | undefined;
  recordFileSnapshot(snapshot: FileSnapshot): void;
  todos: TodoItem[];
  workState: Record<string, unknown>;
  /** Deferred tools `search_tools` revealed in this conversation (offered to the model from then on). */
  readonly revealedTools: readonly string[];
  revealTools(names: readonly string[]): void;
  /**
   * Families' own per-conversation state by slot name (`scratchpad`, `plan_mode`, `pinned_plan`): persisted with the
   * conversation, outside its messages, so it survives compaction. Values must be JSON.
   */
  slots: Record<string, unknown>;
}

export interface TodoItem {
  id: string;
  title: string;
  status: 'pending' | 'in_progress' | 'done';
  priority?: 'low' | 'medium' | 'high';
}

/** Family state a tool changed, published to the UI as a typed event (never polled). */
export type StateUpdate = { slot: 'todos'; value: TodoItem[] };

/**
 * The person's editor as the file system of a conversation (`deskhand acp` with a client that offers `fs/*`): text
 * files are read from its buffers (unsaved changes included) and written through it. The file tools still resolve,
 * contain and approve every path first; this only replaces the bytes' source and sink. `readText` returns null when
 * the editor does not have the file (the disk is read then).
 */
export interface EditorFiles {
  readText?(absPath: string, signal: AbortSignal): Promise<string | null>;
  writeText?(absPath: string, content: string, signal: AbortSignal): Promise<void>;
  /** Who, for the result line ("the editor (Zed)"). */
  readonly name: string;
}

export interface ToolContext {
  readonly runId: string;
  readonly conversationId: string;
  readonly callId: string;
  /** Aborted when the run is stopped or the tool's timeout passes. Long work must honour it. */
  readonly signal: AbortSignal;
  readonly state: ConversationState;
  /** The conversation's sandbox mode for commands (default `workspace-write`). */
  readonly sandbox?: SandboxMode;
  /** The run (or its conversation) has read untrusted content, as of now. Absent outside the runtime. */
  readonly tainted?: boolean;
  /** Streams partial output (command stdout/stderr) to whoever watches the run. */
  progress(stream: 'stdout' | 'stderr', chunk: string): void;
  /**
   * Redacts text as this call's result will be redacted (the run's secrets and credential shapes). Tools that cut text
   * (read_file's long lines, grep's columns) redact first, so a cut credential is still recognised.
   */
  redact(text: string): string;
  /**
   * Files `redact` is known to leave unchanged (by path and content key), for tools that redact whole files to decide
   * what the model may see (grep). Absent outside the runtime: every file is then read and redacted.
   */
  readonly unchangedByRedaction?: import('./context/redaction').UnchangedFiles;
  /** Publishes family state the call changed (the todo list…) to every UI, as a typed event. */
  publish(update: StateUpdate): void;
  /**
   * Counts a model call the tool made itself (the media companion's) in the usage ledger, against this call's turn.
   * Absent outside the runtime.
   */
  readonly meter?: (cause: UsageCause, usage: CallUsage) => void;
  /** Context-window figures for `context_info`. */
  readonly usage: {
    inputTokens: number;
    outputTokens: number;
    contextWindow: number;
    messages: number;
    /** What the next request carries (estimated, after compaction), the threshold and how many compactions ran. */
    figures?(): { contextTokens: number; contextWindow: number; compactAtTokens: number; compactions: number };
    /** The project instruction files in the system prompt (AGENTS.md / CLAUDE.md): paths, sizes, cut, untrusted. */
    instructions?(): InstructionsReport;
  };
  /**
   * The path checks the approval engine decided this call on, by the absolute path the tool resolves. A tool that
   * opens a path verifies it still leads there (path-guard.ts `openVerified`). Absent outside the runtime.
   */
  readonly checkedPaths?: ReadonlyMap<string, PathCheck>;
  /** Where the call was decided to write (resolved), a command's redirects and arguments included. */
  readonly writePaths?: readonly string[];
  /** A person approved this call (not a policy, rule or grant): what they saw in the approval is cleared. */
  readonly approvedByPerson?: boolean;
  /** The reasons the call was decided on (what the person saw when they approved it). */
  readonly decisionReasons?: readonly string[];
  /** For tools with an input request: the person's answer, validated by its kind. */
  readonly answer?: unknown;
  /**
   * Opens an input request that belongs to a background task instead of this call: the call does not wait, and the
   * answer goes to the task (RuntimeOptions `onBackgroundAnswer`), never to this call or its run. Returns its id.
   */
  openBackgroundRequest?(spec: InputSpec & { taskId: string }): string;
  /** The conversation's editor, when one serves its files (EditorFiles); absent otherwise. */
  readonly editor?: EditorFiles;
  /**
   * Asks a person during the call (an MCP server's elicitation): an input request bound to this call (call-requests.ts).
   * A run a person drives waits for the answer, the call's timeout paused; otherwise the run parks and the call runs
   * again on resume, where the same question (`key`, in order) is answered from the store at once.
   */
  ask?(spec: InputSpec & { key: string }): Promise<CallAnswer>;
}

/** A person's answer to a request made during a call: the value its kind accepted, or why there is none. */
export type CallAnswer = { answered: true; value: unknown } | { answered: false; reason: string | null };

export interface ToolResult {
  /** The text the model reads. */
  output: string;
  /** When set, the output came from outside the person's workspace and is wrapped in an untrusted envelope. */
  untrustedSource?: string;
}

/** How a tool is shown: plain-words title, family icon, one-line call summary, how to render its result. */
export interface Presentation<A = unknown> {
  title: string;
  icon: ToolIcon;
  /** One line for the tool card, e.g. `src/app.ts (1–200)`. */
  summary?(args: A): string;
  /** The approval card's line of what will happen, in plain words, when the call asks (a reminder: when it rings). */
  ask?(args: A): string;
  /** One line for the finished card, from what the call did (a grant: what was granted, not what was asked). */
  doneSummary?(args: A, output: string): string | null;
  result?: ResultHint;
}

export type ToolKind = 'builtin' | 'mcp' | 'custom';

/**
 * The longest tool name: Anthropic and OpenAI both refuse a request with a tool name outside ^[a-zA-Z0-9_-]{1,64}$
 * (Anthropic "Define tools", OpenAI Chat Completions reference), so every tool the model sees fits it.
 */
export const TOOL_NAME_MAX = 64;

/** What of the person's own a tool reaches beyond the conversation's folder. */
export type Reach = 'secrets' | 'memory' | 'conversations';

/**
 * Facts about a tool other parts of Deskhand decide by (a peer's ceiling, plan mode, presence…), declared on the tool.
 * A private read-only builtin must declare `reaches` (test/runtime/tool-facts.test.ts); what a call does per its
 * arguments stays in `effects`.
 */
export interface ToolFacts {
  /** What of the person's own it reads or changes: their secrets, memory (and the agent's notes), other conversations; `[]`: none. */
  reaches?: readonly Reach[];
  /** Read-only for the person's own runs, but it writes the agent's durable bookkeeping or starts child runs. */
  bookkeeping?: boolean;
  /** A call sends material off this machine (Spec I "What leaves the machine"). */
  sendsOut?: boolean;
  /** A peer conversation's own tool: granted there at every tier, offered nowhere else. */
  peerOwn?: boolean;
  /** It writes or edits one file's content at a path it is given (plan mode offers it: it can write the plan file). */
  editsFile?: boolean;
  /** Only these roles are offered it (Tower: the coordinating conversation, or every agent of a session). */
  roles?: readonly ToolRole[];
  /**
   * The loading family it belongs to when not its factory's (runtime/prompt/tool-families.ts): a rarely needed tool of a
   * default family waits to be loaded (`fileops`, `jobs`…), PDFs load apart from compositions, MCP's own tools apart
   * from skills. The assembly groups a factory's tools by it (host/assembly/assemble.ts).
   */
  loadsWith?: string;
  /** Offered to a parent conversation only: a subagent never gets it (it cannot start or steer children). */
  parentOnly?: boolean;
  /** It changes the person's files or starts their work: presence shows the agent at work while one runs (who_is_here). */
  writes?: boolean;
}

/** `tower-coordinator`: the conversation that runs a Tower session; `tower-member`: the coordinator and its workers. */
export type ToolRole = 'tower-coordinator' | 'tower-member';

export interface ToolDefinition<P extends z.ZodType = z.ZodType> {
  name: string;
  /** `builtin` (default), `mcp` (named `mcp__<server>__<tool>`) or `custom` (from agent configuration). */
  kind?: ToolKind;
  /** Also offered to the model under these names (e.g. `find` as `glob`). */
  aliases?: string[];
  /** What Claude Code calls the same tool (`Bash`), so hook matchers written for it match this one (docs/hooks.md). */
  claudeCodeName?: string;
  /** What the model needs to choose and call the tool right: sent in every request, so kept short. */
  description: string;
  /**
   * What the description leaves out (limits, edge cases, rarely used parameters): not sent with the schema, returned
   * by `search_tools` when it finds the tool.
   */
  details?: string;
  /** zod input. Tools that arrive at run time may give `inputSchema` (JSON Schema) instead; the registry derives one. */
  params: P;
  /** The JSON Schema the model sees, when the tool was defined by one (MCP, custom tools). */
  inputSchema?: Record<string, unknown>;
  /** Static tier, or `unknown`: then `effects` must return an `assessment` for every call. */
  risk: DeclaredRisk;
  disclosure: Disclosure;
  /** What others must know of the tool, declared here, never kept in name lists elsewhere (ToolFacts). */
  facts?: ToolFacts;
  /** What a call would touch. Omitted: the call touches nothing but the conversation's own state. */
  effects?(args: z.infer<P>, ctx: EffectsContext): Effects | Promise<Effects>;
  /** A person answers before `execute` runs (the answer is the approval). */
  input?(args: z.infer<P>, ctx?: { conversationId: string }): InputSpec | null;
  /** The secret a finished call of this tool loads into the run (ask_user_secret, use_saved_secret), by name. */
  holdsSecret?(args: z.infer<P>): string | null;
  /**
   * For tools with an approval pair: the hidden half's name (`execute_write_file`). The model calls `name`; the
   * runtime calls `propose`, decides, and only then runs `execute` under the hidden name.
   */
  pair?: { executeName: string; propose(args: z.infer<P>, ctx: ToolContext): Promise<Proposal> };
  /** Offered to the model only after `search_tools` reveals it (large or rarely used tool sets). */
  deferred?: boolean;
  /**
   * The definition itself is untrusted now (an MCP server whose tool list changed since the person last saw it):
   * returns the source to name, or null. Asked at every step; a request that offers it taints the run.
   */
  untrustedDefinition?(): string | null;
  presentation?: Presentation<z.infer<P>>;
  /** false: results are never offloaded from the context (the tool pages its output itself: retrieve_tool_result). */
  offload?: false;
  /** Default 3 minutes; tools that take their own timeout (shell) handle it themselves. */
  timeoutMs?: number;
  /**
   * `expected`: the same call several times in a row is normal use (waiting, polling), so the runtime's repeat guard
   * (model-step.ts) never refuses it.
   */
  repeats?: 'expected';
  execute(args: z.infer<P>, ctx: ToolContext): Promise<ToolResult>;
}

/**
 * A tool as its module writes it: `params` may be a function that builds the schema, called on the first read of the
 * definition's `params` (a call's arguments parsed, the tool offered to the model) and kept. A run assembles every
 * family's ≈ 100 tools and offers ≈ 15; building each schema at import or assembly cost the start of every run.
 */
export type ToolSpec<P extends z.ZodType = z.ZodType> = Omit<ToolDefinition<P>, 'params'> & { params: P | (() => P) };

/**
 * Keeps the generic parameter so `execute` gets typed args, and makes `params` given as a function a property built
 * on first read (the definition's shape is unchanged: `params` is the schema to whoever reads it). Until then it is an
 * accessor, after it a plain value (test/runtime/lazy-params.test.ts tells built from not yet built by that).
 */
export function defineTool<P extends z.ZodType>(def: ToolSpec<P>): ToolDefinition<P> {
  const build = def.params;
  if (typeof build !== 'function') return def as ToolDefinition<P>;
  // The first read replaces the accessor with the built schema: later reads are a plain property's.
  Object.defineProperty(def, 'params', {
    get() {
      const params = build();
      Object.defineProperty(def, 'params', { value: params, enumerable: true, configurable: true, writable: true });
      return params;
    },
    enumerable: true,
    configurable: true,
  });
  return def as ToolDefinition<P>;
}

export type { ToolPresentationView };
