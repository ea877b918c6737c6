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
    return new Response(coalesceSseBody(res.body), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/**
 * The byte stream of an SSE response → the same stream with runs of text-only events joined per read. The read is
 * scanned as bytes (every delimiter is ASCII, so a UTF-8 character is never cut): the events of a run are recognised
 * and their string bodies copied without decoding the read into a string; only an event that starts a run or is
 * passed on as it came is decoded, to be parsed.
 *
 * A stream that pulls from the body's reader, not a `TransformStream` piped to: on Node 20 each web stream built
 * costs a `makeTransferable`, and a transform is three of them plus a pipe's promises per read, on every request.
 * Cancelling it cancels the body; an error of the body (an abort, a broken connection) is this stream's error.
 */
export function coalesceSseBody(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const join = sseJoiner();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Until there is something to hand on: a read that only completes no event is held, and the next one read.
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          const rest = join.end();
          if (rest) controller.enqueue(rest);
          controller.close();
          return;
        }
        const out = join.push(value);
        if (out) {
          controller.enqueue(out);
          return;
        }
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The joining state of one stream: each read in, what to hand on now (null: nothing yet); at the end, what is held. */
function sseJoiner(): { push(chunk: Uint8Array): Uint8Array | null; end(): Uint8Array | null } {
  /** The bytes after the last complete event of the reads so far. */
  let held: Buffer | null = null;
  let passThrough = false;
  return {
    push(chunk) {
      if (passThrough) return chunk;
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      if (bytes.indexOf(CR) !== -1) {
        // Other line ends: not worth the care; from here on the stream goes through untouched.
        passThrough = true;
        const out = held ? Buffer.concat([held, bytes]) : chunk;
        held = null;
        return out;
      }
      const buf = held ? Buffer.concat([held, bytes]) : bytes;
      const end = buf.lastIndexOf(SEP);
      if (end < 0) {
        held = held ? buf : Buffer.from(buf); // a copy: the chunk's memory is the stream's
        return null;
      }
      held = end + 2 < buf.length ? Buffer.from(buf.subarray(end + 2)) : null;
      return coalesceBytes(buf, end, true);
    },
    end() {
      const rest = held;
      held = null;
      return rest;
    },
  };
}

const CR = 13;
const NEWLINE = 10;
const QUOTE = 34;
const BACKSLASH = 92;
const SEP = Buffer.from('\n\n');

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
  const buf = Buffer.from(complete);
  return coalesceBytes(buf, buf.length, false).toString();
}

/**
 * The template's two sides as bytes, for comparing in place, and the joint between two events of its run: the
 * suffix, the blank line and the prefix, which stand between one event's string body and the next one's.
 */
interface ByteTemplate extends Template {
  prefixBytes: Buffer;
  suffixBytes: Buffer;
  jointBytes: Buffer;
}

/** Where the JSON string starting at byte `from` (after its opening quote) ends: its closing quote's index, or -1. */
function byteStringEnd(buf: Buffer, from: number, limit: number): number {
  for (let q = buf.indexOf(QUOTE, from); q !== -1 && q < limit; q = buf.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (buf[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

/** The pieces of a run (strings, and string bodies in `buf` as start and end) copied into one buffer. */
function joinPieces(buf: Buffer, pieces: readonly (number | string)[]): Buffer {
  let length = 0;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (typeof p === 'string') length += Buffer.byteLength(p);
    else length += (pieces[++i] as number) - p;
  }
  const out = Buffer.allocUnsafe(length);
  let o = 0;
  for (let i = 0; i < pieces.length; i++) {
    const p = pieces[i]!;
    if (typeof p === 'string') {
      o += out.write(p, o);
      continue;
    }
    const e = pieces[++i] as number;
    // A token's few bytes are copied here; a native call per piece would cost more than the copy.
    if (e - p > 64) o += buf.copy(out, o, p, e);
    else for (let k = p; k < e; k++) out[o++] = buf[k]!;
  }
  return out;
}

/**
 * Where the JSON string body starting at `from` ends, read in place: the index of its closing quote, or -1 when a line
 * end comes first (the event would end inside it) or `limit` is reached. A body is a few bytes (a token), so a plain
 * loop costs less than a native call.
 */
function plainStringEnd(buf: Buffer, from: number, limit: number): number {
  for (let i = from; i < limit; i++) {
    const c = buf[i]!;
    if (c === QUOTE) return i;
    if (c === BACKSLASH) i++;
    else if (c === NEWLINE) return -1;
  }
  return -1;
}

/**
 * `coalesceEvents` of `buf[0, end)` (events separated by blank lines), as bytes; `terminate` adds the blank line after
 * the last event. An event of an open run with a template is compared in place and its string body kept as its place
 * in `buf`: a burst of 50,000 deltas is one walk over the read, with no string or object made per event.
 */
function coalesceBytes(buf: Buffer, end: number, terminate: boolean): Buffer {
  const out: Uint8Array[] = [];
  let events = 0;
  const emit = (b: Uint8Array): void => {
    if (events++ > 0) out.push(SEP);
    out.push(b);
  };
  /**
   * The open run: its first event (parsed, and its bytes), its template, and its pieces: a string, or a string body
   * in `buf` given by its start and end (two numbers, so a run of 50,000 deltas makes no object per delta).
   */
  let run: { first: TextEvent; raw: Uint8Array; template: ByteTemplate | null; pieces: (number | string)[] } | null = null;
  const close = (): void => {
    if (!run) return;
    if (run.pieces.length === (run.template ? 2 : 1)) emit(run.raw);
    else if (run.template) {
      emit(run.template.prefixBytes);
      out.push(joinPieces(buf, run.pieces));
      out.push(run.template.suffixBytes);
    } else {
      run.first.holder[run.first.field] = run.pieces.join('');
      emit(Buffer.from(`${run.first.head}data: ${JSON.stringify(run.first.value)}`));
    }
    run = null;
  };
  for (let at = 0; at <= end; ) {
    let next = buf.indexOf(SEP, at);
    // A separator at `end` (or running past it) is not inside the range.
    if (next === -1 || next > end - 2) next = end;
    const t = run?.template;
    if (t && next - at >= t.prefixBytes.length + t.suffixBytes.length && t.prefixBytes.compare(buf, at, at + t.prefixBytes.length) === 0) {
      // The same event with other text: its string body is taken as it is (JSON escapes join as they are). The events
      // after it in the run are found from the one before: a body's closing quote followed by the joint (this event's
      // suffix, the blank line, the next event's prefix) ends this event and begins the next, so one comparison per
      // event checks both, and no separator is searched for (a body holds no line end: its scan stops at one, so no
      // event can end inside it).
      let body = at + t.prefixBytes.length;
      for (;;) {
        const closing = plainStringEnd(buf, body, end);
        if (closing === -1 || closing + t.jointBytes.length > end || t.jointBytes.compare(buf, closing, closing + t.jointBytes.length) !== 0) break;
        run!.pieces.push(body, closing);
        body = closing + t.jointBytes.length;
      }
      if (body !== at + t.prefixBytes.length) {
        // The event the joints ended at (its prefix checked): the last of the run in this read, or one that differs.
        at = body - t.prefixBytes.length;
        next = buf.indexOf(SEP, at);
        if (next === -1 || next > end - 2) next = end;
      }
      const closing = byteStringEnd(buf, body, next);
      if (closing !== -1 && next - closing === t.suffixBytes.length && t.suffixBytes.compare(buf, closing, next) === 0) {
        run!.pieces.push(body, closing);
        at = next + 2;
        continue;
      }
    }
    const start = at;
    const rawBytes = buf.subarray(at, next);
    at = next + 2;
    const raw = rawBytes.toString();
    const ev = textEventOf(raw);
    if (ev && run && ev.key === run.first.key && ev.head === run.first.head) {
      run.pieces.push(run.template ? JSON.stringify(ev.text).slice(1, -1) : ev.text);
      continue;
    }
    close();
    if (ev) {
      const found = templateOf(raw, ev);
      let template: ByteTemplate | null = null;
      if (found) {
        const prefixBytes = Buffer.from(found.prefix);
        const suffixBytes = Buffer.from(found.suffix);
        template = { ...found, prefixBytes, suffixBytes, jointBytes: Buffer.concat([suffixBytes, SEP, prefixBytes]) };
      }
      // The template's bytes must be the event's own (they are not where the event holds bytes that are not UTF-8).
      if (template && (template.prefixBytes.compare(rawBytes, 0, template.prefixBytes.length) !== 0 || template.suffixBytes.compare(rawBytes, rawBytes.length - template.suffixBytes.length) !== 0)) template = null;
      const pieces = template ? [start + template.prefixBytes.length, start + rawBytes.length - template.suffixBytes.length] : [ev.text];
      run = { first: ev, raw: rawBytes, template, pieces };
    } else emit(rawBytes);
  }
  close();
  if (terminate) out.push(SEP);
  return Buffer.concat(out);
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
