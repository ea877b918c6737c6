/** A shell word as the classifier sees it (its static value, if any), and what the walk reads from words and text. */
import type { ShNode } from './sh';

export interface WordInfo {
  /** Source text. */
  text: string;
  /** The value after quote removal when the word is fully static (no expansion, glob, brace or tilde); else null. */
  value: string | null;
  /** Static apart from expansions that are all inside double quotes (no word splitting, no globbing). */
  single: boolean;
  /** A bare unquoted name with no escapes: the only shape accepted for a command name. */
  plainName: boolean;
  /** For a plain name: the source text of its single unquoted literal. */
  raw: string | null;
  node: ShNode;
}

export function isGlobOrBrace(raw: string): boolean {
  let braceOpen = -1;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '*' || c === '?' || c === '[') return true;
    if (c === '{') braceOpen = i;
    if (c === '}' && braceOpen >= 0) {
      const inner = raw.slice(braceOpen + 1, i);
      if (inner.includes(',') || inner.includes('..')) return true;
    }
  }
  return false;
}

export function unescapeUnquoted(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\' && i + 1 < raw.length) {
      const next = raw[++i]!;
      if (next !== '\n') out += next;
    } else out += c;
  }
  return out;
}

export function unescapeDoubleQuoted(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    const next = raw[i + 1];
    if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
      i++;
      if (next !== '\n') out += next;
    } else out += c;
  }
  return out;
}

/**
 * The path a word most likely names, for the sensitive-path check only (best effort): its value when it is a plain
 * literal, else its text with quotes removed and a leading ~, $HOME or ${HOME} expanded, when that is a plain path.
 */
export function guessPath(w: WordInfo): string | null {
  if (w.value !== null) return w.value;
  // ~ is left for the path guard, which expands it with the home it was given.
  const text = w.text.replace(/["']/g, '').replace(/^(~|\$HOME|\$\{HOME\})(?=\/|$)/, '~');
  return /^[\w./@%+=:,~-]+$/.test(text) && (text.includes('/') || text === '~') ? text : null;
}

/** Characters that hide what a command does: C0/C1 controls (except tab and newline), bidi overrides, zero-widths. */
export function invisibleCharacter(s: string): string | null {
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 0x09 || c === 0x0a) continue;
    if (c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f)) return `a control character (U+${c.toString(16).padStart(4, '0').toUpperCase()})`;
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c === 0x200e || c === 0x200f || c === 0x061c) {
      return `a bidirectional override (U+${c.toString(16).toUpperCase()})`;
    }
    if (
      (c >= 0x200b && c <= 0x200d) ||
      (c >= 0x2060 && c <= 0x2064) ||
      (c >= 0xfe00 && c <= 0xfe0f) ||
      (c >= 0xe0000 && c <= 0xe007f) ||
      [0xfeff, 0x00ad, 0x180e, 0x115f, 0x1160, 0x3164, 0xffa0, 0x034f].includes(c)
    ) {
      return `an invisible character (U+${c.toString(16).toUpperCase()})`;
    }
  }
  return null;
}
