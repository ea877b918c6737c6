/**
 * A page of a task's log whose edges never cut a secret: the text around the page is redacted first, and each edge is
 * moved to a place where redacting the two sides apart gives the same text as redacting them together (so neither side
 * holds part of a credential shape or of a held secret that the whole would have hidden).
 */
import type { LogPage } from '../../services/tasks';

/** Text read on each side of a page so a secret straddling an edge is seen whole (PEM blocks, long tokens). */
export const EDGE_MARGIN_BYTES = 16 * 1024;
/** Edge positions tried before giving up on a closer one (each try redacts the window twice). */
const MAX_TRIES = 200;

type ReadPage = (offset: number | undefined, limit: number) => LogPage;

/** A cut at `at` (a character index of `text`) is safe when it splits no redaction. */
function safeAt(text: string, whole: string, at: number, redact: (t: string) => string): boolean {
  return redact(text.slice(0, at)) + redact(text.slice(at)) === whole;
}

/** Candidate cuts: `at` itself, then places just after a non-word character, walking in `dir`. */
function findCut(text: string, whole: string, from: number, lo: number, hi: number, dir: -1 | 1, redact: (t: string) => string): number | null {
  let tries = 0;
  for (let at = from; at >= lo && at <= hi && tries < MAX_TRIES; at += dir) {
    if (at !== from && at !== lo && at !== hi && /\w/.test(text[at - 1] ?? '')) continue;
    tries++;
    if (safeAt(text, whole, at, redact)) return at;
  }
  return null;
}

export function readRedactedPage(read: ReadPage, offset: number | undefined, limit: number, redact: (t: string) => string): LogPage {
  const page = read(offset, limit);
  if (page.text === '') return page;
  const winStart = Math.max(0, page.offset - EDGE_MARGIN_BYTES);
  const win = read(winStart, page.end - winStart + EDGE_MARGIN_BYTES);
  const text = win.text;
  const whole = redact(text);
  if (whole === text) return page; // nothing to hide near this page
  const bytes = (chars: number) => win.offset + Buffer.byteLength(text.slice(0, chars));
  const charAt = (byte: number) => Buffer.from(text).subarray(0, byte - win.offset).toString('utf8').length;
  const s0 = charAt(page.offset);
  const e0 = charAt(page.end);
  const atStart = win.offset === 0 && s0 === 0;
  const atEnd = e0 === text.length && win.end === win.total;
  // The start moves forward (or, failing that, back); the end moves back (or, failing that, forward); a window edge
  // that is the log's own edge is always safe.
  let s = atStart ? 0 : (findCut(text, whole, s0, 0, e0, 1, redact) ?? findCut(text, whole, s0, 0, s0, -1, redact) ?? 0);
  let e = atEnd ? text.length : (findCut(text, whole, e0, s + 1, text.length, -1, redact) ?? findCut(text, whole, e0, e0, text.length, 1, redact) ?? text.length);
  if (e <= s) {
    s = Math.min(s, s0);
    e = text.length;
  }
  return { text: text.slice(s, e), offset: bytes(s), end: bytes(e), total: page.total };
}
