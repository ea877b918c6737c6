/**
 * Makes the exact text of an approval visible: control characters, invisible and bidirectional characters, and
 * non-ASCII look-alikes become labelled segments, so "rm -rf ./build" cannot hide a U+202E or a Cyrillic "а".
 * Pure: the renderer turns segments into marked spans.
 */
export type SegmentKind = 'plain' | 'newline' | 'tab' | 'control' | 'invisible' | 'lookalike' | 'nonascii';

export interface Segment {
  kind: SegmentKind;
  text: string;
  /** What is shown for a marked character: `\x1b`, `U+200B`, `U+0430`. */
  label?: string;
}

export type VisibleMode =
  /** Arguments: every non-ASCII character is marked. */
  | 'strict'
  /** File content (diffs): only control, invisible and look-alike characters are marked. */
  | 'content';

const INVISIBLE = /[\u00ad\u00a0\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]/;
// Scripts whose letters pass for Latin ones: Greek, Cyrillic, Armenian, Cherokee, fullwidth forms, math alphanumerics.
const LOOKALIKE = /[\u0370-\u03ff\u0400-\u052f\u0531-\u058f\u13a0-\u13ff\u1d00-\u1dbf\u2100-\u214f\uff01-\uff5e]|\ud835[\udc00-\udfff]/;

/**
 * Ordinary typography that no ASCII character passes for (a middle dot, a bullet, arrows, ×, °, currency signs): shown
 * as is in arguments too. Dashes, curly quotes and the like stay marked: they pass for `-`, `'` and `"`.
 */
const ORDINARY = /[\u00a2\u00a3\u00a5\u00a7\u00a9\u00ae\u00b0\u00b6\u00b7\u00d7\u00f7\u2022\u20ac\u2190-\u2193]/;

function hex(cp: number): string {
  return cp.toString(16).toUpperCase().padStart(4, '0');
}

export function visibleSegments(text: string, mode: VisibleMode = 'strict'): Segment[] {
  const out: Segment[] = [];
  let plain = '';
  const flush = () => {
    if (plain) out.push({ kind: 'plain', text: plain });
    plain = '';
  };
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === '\n') {
      flush();
      out.push({ kind: 'newline', text: ch, label: '↵' });
    } else if (ch === '\t') {
      flush();
      out.push({ kind: 'tab', text: ch, label: '⇥' });
    } else if (cp < 0x20 || cp === 0x7f || (cp >= 0x80 && cp < 0xa0)) {
      flush();
      out.push({ kind: 'control', text: ch, label: cp <= 0xff ? `\\x${cp.toString(16).padStart(2, '0')}` : `U+${hex(cp)}` });
    } else if (INVISIBLE.test(ch) || (cp >= 0xe0000 && cp <= 0xe007f)) {
      flush();
      out.push({ kind: 'invisible', text: ch, label: `U+${hex(cp)}` });
    } else if (cp > 0x7e && LOOKALIKE.test(ch)) {
      flush();
      out.push({ kind: 'lookalike', text: ch, label: `U+${hex(cp)}` });
    } else if (cp > 0x7e && mode === 'strict' && !ORDINARY.test(ch)) {
      flush();
      out.push({ kind: 'nonascii', text: ch, label: `U+${hex(cp)}` });
    } else {
      plain += ch;
    }
  }
  flush();
  return out;
}

/** True when the text has anything a person should look at twice. */
export function hasHiddenCharacters(text: string): boolean {
  return visibleSegments(text, 'content').some((s) => s.kind === 'control' || s.kind === 'invisible' || s.kind === 'lookalike');
}
