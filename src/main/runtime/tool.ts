/**
 * The tool contract. A tool is one module exporting a `ToolDefinition`: its name, the description the model reads,
 * zod params, a risk tier (or a per-call classifier), disclosure, egress, and for gated tools with an approval pair a
 * proposing half. Validation, policy, approval, redaction, truncation and persistence happen once, in the runtime.
 */
import type { z } from 'zod';
import type { DeclaredRisk, Disclosure, RiskTier } from '../../shared/tools';
import type { SandboxMode } from '../../shared/sandbox';
import type { BackgroundTasks } from '../services/tasks/background-tasks';
import type { VaultView } from '../services/vault/vault';
import type { PathCheck, PathSpec } from './path-guard';

/** What a per-call classifier says about one call. `reasons` are printed by `deskhand policy explain`. */
export interface Classification {
  risk: RiskTier;
  reasons: string[];
  /**
   * The exact pattern an "always allow" rule may cover for this call (e.g. a single safe command), or null when no
   * rule may be saved (compound commands, anything high-risk the classifier could not prove).
   */
  rulePattern?: string | null;
  /** Set when the call must ask under every policy (e.g. it writes Deskhand's own data); the reason is shown. */
  alwaysAsk?: string | null;
  /** The call contacts other machines (a shell network client): asks under every policy once the run is tainted. */
  network?: boolean;
  /** Paths the classifier checked with the path guard (redirection targets, path arguments), for explain. */
  paths?: PathCheck[];
}

/** The proposing half of an approval pair: what will happen, shown to the person before anything acts. */
export interface Proposal {
  /** One line in plain words: "Write 12 lines to src/app.ts". */
  description: string;
  /** A unified diff for writes and edits; the exact command for commands; null when there is nothing to preview. */
  preview: string | null;
}

/** A file read recorded so writes can refuse when the file changed on disk since the conversation read it. */
export interface FileSnapshot {
  path: string;
  mtimeMs: number;
  size: number;
  ino: number;
}

/** Per-conversation state that tools may read and change (persisted by the runtime after each call). */
export interface ConversationState {
  /** The current working directory (`cd` changes it). Always absolute. */
  cwd: string;
  /** The workspace roots: the conversation's working folder plus folders the person added. */
  readonly workspaceRoots: readonly string[];
  getFileSnapshot(path: string): FileSnapshot | undefined;
  recordFileSnapshot(snapshot: FileSnapshot): void;
  todos: TodoItem[];
  workState: Record<string, unknown>;
}

export interface TodoItem {
  id: string;
  title: string;
  status: 'pending' | 'in_progress' | 'done';
  priority?: 'low' | 'medium' | 'high';
}

export interface ToolContext {
  readonly runId: string;
  readonly conversationId: string;
  readonly callId: string;
  /** Aborted when the run is stopped or the tool's timeout passes. Long work must honour it. */
  readonly signal: AbortSignal;
  readonly state: ConversationState;
  /** Deskhand's data dir (sensitive: the store and config live there). */
  readonly dataDir: string;
  /** Streams partial output (command stdout/stderr) to whoever watches the run. */
  emitOutput(stream: 'stdout' | 'stderr', chunk: string): void;
  /** Context-window figures for `context_info`. */
  readonly usage: { inputTokens: number; outputTokens: number; contextWindow: number; messages: number };
  /**
   * The path checks the approval engine decided this call on, by the absolute path the tool resolves. A tool that
   * opens a path verifies it still leads there (path-guard.ts `openVerified`). Absent outside the runtime.
   */
  readonly checkedPaths?: ReadonlyMap<string, PathCheck>;
  /** Names and descriptions of saved secrets (never values). Absent where a host has no vault. */
  readonly vault?: VaultView;
  /** The runtime's redactor: tools that persist or log text themselves (task specs, output files) pass it through. */
  redact?(text: string): string;
  /** Background tasks of this process (commands, job batches, wait_for). Absent where a host offers none. */
  readonly tasks?: BackgroundTasks;
  /** The conversation's sandbox mode for commands (default `workspace-write`). */
  readonly sandbox?: SandboxMode;
}

export interface ToolResult {
  /** The text the model reads. */
  output: string;
  /** When set, the output came from outside the person's workspace and is wrapped in an untrusted envelope. */
  untrustedSource?: string;
}

export interface ToolDefinition<P extends z.ZodType = z.ZodType> {
  name: string;
  /** Also offered to the model under these names (e.g. `find` as `glob`). */
  aliases?: string[];
  description: string;
  params: P;
  /** Static tier, or `unknown` with `classify`. */
  risk: DeclaredRisk;
  /** Per-call classification (required when risk is `unknown`; optional refinement for others, e.g. cp --force). */
  classify?(args: z.infer<P>, ctx: ClassifyContext): Classification | Promise<Classification>;
  disclosure: Disclosure;
  /** True when the request itself sends material off the machine. */
  egress: boolean;
  /**
   * The paths a call reads and writes (for write, also what it removes or replaces). The approval engine checks each
   * with the path guard: workspace containment, symlinks, hard links, sensitive paths. Every tool that takes a path
   * declares it; a tool without `paths` that has `path`/`source`/`destination` arguments gets them checked anyway.
   */
  paths?(args: z.infer<P>): PathSpec;
  /**
   * Top-level string arguments that may carry `[redacted:NAME]` placeholders; the runtime puts the values in just before
   * `execute`. A placeholder in any other argument is refused, and a call carrying one always asks a person.
   */
  secretArgs?: readonly string[];
  /** How values are put into secretArgs: `shell` quotes each for where it sits in a shell command. Default plain text. */
  secretQuoting?: 'shell' | 'none';
  /**
   * For tools that need a person to type something (ask_user_secret): the runtime opens an input request (answered
   * in the UI, the terminal, or `deskhand secrets set NAME`; the run parks when nobody can answer) and runs `execute`
   * only once it is answered.
   */
  inputRequest?(args: z.infer<P>): { kind: 'secret'; name: string; description: string; prompt: string };
  /** The secret a finished call of this tool loads into the run (ask_user_secret, use_saved_secret), by name. */
  holdsSecret?(args: z.infer<P>): string | null;
  /**
   * For tools with an approval pair: the hidden half's name (`execute_write_file`). The model calls `name`; the
   * runtime calls `propose`, decides, and only then runs `execute` under the hidden name.
   */
  pair?: { executeName: string; propose(args: z.infer<P>, ctx: ToolContext): Promise<Proposal> };
  /** Default 3 minutes; tools that take their own timeout (shell) handle it themselves. */
  timeoutMs?: number;
  execute(args: z.infer<P>, ctx: ToolContext): Promise<ToolResult>;
}

/** What a classifier may look at: where the call would run. */
export interface ClassifyContext {
  cwd: string;
  workspaceRoots: readonly string[];
  dataDir: string;
  /** The conversation's sandbox mode (default `workspace-write`). */
  sandbox?: SandboxMode;
}

/** Helper that keeps the generic parameter so `execute` gets typed args. */
export function defineTool<P extends z.ZodType>(def: ToolDefinition<P>): ToolDefinition<P> {
  return def;
}
