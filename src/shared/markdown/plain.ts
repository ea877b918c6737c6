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
