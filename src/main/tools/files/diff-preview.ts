/**
 * Unified diffs for write/edit approval previews. Only the changed middle of the file is diffed (common prefix and
 * suffix are cut at line boundaries first, keeping 3 lines of context), so a one-line edit in a 50 MB file is cheap.
 */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from 'diff';
import { countLines } from './fs-errors';

const CONTEXT = 3;
/** Above this many characters in the changed region, the preview becomes a summary. */
const MAX_DIFF_CHARS = 2_000_000;
const DIFF_TIMEOUT_MS = 1500;

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  // Compare in slices first (fast path for long equal prefixes), then char by char.
  const step = 4096;
  while (i + step <= n && a.slice(i, i + step) === b.slice(i, i + step)) i += step;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string, limit: number): number {
  let i = 0;
  const step = 4096;
  while (i + step <= limit && a.slice(a.length - i - step, a.length - i) === b.slice(b.length - i - step, b.length - i)) i += step;
  while (i < limit && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/** Index of the start of the line holding position `pos`. */
function lineStart(text: string, pos: number): number {
  return pos <= 0 ? 0 : text.lastIndexOf('\n', pos - 1) + 1;
}

function countNewlines(text: string, end: number): number {
  let n = 0;
  let i = -1;
  while ((i = text.indexOf('\n', i + 1)) !== -1 && i < end) n++;
  return n;
}

/**
 * A unified diff with `---`/`+++` headers. `oldText` null means the file is new (`--- /dev/null`).
 * Falls back to a one-line summary when the change is too large to diff quickly.
 */
export function unifiedDiff(shown: string, oldText: string | null, newText: string): string {
  const oldName = oldText === null ? '/dev/null' : `a/${shown}`;
  const newName = `b/${shown}`;
  const old = oldText ?? '';
  if (old === newText) return `--- ${oldName}\n+++ ${newName}\n(no changes)\n`;

  // Cut the common prefix back to a line start, then CONTEXT more lines.
  let start = lineStart(old, commonPrefix(old, newText));
  for (let k = 0; k < CONTEXT && start > 0; k++) start = lineStart(old, start - 1);
  const prefixLines = start === 0 ? 0 : countNewlines(old, start);

  // Cut the common suffix forward to a line start (inside the suffix, so the same point in both), then CONTEXT more.
  const suffix = commonSuffix(old, newText, Math.min(old.length, newText.length) - start);
  let endOld = old.length - suffix;
  if (suffix > 0) {
    for (let k = 0; k <= CONTEXT; k++) {
      const nl = old.indexOf('\n', endOld);
      if (nl === -1) {
        endOld = old.length;
        break;
      }
      endOld = nl + 1;
    }
  }
  const endNew = newText.length - (old.length - endOld);
  const midOld = old.slice(start, endOld);
  const midNew = newText.slice(start, endNew);

  const summary = (): string =>
    `--- ${oldName}\n+++ ${newName}\n(change too large to preview: ${countLines(old)} lines before, ${countLines(newText)} lines after)\n`;
  if (midOld.length + midNew.length > MAX_DIFF_CHARS) return summary();

  const patch = structuredPatch(oldName, newName, midOld, midNew, undefined, undefined, { context: CONTEXT, timeout: DIFF_TIMEOUT_MS });
  if (!patch) return summary();
  for (const h of patch.hunks) {
    h.oldStart += prefixLines;
    h.newStart += prefixLines;
  }
  return formatPatch(patch, FILE_HEADERS_ONLY);
}
