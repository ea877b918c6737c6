/**
 * The tool contract. A tool is one module exporting a `ToolDefinition`: its name, the description the model reads,
 * zod params, a risk tier (or a per-call classifier), disclosure, egress, and for gated tools with an approval pair a
 * proposing half. Validation, policy, approval, redaction, truncation and persistence happen once, in the runtime.
 */
import type { z } from 'zod';
import type { DeclaredRisk, Disclosure, RiskTier } from '../../shared/tools';

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
}

/** Helper that keeps the generic parameter so `execute` gets typed args. */
export function defineTool<P extends z.ZodType>(def: ToolDefinition<P>): ToolDefinition<P> {
  return def;
}
