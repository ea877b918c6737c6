/**
 * Fewer, larger SSE events for the provider SDK. The AI SDK's stream pipeline costs about 30 µs per server-sent event
 * (web-stream stages, a JSON parse and a zod validation of every chunk): a 50,000-token burst from a fast local
 * server or a reasoning model spent over a second there. This `fetch` wrapper (given to the AI SDK providers, which
 * stay the provider layer) joins, within one network read, consecutive events that only add text to the same place —
 * OpenAI chat / OpenAI-compatible `choices[0].delta.content` (or `reasoning_content` / `reasoning`), Anthropic
 * `content_block_delta` with a `text_delta` or `thinking_delta` — into one event carrying the joined text. Nothing is
 * held across reads (a paced token is passed on in the read it arrived in), and every other event (a tool call's
 * arguments, a finish reason, usage, a signature, an error, a comment, `[DONE]`) is passed on byte for byte in its
 * place. The SDK then sees the same text in the same order, split at fewer places: the same parts, tool calls and usage.
 *
 * Only `text/event-stream` responses with a 2xx status are touched; a stream with `\r` line ends is passed on as is.
 */

/** The bench turns joining off to time the SDK on the stream as the server sent it, in the same rounds. */
export const sseCoalesceTuning = { enabled: true };

/** The wrapper the providers are built with (`createOpenAICompatible({ fetch })` and the like). */
export function coalescingFetch(inner?: typeof fetch): typeof fetch {
  return async (input, init) => {
    // The global looked up per request, so a test's stand-in for it is used.
    const res = await (inner ?? globalThis.fetch)(input, init);
    if (!sseCoalesceTuning.enabled || !res.ok || !res.body || !(res.headers.get('content-type') ?? '').includes('text/event-stream')) return res;
    return new Response(res.body.pipeThrough(coalesceSseStream()), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The byte stream of an SSE response → the same stream with runs of text-only events joined per read. */
export function coalesceSseStream(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = '';
  let passThrough = false;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (passThrough) {
        controller.enqueue(chunk);
        return;
      }
      const text = decoder.decode(chunk, { stream: true });
      if (text.includes('\r')) {
        // Other line ends: not worth the care; from here on the stream goes through untouched.
        passThrough = true;
        const held = buffer;
        buffer = '';
        controller.enqueue(held ? concat(encoder.encode(held), chunk) : chunk);
        return;
      }
      buffer += text;
      const end = buffer.lastIndexOf('\n\n');
      if (end < 0) return;
      const complete = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      controller.enqueue(encoder.encode(coalesceEvents(complete) + '\n\n'));
    },
    flush(controller) {
      const rest = buffer + decoder.decode();
      if (rest) controller.enqueue(encoder.encode(rest));
    },
  });
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** A text-only event: where its text goes (`key`), the parsed event, and the path of its text field. */
interface TextEvent {
  key: string;
  /** The lines before `data:` (`event: content_block_delta`), or ''. */
  head: string;
  value: Record<string, unknown>;
  text: string;
  /** The text field's place: the object holding it and its name. */
  holder: Record<string, unknown>;
  field: string;
}

/**
 * The event's raw text around its text field's JSON string (`prefix` ends with the opening quote, `suffix` starts with
 * the closing one), when the field's place can be told from the raw text alone: an event that starts with `prefix`
 * and whose string ends where `suffix` begins is the same event with other text, joined without a parse.
 */
interface Template {
  prefix: string;
  suffix: string;
}

/** Where the JSON string starting at `from` (after its opening quote) ends: the index of its closing quote, or -1. */
function stringEnd(raw: string, from: number): number {
  for (let q = raw.indexOf('"', from); q !== -1; q = raw.indexOf('"', q + 1)) {
    let slashes = 0;
    while (raw.charCodeAt(q - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

const PROBE = 'sse-coalesce-probe';

/** The template of a text event, checked: the only `"field":"` whose string, replaced, changes the text field. */
function templateOf(raw: string, ev: TextEvent): Template | null {
  const key = `"${ev.field}":"`;
  const at = raw.indexOf(key);
  if (at < 0 || raw.indexOf(key, at + 1) !== -1) return null;
  const open = at + key.length;
  const close = stringEnd(raw, open);
  if (close < 0) return null;
  const t = { prefix: raw.slice(0, open), suffix: raw.slice(close) };
  // The raw position is the field's only if a different string there lands in the field.
  const probe = textEventOf(t.prefix + PROBE + t.suffix);
  return probe && probe.key === ev.key && probe.text === PROBE ? t : null;
}

/**
 * Complete events (separated by blank lines, without the last separator) → the same events with each run of
 * consecutive text-only events of one key replaced by one event.
 */
export function coalesceEvents(complete: string): string {
  const events = complete.split('\n\n');
  if (events.length === 1) return complete;
  const out: string[] = [];
  /** The open run: its first event, its template, and its pieces (raw JSON string bodies with a template, else texts). */
  let run: { first: TextEvent; raw: string; template: Template | null; pieces: string[] } | null = null;
  const close = (): void => {
    if (!run) return;
    if (run.pieces.length === 1) out.push(run.raw);
    else if (run.template) out.push(run.template.prefix + run.pieces.join('') + run.template.suffix);
    else {
      run.first.holder[run.first.field] = run.pieces.join('');
      out.push(`${run.first.head}data: ${JSON.stringify(run.first.value)}`);
    }
    run = null;
  };
  for (const raw of events) {
    if (run?.template && raw.startsWith(run.template.prefix)) {
      // The same event with other text: its string body is taken as it is (JSON escapes join as they are).
      const { prefix, suffix } = run.template;
      const end = stringEnd(raw, prefix.length);
      if (end !== -1 && raw.length - end === suffix.length && raw.endsWith(suffix)) {
        run.pieces.push(raw.slice(prefix.length, end));
        continue;
      }
    }
    const ev = textEventOf(raw);
    if (ev && run && ev.key === run.first.key && ev.head === run.first.head) {
      run.pieces.push(run.template ? JSON.stringify(ev.text).slice(1, -1) : ev.text);
      continue;
    }
    close();
    if (ev) {
      const template = templateOf(raw, ev);
      run = { first: ev, raw, template, pieces: [template ? raw.slice(template.prefix.length, raw.length - template.suffix.length) : ev.text] };
    } else out.push(raw);
  }
  close();
  return out.join('\n\n');
}

const OPENAI_TEXT_FIELDS = ['content', 'reasoning_content', 'reasoning'] as const;

/** The event as a text-only event, or null when it is anything else (passed on as it came). */
function textEventOf(raw: string): TextEvent | null {
  let head = '';
  let data = raw;
  if (raw.startsWith('event: ')) {
    if (!raw.startsWith(ANTHROPIC_DELTA_HEAD)) return null;
    head = ANTHROPIC_DELTA_HEAD;
    data = raw.slice(head.length);
  }
  // One `data:` line holding a JSON object, nothing else (no comment, id or retry line, no second data line).
  if (!data.startsWith('data: {') || data.includes('\n')) return null;
  // Cheap refusals before a parse: no text field at all (tool calls, finish, usage, block starts and stops).
  if (head === '' ? !OPENAI_TEXT_KEYS.some((k) => data.includes(k)) : !(data.includes('"text_delta"') || data.includes('"thinking_delta"'))) return null;
  let value: unknown;
  try {
    value = JSON.parse(data.slice(6));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  return head === '' ? openaiTextEvent(v) : anthropicTextEvent(head, v);
}

const ANTHROPIC_DELTA_HEAD = 'event: content_block_delta\n';
const OPENAI_TEXT_KEYS = ['"content":"', '"reasoning_content":"', '"reasoning":"'];

/** OpenAI chat / OpenAI-compatible: one choice, no finish reason, no usage, a delta of one text field only. */
function openaiTextEvent(v: Record<string, unknown>): TextEvent | null {
  if (v.usage != null || 'error' in v || !Array.isArray(v.choices) || v.choices.length !== 1) return null;
  const choice = v.choices[0] as Record<string, unknown> | null;
  if (!choice || typeof choice !== 'object') return null;
  for (const k of Object.keys(choice)) {
    if (k !== 'index' && k !== 'delta' && choice[k] != null) return null; // finish_reason, logprobs, anything new
  }
  const delta = choice.delta as Record<string, unknown> | null;
  if (!delta || typeof delta !== 'object') return null;
  let field: string | null = null;
  for (const k of Object.keys(delta)) {
    const x = delta[k];
    if (x == null || k === 'role') continue;
    if ((OPENAI_TEXT_FIELDS as readonly string[]).includes(k) && typeof x === 'string' && field === null) field = k;
    else return null; // tool calls, a refusal, content parts, a second text field, anything new
  }
  if (field === null) return null;
  return { key: `openai|${String(choice.index)}|${field}|${String(delta.role)}`, head: '', value: v, text: delta[field] as string, holder: delta, field };
}

/** Anthropic: a `content_block_delta` of text or thinking, and nothing else in it. */
function anthropicTextEvent(head: string, v: Record<string, unknown>): TextEvent | null {
  if (head !== 'event: content_block_delta\n' || v.type !== 'content_block_delta' || typeof v.index !== 'number') return null;
  if (Object.keys(v).length !== 3) return null;
  const delta = v.delta as Record<string, unknown> | null;
  if (!delta || typeof delta !== 'object' || Object.keys(delta).length !== 2) return null;
  const field = delta.type === 'text_delta' ? 'text' : delta.type === 'thinking_delta' ? 'thinking' : null;
  if (field === null || typeof delta[field] !== 'string') return null;
  return { key: `anthropic|${v.index}|${field}`, head, value: v, text: delta[field] as string, holder: delta, field };
}
