/**
 * The one redactor at the wire: every model request is redacted as a whole just before it is sent (model-call.ts is
 * the only place the runtime calls a provider). The system text, every context block in it, every message and every
 * tool definition — its name, its description, and every string in its input schema (nested `description`s, titles,
 * enums, defaults) — go through the run's redactor: vault secrets, provider keys, credential-named environment values,
 * secrets learned from files and output, and credential shapes. Per-source checks (the tool pipeline's redaction, the
 * guarded reader, the instruction loader) stay as defence in depth; this is where the promise "no secret reaches the
 * model" is kept, whatever source a new feature adds.
 *
 * - Binary parts (a file part's `data`: image bytes or base64) and provider options are passed through.
 * - Tool-call ids and tool names in the history are identifiers the provider matches, not text: passed through.
 * - A tool definition whose name or a parameter name would change is not offered at all (a placeholder is not a
 *   name a provider accepts, and a tool named after a secret is an attack, not a tool).
 *
 * Cost: the history is mostly the same from step to step, and its parsed messages are shared and frozen
 * (history-cache.ts), so results are kept per content object and per string, for as long as the redactor knows the
 * same secrets (its `version`); a step redacts only what is new.
 */
import type { Redactor } from './redaction';

/** A redactor that can say when what it knows changed (SecretRedactor.version); others are never cached. */
type Versioned = Redactor & { readonly version?: number };

/** Keys whose values are not text the model reads, or that the provider matches exactly. */
const OPAQUE_KEYS = new Set(['providerOptions', 'toolCallId', 'toolName', 'type', 'role', 'mediaType']);

/** Cache bounds: distinct strings kept, and characters kept in all. */
const CACHE_MAX_ENTRIES = 20_000;
const CACHE_MAX_CHARS = 32 * 1024 * 1024;

class Memo {
  version = -1;
  strings = new Map<string, string>();
  chars = 0;
  objects = new WeakMap<object, unknown>();
  /** Per input schema object (the registry keeps one per tool): the tool as it may be sent, or null when left out. */
  schemas = new WeakMap<object, { name: string; description: string | undefined; out: WireTool | null }>();

  fresh(version: number): this {
    if (version !== this.version) {
      this.version = version;
      this.strings = new Map();
      this.chars = 0;
      this.objects = new WeakMap();
      this.schemas = new WeakMap();
    }
    return this;
  }
}

const memos = new WeakMap<Redactor, Memo>();

export interface WireTool {
  name: string;
  description?: string;
  inputSchema: unknown;
  [k: string]: unknown;
}

export interface WireRequest<P, T extends WireTool> {
  prompt: P;
  tools: T[];
}

/** What the wire redactor did: the tools it left out (their names as they were, redacted). */
export interface WireReport {
  droppedTools: string[];
}

class WireWalker {
  constructor(
    private readonly redactor: Versioned,
    private readonly memo: Memo | null,
  ) {}

  text(s: string): string {
    if (!s) return s;
    if (!this.memo) return this.redactor.redact(s);
    const hit = this.memo.strings.get(s);
    if (hit !== undefined) return hit;
    const out = this.redactor.redact(s);
    // Redacting may teach the redactor a secret (a credential-named assignment): what was kept is stale then.
    if (this.memo.version !== this.redactor.version) return out;
    if (this.memo.strings.size >= CACHE_MAX_ENTRIES || this.memo.chars + s.length > CACHE_MAX_CHARS) {
      this.memo.strings.clear();
      this.memo.chars = 0;
    }
    this.memo.strings.set(s, out);
    this.memo.chars += s.length;
    return out;
  }

  /** Any JSON-like value with every string (and, when `keys`, every object key) redacted; unchanged parts are shared. */
  value(v: unknown, keys: boolean): unknown {
    if (typeof v === 'string') return this.text(v);
    if (v === null || typeof v !== 'object') return v;
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer || v instanceof URL) return v;
    const frozen = Object.isFrozen(v);
    if (frozen && this.memo) {
      const hit = this.memo.objects.get(v);
      if (hit !== undefined) return hit;
    }
    const out = Array.isArray(v) ? this.array(v, keys) : this.object(v as Record<string, unknown>, keys);
    // Kept for the next step's request: frozen like the history it stands for, so nothing downstream can change it.
    if (frozen && this.memo && this.memo.version === this.redactor.version) this.memo.objects.set(v, Object.freeze(out));
    return out;
  }

  private array(v: unknown[], keys: boolean): unknown[] {
    let changed = false;
    const out = v.map((x) => {
      const r = this.value(x, keys);
      if (r !== x) changed = true;
      return r;
    });
    return changed ? out : v;
  }

  private object(v: Record<string, unknown>, keys: boolean): Record<string, unknown> {
    let changed = false;
    const out: Record<string, unknown> = {};
    const binary = v.type === 'file' || v.type === 'image' || v.type === 'media' || v.type === 'image-data' || v.type === 'file-data';
    for (const [k, x] of Object.entries(v)) {
      const key = keys ? this.text(k) : k;
      let r: unknown = x;
      if (OPAQUE_KEYS.has(k) || (binary && (k === 'data' || k === 'url'))) r = x;
      else r = this.value(x, keys);
      if (r !== x || key !== k) changed = true;
      out[key] = r;
    }
    return changed ? out : v;
  }
}

/** True when redacting this object's keys would change one of them (anywhere inside). */
function keysChange(walker: WireWalker, v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  if (Array.isArray(v)) return v.some((x) => keysChange(walker, x));
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (walker.text(k) !== k) return true;
    if (keysChange(walker, x)) return true;
  }
  return false;
}

/**
 * The request as it may leave: the prompt (system text and messages) and the tool definitions redacted. Nothing given
 * is changed (history objects are shared and frozen); unchanged parts are returned as they were.
 */
export function redactRequest<P, T extends WireTool>(redactor: Redactor, request: WireRequest<P, T>): WireRequest<P, T> & WireReport {
  const versioned = redactor as Versioned;
  let memo: Memo | null = null;
  if (typeof versioned.version === 'number') {
    memo = memos.get(redactor) ?? new Memo();
    memos.set(redactor, memo.fresh(versioned.version));
  }
  const walker = new WireWalker(versioned, memo);
  const prompt = walker.value(request.prompt, false) as P;
  const tools: T[] = [];
  const droppedTools: string[] = [];
  for (const tool of request.tools) {
    const schema = tool.inputSchema !== null && typeof tool.inputSchema === 'object' ? tool.inputSchema : null;
    const kept = schema ? memo?.schemas.get(schema) : undefined;
    let out: WireTool | null;
    if (kept && kept.name === tool.name && kept.description === tool.description) out = kept.out;
    else {
      out = redactTool(walker, tool);
      if (schema && memo && memo.version === versioned.version) memo.schemas.set(schema, { name: tool.name, description: tool.description, out });
    }
    if (out) tools.push({ ...tool, ...out } as T);
    else droppedTools.push(walker.text(tool.name));
  }
  return { prompt, tools, droppedTools };
}

/** One tool definition redacted, or null when its name or a parameter name holds a secret (it is not offered). */
function redactTool(walker: WireWalker, tool: WireTool): WireTool | null {
  if (walker.text(tool.name) !== tool.name || keysChange(walker, tool.inputSchema)) return null;
  const description = tool.description === undefined ? undefined : walker.text(tool.description);
  const inputSchema = walker.value(tool.inputSchema, false);
  return { name: tool.name, ...(description === undefined ? {} : { description }), inputSchema };
}
