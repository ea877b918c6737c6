/**
 * For people, not the model: the untrusted envelope (`<untrusted source="…" nonce="…">…</untrusted nonce="…">`, see
 * runtime/context/untrusted.ts) is how the model is told which text came from outside. Tool cards and the CLI show the text
 * inside it and name its source once, instead of the raw tags and nonces.
 */
export interface DisplayText {
  /** The text with every envelope's tags removed (bodies kept, in order). */
  text: string;
  /** The sources named by the envelopes, in order of first appearance ("command output", a URL…). */
  sources: string[];
}

const OPEN = /<untrusted source="([^"]*)" nonce="([0-9a-f]{8,64})">\n?/g;

export function forDisplay(raw: string): DisplayText {
  const sources: string[] = [];
  let text = '';
  let at = 0;
  OPEN.lastIndex = 0;
  for (let m = OPEN.exec(raw); m; m = OPEN.exec(raw)) {
    const close = `</untrusted nonce="${m[2]}">`;
    const end = raw.indexOf(close, OPEN.lastIndex);
    text += raw.slice(at, m.index);
    if (!sources.includes(m[1]!)) sources.push(m[1]!);
    if (end === -1) {
      // A cut preview: the close tag is beyond what was sent.
      text += raw.slice(OPEN.lastIndex);
      at = raw.length;
      break;
    }
    text += raw.slice(OPEN.lastIndex, end).replace(/\n$/, '');
    at = end + close.length;
    OPEN.lastIndex = at;
  }
  text += raw.slice(at);
  return { text, sources };
}
