/**
 * A line diff as unified-diff text (for DiffView): common head and tail lines are trimmed, the middle is diffed by
 * longest common subsequence when it is small enough, else shown as replaced whole. Pure; used by the compositions
 * viewer to compare two versions' sources.
 */
const MAX_CELLS = 4_000_000;

export function lineDiff(oldText: string, newText: string, oldName: string, newName: string): string {
  const a = oldText.split('\n');
  const b = newText.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  const out = [`--- ${oldName}`, `+++ ${newName}`];
  if (am.length === 0 && bm.length === 0) return `${out.join('\n')}\n@@ -1,0 +1,0 @@\n (no differences)\n`;
  const ctx = 3;
  const from = Math.max(0, head - ctx);
  const before = a.slice(from, head).map((l) => ` ${l}`);
  const after = a.slice(a.length - tail, Math.min(a.length, a.length - tail + ctx)).map((l) => ` ${l}`);
  let body: string[];
  if (am.length * bm.length > MAX_CELLS) body = [...am.map((l) => `-${l}`), ...bm.map((l) => `+${l}`)];
  else body = lcsRows(am, bm);
  const oldCount = before.length + am.length + after.length;
  const newCount = before.length + bm.length + after.length;
  out.push(`@@ -${from + 1},${oldCount} +${from + 1},${newCount} @@`, ...before, ...body, ...after);
  return `${out.join('\n')}\n`;
}

function lcsRows(a: string[], b: string[]): string[] {
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const t = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) t[i * w + j] = a[i] === b[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
  }
  const rows: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      rows.push(` ${a[i]}`);
      i++;
      j++;
    } else if (t[(i + 1) * w + j]! >= t[i * w + j + 1]!) rows.push(`-${a[i++]}`);
    else rows.push(`+${b[j++]}`);
  }
  while (i < n) rows.push(`-${a[i++]}`);
  while (j < m) rows.push(`+${b[j++]}`);
  return rows;
}

/**
 * The change a call's arguments describe, as unified-diff text: a replacement (`old_string` → `new_string`, by the
 * arguments' shape, whichever tool sent them), named by its `path`. Null for any other arguments.
 */
export function replacementDiff(args: unknown): string | null {
  if (!args || typeof args !== 'object') return null;
  const a = args as { old_string?: unknown; new_string?: unknown; path?: unknown };
  if (typeof a.old_string !== 'string' || typeof a.new_string !== 'string') return null;
  const name = typeof a.path === 'string' && a.path ? a.path : 'file';
  return lineDiff(a.old_string, a.new_string, `a/${name}`, `b/${name}`);
}
