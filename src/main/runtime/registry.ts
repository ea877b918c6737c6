/**
 * The live tool registry: what the model may see and call, and the one lookup path every call goes through.
 * Tools are added and removed at run time (MCP servers come and go), named by kind (`mcp__<server>__<tool>`), given as
 * zod or JSON Schema, and narrowed per turn: filters (plan mode, a subagent's ceiling) and deferred tools that only
 * `search_tools` reveals. Hidden `execute_*` halves are registered but never offered to the model and never callable.
 */
import { z } from 'zod';
import { ToolError } from '../../shared/errors';
import type { Policy } from '../../shared/tools';
import { fallbackTitle, type ToolPresentationView } from '../../shared/tool-presentation';
import { TOOL_NAME_MAX, type ToolDefinition } from './tool';
import { FAMILY_SUMMARIES, type LoadState } from './prompt/tool-families';
import { unknownArguments, unknownArgumentsMessage } from './loop/strict-args';
import { toolSchemaMemo } from './tool-schema-memo';

export interface ModelToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The tool's `untrustedDefinition` fact: a request carrying a definition it names taints the run. */
  untrustedDefinition?: () => string | null;
}

/** What a turn's tool set is computed from. */
export interface TurnContext {
  conversationId: string;
  policy: Policy;
  /** Deferred tools revealed in this conversation (search_tools). */
  revealed: readonly string[];
  /** At most these tools (a subagent's ceiling: its parent's set); absent means no ceiling. */
  ceiling?: ReadonlySet<string>;
  /** The conversation's family state slots (plan mode…), for filters. */
  slots?: Readonly<Record<string, unknown>>;
  /** Families enabled for the conversation (loaded from its first request); the registry's enablers add theirs. */
  enabled?: readonly string[];
  /** The run a person can answer (RunOptions.interactive); false for unattended turns (goal cycles, wake-ups); absent outside a run. */
  interactive?: boolean;
}

/** Which families load by themselves (tool-families.ts); without a plan every tool is loaded (bare registries). */
export interface LoadPlan {
  defaults: ReadonlySet<string>;
  off: ReadonlySet<string>;
}

/** Families a turn enables beyond the conversation's own (an agent profile's). */
export type FamilyEnabler = (turn: TurnContext) => readonly string[];

/**
 * Narrows a turn's tools. Called once per tool set with the turn; returns the check run for each of its tools (a reason
 * to hide the tool, or null to keep it), or null when it hides nothing in this turn. Per-turn facts (a store row, a
 * profile) are looked up in the outer function — with `lazy` when only some tools need them — so a turn reads them
 * once, not once per tool.
 */
export type ToolFilter = (turn: TurnContext) => ToolCheck | null;
export type ToolCheck = (tool: ToolDefinition) => string | null;

/** A value computed on first use, then kept (a filter's per-turn fact only some tools need). */
export function lazy<T>(compute: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) {
      value = compute();
      done = true;
    }
    return value;
  };
}

/** The tools of one turn: the model-facing list and the lookup for calls made in that turn. */
export interface TurnToolSet {
  specs: ModelToolSpec[];
  /** The registry's version it was computed at (`ToolRegistry.version`). */
  version: number;
  /** Every tool the turn may call, loaded or not (a subagent's ceiling is its parent's). */
  callable: string[];
  /**
   * Looks up a call's tool. A deferred tool resolves: the call runs when its arguments are valid (parsed strictly),
   * and the caller loads its family for the next step (`loadOnCall`). An off one (browser, computer use) and a
   * hidden one throw a model-readable error saying what to do.
   */
  resolve(name: string): ToolDefinition;
  /** The tool names a call of `name` loads (its family's deferred tools), or [] when it is loaded already. */
  loadOnCall(name: string): string[];
}

// What the providers take (TOOL_NAME_MAX), starting with a letter.
const NAME_RE = new RegExp(`^[A-Za-z][A-Za-z0-9_-]{0,${TOOL_NAME_MAX - 1}}$`);

interface Entry {
  tool: ToolDefinition;
  /** The model's JSON schema, computed on first use (a command that only judges one call never builds the others'). */
  readonly schema: Record<string, unknown>;
  /** The arguments' parser: a zod tool's own `params`, read on first use (defineTool builds them then). */
  readonly parser: z.ZodType;
  family: string;
}

export interface AddOptions {
  /** The family the tools belong to (tool-families.ts); default `mcp` for MCP tools, `custom` for custom ones, else `core`. */
  family?: string;
}

export class ToolRegistry {
  /** Model-callable names (canonical and aliases) → entry, in registration order. */
  private readonly callable = new Map<string, Entry>();
  private readonly hidden = new Map<string, Entry>();
  private readonly filters = new Map<string, ToolFilter>();
  private readonly enablers = new Map<string, FamilyEnabler>();
  private plan: LoadPlan | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(tools: readonly ToolDefinition[] = []) {
    this.add(tools);
  }

  /** Adds tools (all or none); returns a function that removes them again. */
  add(tools: readonly ToolDefinition[], opts: AddOptions = {}): () => void {
    const names = new Set<string>();
    for (const tool of tools) {
      for (const name of [tool.name, ...(tool.aliases ?? []), ...(tool.pair ? [tool.pair.executeName] : [])]) {
        if (!NAME_RE.test(name)) throw new Error(`tool name ${JSON.stringify(name)} is not a valid tool name`);
        if (this.callable.has(name) || this.hidden.has(name) || names.has(name)) throw new Error(`tool name registered twice: ${name}`);
        names.add(name);
      }
      checkKind(tool);
    }
    for (const tool of tools) {
      const family = opts.family ?? (tool.kind === 'mcp' ? 'mcp' : tool.kind === 'custom' ? 'custom' : 'core');
      const entry = entryOf(tool, family);
      for (const name of [tool.name, ...(tool.aliases ?? [])]) this.callable.set(name, entry);
      if (tool.pair) this.hidden.set(tool.pair.executeName, entry);
    }
    if (tools.length) this.changed();
    return () => this.remove(tools.map((t) => t.name));
  }

  /** Removes tools by canonical name (with their aliases and hidden halves). Unknown names are ignored. */
  remove(names: readonly string[]): void {
    let removed = false;
    for (const name of names) {
      const entry = this.callable.get(name);
      if (!entry || entry.tool.name !== name) continue;
      for (const n of [entry.tool.name, ...(entry.tool.aliases ?? [])]) this.callable.delete(n);
      if (entry.tool.pair) this.hidden.delete(entry.tool.pair.executeName);
      removed = true;
    }
    if (removed) this.changed();
  }

  /** Registers a per-turn filter under a name (re-registering replaces it); returns its remover. */
  addFilter(name: string, filter: ToolFilter): () => void {
    this.filters.set(name, filter);
    this.#version++;
    return () => {
      if (this.filters.get(name) === filter) {
        this.filters.delete(name);
        this.#version++;
      }
    };
  }

  /** Loads only the plan's default families by themselves; the others wait for search_tools, a call or enabling. */
  loadOnDemand(plan: LoadPlan): void {
    this.plan = plan;
    this.#version++;
  }

  /** Registers what enables families for a turn (an agent profile); returns its remover. */
  addEnabler(name: string, enabler: FamilyEnabler): () => void {
    this.enablers.set(name, enabler);
    this.#version++;
    return () => {
      if (this.enablers.get(name) === enabler) {
        this.enablers.delete(name);
        this.#version++;
      }
    };
  }

  /** The family of a registered tool (canonical name or alias), or undefined. */
  familyOf(name: string): string | undefined {
    return this.callable.get(name)?.family;
  }

  /** The canonical names of a family's tools, registration order. */
  familyTools(family: string): string[] {
    return [...(this.familyIndex().get(family) ?? [])];
  }

  /** Families that have tools, registration order. */
  families(): string[] {
    return [...this.familyIndex().keys()];
  }

  /**
   * Family → its tools' canonical names, registration order; rebuilt when the registry changes (`#version`). The
   * system prompt's catalog asks for every family's tools on every step: rebuilding the whole tool list once per
   * family and step cost more than the rest of the prompt (docs/performance.md, issue 54 third round).
   */
  private familyIndex(): ReadonlyMap<string, readonly string[]> {
    if (this.#families?.version !== this.#version) {
      const byFamily = new Map<string, string[]>();
      for (const entry of this.callable.values()) if (!byFamily.has(entry.family)) byFamily.set(entry.family, []);
      for (const tool of this.all()) byFamily.get(this.callable.get(tool.name)!.family)!.push(tool.name);
      this.#families = { version: this.#version, byFamily };
    }
    return this.#families.byFamily;
  }

  /** The families a turn enables: the conversation's own and every enabler's. */
  enabledIn(turn: TurnContext): Set<string> {
    const out = new Set(turn.enabled ?? []);
    for (const enabler of this.enablers.values()) {
      try {
        for (const f of enabler(turn)) out.add(f);
      } catch {
        // an enabler that fails enables nothing
      }
    }
    return out;
  }

  /** Whether a tool's schema is in a turn's request, waits to be loaded, or is off until searched for or enabled. */
  loadState(name: string, turn: TurnContext, enabled: ReadonlySet<string> = this.enabledIn(turn), revealed: ReadonlySet<string> = new Set(turn.revealed)): LoadState {
    const entry = this.callable.get(name);
    if (!entry) return 'loaded';
    const canonical = entry.tool.name;
    if (revealed.has(canonical)) return 'loaded';
    // A tool deferred by itself (an MCP server's many tools) loads only when found or called, even in an enabled family.
    if (entry.tool.deferred) return 'deferred';
    if (enabled.has(entry.family)) return 'loaded';
    if (!this.plan || this.plan.defaults.has(entry.family)) return 'loaded';
    return this.plan.off.has(entry.family) ? 'off' : 'deferred';
  }

  /**
   * The system prompt's list of what is not loaded by itself: one line per family with its tool names. It depends on
   * the registered tools and the conversation's enabled families only (not on what was revealed since), so the
   * system prompt stays the same from step to step.
   */
  catalogText(turn: TurnContext): string | null {
    if (!this.plan) return null;
    const enabled = this.enabledIn(turn);
    // The same for every step of a conversation until its families or the registry change: kept per both.
    if (this.#catalogs?.version !== this.#version) this.#catalogs = { version: this.#version, byEnabled: new Map() };
    const key = [...enabled].sort().join('\0');
    let text = this.#catalogs.byEnabled.get(key);
    if (text === undefined) this.#catalogs.byEnabled.set(key, (text = this.#catalogOf(this.plan, turn, enabled)));
    return text;
  }

  #catalogs: { version: number; byEnabled: Map<string, string | null> } | null = null;

  #catalogOf(plan: LoadPlan, turn: TurnContext, enabled: ReadonlySet<string>): string | null {
    const lines: string[] = [];
    const none = new Set<string>();
    for (const family of this.families()) {
      if (enabled.has(family)) continue;
      // Both sets given, loadState reads nothing else of the turn (so the text is the same for every turn kept under it).
      const names = this.familyTools(family).filter((n) => this.loadState(n, turn, enabled, none) !== 'loaded');
      if (names.length === 0) continue;
      const off = plan.off.has(family) && !this.callable.get(names[0]!)!.tool.deferred;
      const shown = names.length > 40 ? `${names.slice(0, 40).join(', ')} and ${names.length - 40} more` : names.join(', ');
      lines.push(`- ${family}${off ? ' (off until loaded)' : ''}: ${FAMILY_SUMMARIES[family] ?? 'more tools'}. Tools: ${shown}.`);
    }
    return lines.length ? lines.join('\n') : null;
  }

  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every registered tool once (canonical definitions, registration order). */
  all(): ToolDefinition[] {
    return [...new Set([...this.callable.values()].map((e) => e.tool))];
  }

  /** The tools of one turn: deferred ones only once revealed, then the ceiling and every filter. */
  toolSet(turn: TurnContext): TurnToolSet {
    const revealed = new Set(turn.revealed);
    const enabled = this.enabledIn(turn);
    const checks: ToolCheck[] = [];
    for (const filter of this.filters.values()) {
      const check = filter(turn);
      if (check) checks.push(check);
    }
    const hiddenWhy = new Map<string, string>();
    const unloaded = new Map<string, LoadState>();
    const specs: ModelToolSpec[] = [];
    const callable: string[] = [];
    for (const [name, entry] of this.callable) {
      const why = hideReason(entry.tool, turn, checks);
      if (why) {
        hiddenWhy.set(name, why);
        continue;
      }
      callable.push(name);
      const load = this.loadState(name, turn, enabled, revealed);
      // An alias stays callable but is not offered twice (the same schema under a second name costs its full size).
      if (load === 'loaded') {
        if (name === entry.tool.name) {
          const untrusted = entry.tool.untrustedDefinition?.bind(entry.tool);
          specs.push({ name, description: entry.tool.description, inputSchema: entry.schema, ...(untrusted ? { untrustedDefinition: untrusted } : {}) });
        }
      }
      else unloaded.set(name, load);
    }
    return {
      specs,
      version: this.version,
      callable,
      resolve: (name) => {
        const tool = this.resolve(name);
        const why = hiddenWhy.get(name);
        if (why) throw new ToolError(`${name} is not available in this turn: ${why}.`, 'unknown_tool');
        const load = unloaded.get(name);
        if (load === 'off') {
          const family = this.familyOf(name)!;
          throw new ToolError(
            `${name} belongs to the ${family} tools, which are off in this conversation. Call search_tools with the query "${family}" to load them ` +
              `(their schemas arrive in your next step), then call ${name} again; or ask the person to enable ${family} for this conversation.`,
            'unknown_tool',
          );
        }
        return tool;
      },
      loadOnCall: (name) => {
        if (unloaded.get(name) !== 'deferred') return [];
        const entry = this.callable.get(name)!;
        // An MCP tool deferred by count loads alone (a server may bring hundreds); a family loads whole.
        if (entry.tool.deferred) return [entry.tool.name];
        return this.familyTools(entry.family).filter((n) => unloaded.get(n) === 'deferred');
      },
    };
  }

  /** Counts changes of the registered tools and filters (a kept tool set is stale once it differs). */
  get version(): number {
    return this.#version;
  }
  #version = 0;
  #families: { version: number; byFamily: Map<string, string[]> } | null = null;

  /** Every model-callable tool with its schema, deferred ones included (the schema snapshot, `search_tools`). */
  modelTools(): ModelToolSpec[] {
    return [...this.callable.entries()].map(([name, e]) => ({ name, description: e.tool.description, inputSchema: e.schema }));
  }

  /** Names of the registered tools that hold a secret once they succeed (`holdsSecret`), kept per version. */
  secretHolders(): readonly string[] {
    if (this.#holders?.version !== this.#version) {
      this.#holders = { version: this.#version, names: this.all().filter((t) => t.holdsSecret).map((t) => t.name) };
    }
    return this.#holders.names;
  }
  #holders: { version: number; names: string[] } | undefined;

  names(): string[] {
    return [...this.callable.keys()];
  }

  /** Titles, icons and result hints of every registered tool, for the UI. */
  presentations(): ToolPresentationView[] {
    return this.all().map((tool) => ({
      name: tool.name,
      title: tool.presentation?.title ?? fallbackTitle(tool.name),
      icon: tool.presentation?.icon ?? 'tool',
      result: tool.presentation?.result ?? 'text',
      kind: tool.kind ?? 'builtin',
    }));
  }

  /** The one-line summary a tool gives of a call, or null (unknown tool, no summary, a summary that throws). */
  summarize(name: string, args: unknown, output?: string | null): string | null {
    const tool = this.lookup(name);
    if (!tool?.presentation?.summary) return null;
    try {
      const done = output != null && tool.presentation.doneSummary ? tool.presentation.doneSummary(args as never, output) : null;
      const text = done ?? tool.presentation.summary(args as never);
      return text.length > 200 ? `${text.slice(0, 199)}…` : text;
    } catch {
      return null;
    }
  }

  /** A model-callable tool by name, or undefined. */
  lookup(name: string): ToolDefinition | undefined {
    return typeof name === 'string' ? this.callable.get(name)?.tool : undefined;
  }

  /** Looks up a name the model sent. Hidden halves and unknown names get the same model-readable error. */
  resolve(name: string): ToolDefinition {
    const tool = this.lookup(name);
    if (!tool) {
      const suggestion = this.closest(String(name));
      throw new ToolError(
        `Unknown tool "${String(name).slice(0, 100)}".${suggestion ? ` Did you mean "${suggestion}"?` : ''} Available tools: ${this.names().join(', ')}.`,
        'unknown_tool',
      );
    }
    return tool;
  }

  /** Parses arguments with the tool's schema; failures become a message the model can correct from. */
  parseArgs(tool: ToolDefinition, args: unknown): unknown {
    const entry = this.callable.get(tool.name);
    const parser = entry?.parser ?? tool.params;
    // Strict arguments (strict-args.ts): a name the schema does not list is refused, never dropped.
    const unknown = unknownArguments(entry?.schema ?? {}, args ?? {});
    if (unknown.length) throw new ToolError(unknownArgumentsMessage(tool.name, unknown), 'invalid_args');
    const result = parser.safeParse(args ?? {});
    if (result.success) return result.data;
    const problems = result.error.issues
      .slice(0, 10)
      .map((issue) => `- ${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
      .join('\n');
    throw new ToolError(`Invalid arguments for ${tool.name}:\n${problems}\nFix the arguments and call ${tool.name} again.`, 'invalid_args');
  }

  /** Tools whose name, title or description matches every word of the query (search_tools), best first. */
  search(query: string, limit = 10): ToolDefinition[] {
    const words = query.toLowerCase().split(/[\s,]+/).filter(Boolean);
    const scored: { tool: ToolDefinition; score: number }[] = [];
    for (const tool of this.all()) {
      const name = tool.name.toLowerCase();
      const text = `${name} ${tool.presentation?.title ?? ''} ${tool.description}`.toLowerCase();
      if (words.length === 0 || !words.every((w) => text.includes(w))) continue;
      const score = words.reduce((s, w) => s + (name === w ? 10 : name.includes(w) ? 3 : 1), 0);
      scored.push({ tool, score });
    }
    return scored.sort((a, b) => b.score - a.score).slice(0, limit).map((s) => s.tool);
  }

  private changed(): void {
    this.#version++;
    for (const l of this.listeners) l();
  }

  private closest(name: string): string | undefined {
    let best: string | undefined;
    let bestScore = Infinity;
    for (const candidate of this.callable.keys()) {
      const d = distance(name.toLowerCase(), candidate);
      if (d < bestScore) [best, bestScore] = [candidate, d];
    }
    return bestScore <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
  }
}

function hideReason(tool: ToolDefinition, turn: TurnContext, checks: readonly ToolCheck[]): string | null {
  if (turn.ceiling && !turn.ceiling.has(tool.name)) return 'it is outside this agent\'s tool set';
  for (const check of checks) {
    const why = check(tool);
    if (why) return why;
  }
  return null;
}

/** MCP tools are namespaced by their server; built-in names never carry the prefix. */
function checkKind(tool: ToolDefinition): void {
  const kind = tool.kind ?? 'builtin';
  const namespaced = /^mcp__[A-Za-z0-9-]+__[A-Za-z0-9_-]+$/.test(tool.name);
  if (kind === 'mcp' && !namespaced) throw new Error(`tool ${tool.name}: MCP tools are named mcp__<server>__<tool>`);
  if (kind !== 'mcp' && tool.name.startsWith('mcp__')) throw new Error(`tool ${tool.name}: only MCP tools may use the mcp__ prefix`);
  if (tool.risk === 'unknown' && !tool.effects) throw new Error(`tool ${tool.name}: risk 'unknown' needs effects() with an assessment`);
}

/**
 * The tool's JSON schema as the model gets it, and its parser. The top-level `$schema` is dropped from what is sent:
 * providers ignore it, and across ~90 tools it is ~4 KB (~1k tokens) of every request. A tool given as JSON schema
 * (MCP, custom) is converted at once, so a schema zod cannot read fails when the tool is added; a zod tool's JSON
 * schema is built on first use and kept (converting every family's schemas cost ~100 ms of each CLI start), as are
 * its `params` when the tool gave them as a function (defineTool): adding a tool builds neither. A built-in tool's
 * schema may come from the process's memo instead (tool-schema-memo.ts: the CLI keeps them per build).
 */
function entryOf(tool: ToolDefinition, family: string): Entry {
  if (tool.inputSchema) return { tool, schema: modelSchema(tool.inputSchema), parser: z.fromJSONSchema(tool.inputSchema as never), family };
  const schema = lazy(() => {
    // A built-in tool's schema may come from an earlier run of the same build (tool-schema-memo.ts).
    const memo = (tool.kind ?? 'builtin') === 'builtin' ? toolSchemaMemo() : null;
    const kept = memo?.get(tool);
    if (kept) return kept;
    const made = modelSchema(z.toJSONSchema(tool.params, { target: 'draft-7', io: 'input' }) as Record<string, unknown>);
    memo?.put(tool, made);
    return made;
  });
  return {
    tool,
    get schema() {
      return schema();
    },
    get parser() {
      return tool.params;
    },
    family,
  };
}

/**
 * The schema as the model is sent it: without the dialect, with `additionalProperties: false` on every object that
 * lists its properties and says nothing else about the rest (the registry refuses unknown arguments: strict-args.ts),
 * and without zod's safe-integer bounds (±2^53−1, which tell a model nothing and cost ~10 tokens each).
 */
export function modelSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return shape(rest) as Record<string, unknown>;
}

function shape(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shape);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    if ((key === 'minimum' || key === 'maximum') && typeof value === 'number' && Math.abs(value) === Number.MAX_SAFE_INTEGER) continue;
    // Property names are data, not keywords: shape each property's schema, never the map itself.
    out[key] = key === 'properties' && value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)]))
      : shape(value);
  }
  if (out.type === 'object' && out.properties && typeof out.properties === 'object' && !('additionalProperties' in out) && !('patternProperties' in out)) {
    out.additionalProperties = false;
  }
  return out;
}

function distance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
