/**
 * Prose that Markdown would render as one plain paragraph, recognised without parsing: no character that could open
 * emphasis, code, a link, an autolink, an entity, raw HTML or an escape, and no line that could open a block (list,
 * heading, quote, rule, setext underline, indented code, table). For such a chunk the renderer skips react-markdown
 * (≈ 1 ms of parser set-up plus ≈ 1 ms per 1,000 characters) and emits the same `<p>` — which matters for a
 * streaming reply, whose last chunk is rendered again on every token. test/renderer/rendering.test.ts compares both
 * outputs on generated text full of the characters that matter.
 *
 * Returns the paragraph's text as Markdown would give it (leading and trailing spaces of each line dropped), or null when the
 * chunk needs the parser.
 */

/** Anything that can start inline syntax (or is not plain text), wherever it is in the line. */
const INLINE = /[\\`*_[\]<&~|\t\r\0\u000b\u000c]|https?:|mailto:|xmpp:|www\.|@/i;
/** A line (its indentation removed) that can start or close a block: list markers, headings, quotes, rules, setext underlines. */
const BLOCK_START = /^(?:[-+=#>]|\d{1,9}[.)])/;

export function plainParagraph(chunk: string): string | null {
  if (!chunk || INLINE.test(chunk)) return null;
  const lines = chunk.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const indent = /^ */.exec(raw)![0].length;
    // Four spaces open indented code on the first line; a paragraph's later lines lose their indentation, but one
    // indented that far is left to the parser (it is not what a model's prose looks like).
    if (indent > 3) return null;
    const line = raw.slice(indent);
    if (line.trim() === '' || BLOCK_START.test(line)) return null;
    // Two spaces before a line break make a hard break (<br>); one is dropped.
    if (i < lines.length - 1 && / {2}$/.test(line)) return null;
    out.push(line.replace(/ +$/, ''));
  }
  return out.join('\n');
}

/**
 * A code block still being written: the chunk opens a backtick fence (no indentation, at most a one-word language)
 * and nothing in it can close the fence yet. Markdown makes its lines, verbatim, the code of one block, so the
 * renderer shows its code block without parsing (the block's highlighting still runs). Null otherwise.
 */
export function openFence(chunk: string): { lang: string; code: string } | null {
  const open = /^```([A-Za-z0-9_+-]*)\n/.exec(chunk);
  if (!open || /[\r\0]/.test(chunk)) return null;
  const body = chunk.slice(open[0].length);
  // A line of three backticks (up to three spaces in) could close it: left to the parser.
  if (/^ {0,3}```/m.test(body)) return null;
  // The block's code does not include the line ending of its last line.
  return { lang: open[1]!, code: body.replace(/\n$/, '') };
}

/** A piece of a paragraph recognised without parsing: text, a code span, or strong text. */
export type InlinePiece = { t: 'text'; v: string } | { t: 'code'; v: string } | { t: 'strong'; v: string };

/**
 * A code span's content in its simplest spelling (one backtick each side): no backtick, no pipe (a table's cell edge),
 * no control character, and not starting or ending with a space (Markdown would strip one).
 */
const CODE_CONTENT = /^(?:[^`|\s]|[^`|\s][^`|\t\r\n\0\u000b\u000c]*[^`|\s])$/;
/**
 * Strong text in its simplest spelling: `**` each side of ASCII letters, digits, spaces and light punctuation that
 * starts and ends with a letter or digit (so both delimiters are flanking the only way they can be), after the start
 * of the line or a space and before its end, a space or a sentence's punctuation.
 */
const STRONG = /(?<=^| )\*\*([A-Za-z0-9](?:[A-Za-z0-9 ,.;:!?'"()-]*[A-Za-z0-9])?)\*\*(?=$|[ ,.;:!?)])/g;

/**
 * Prose whose only Markdown is code spans and strong text in their simplest spellings (above): the paragraph as
 * react-markdown would render it, as pieces, or null when the chunk needs the parser. The rest of the text obeys
 * `plainParagraph`'s rules (no other inline syntax, no line that could open a block, no hard break); a piece never
 * spans a line. test/renderer/rendering.test.ts compares both outputs on generated text.
 */
export function inlineParagraph(chunk: string): InlinePiece[] | null {
  if (!chunk || /[\t\r\0\u000b\u000c]/.test(chunk)) return null;
  const lines = chunk.split('\n');
  const pieces: InlinePiece[] = [];
  const text = (v: string) => {
    if (!v) return;
    const last = pieces[pieces.length - 1];
    if (last?.t === 'text') last.v += v;
    else pieces.push({ t: 'text', v });
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const indent = /^ */.exec(raw)![0].length;
    if (indent > 3) return null;
    const line = raw.slice(indent);
    if (line.trim() === '' || BLOCK_START.test(line)) return null;
    if (i < lines.length - 1 && / {2}$/.test(line)) return null;
    const body = line.replace(/ +$/, '');
    // Code spans first (they bind before anything else), then strong text in what is left; every other character
    // must be plain.
    // Backticks pair up left to right: every second part between them is a span's content, each of which must be
    // in the simplest spelling (and an odd count, a lone backtick, goes to the parser).
    const parts = body.split('`');
    if (parts.length % 2 === 0) return null;
    const spans: { start: number; end: number; piece: InlinePiece }[] = [];
    const rest: { start: number; end: number }[] = [];
    let at = 0;
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k]!;
      if (k % 2 === 1) {
        if (!CODE_CONTENT.test(part)) return null;
        spans.push({ start: at - 1, end: at + part.length + 1, piece: { t: 'code', v: part } });
      } else {
        // Two backticks in a row are one run of two, which only a run of two closes: the parser's.
        if (part === '' && k > 0 && k < parts.length - 1) return null;
        rest.push({ start: at, end: at + part.length });
      }
      at += part.length + 1;
    }
    const out: { start: number; end: number; piece: InlinePiece }[] = [...spans];
    for (const r of rest) {
      const part = body.slice(r.start, r.end);
      let plainFrom = 0;
      const plainParts: string[] = [];
      for (const m of part.matchAll(STRONG)) {
        // A strong run must stand where the whole line would see it so: the line's own characters around it.
        const before = body[r.start + m.index - 1];
        const after = body[r.start + m.index + m[0].length];
        if ((before !== undefined && before !== ' ') || (after !== undefined && !/[ ,.;:!?)]/.test(after))) return null;
        plainParts.push(part.slice(plainFrom, m.index));
        out.push({ start: r.start + m.index, end: r.start + m.index + m[0].length, piece: { t: 'strong', v: m[1]! } });
        plainFrom = m.index + m[0].length;
      }
      plainParts.push(part.slice(plainFrom));
      if (plainParts.some((p) => INLINE.test(p))) return null;
    }
    out.sort((a, b) => a.start - b.start);
    if (i > 0) text('\n');
    let pos = 0;
    for (const o of out) {
      text(body.slice(pos, o.start));
      pieces.push(o.piece);
      pos = o.end;
    }
    text(body.slice(pos));
  }
  return pieces;
}
