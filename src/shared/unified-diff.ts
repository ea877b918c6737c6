/** Parses a unified diff (as the write/edit previews produce) into rows with old and new line numbers. Pure. */
export type DiffRowKind = 'file' | 'hunk' | 'context' | 'add' | 'del' | 'note';

export interface DiffRow {
  kind: DiffRowKind;
  text: string;
  oldLine: number | null;
  newLine: number | null;
}

export function looksLikeUnifiedDiff(text: string): boolean {
  return /^--- .*\n\+\+\+ /m.test(text) || /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/m.test(text);
}

export function parseUnifiedDiff(text: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 0;
  let newLine = 0;
  let inHunk = false;
  // Lines left in the current hunk, from its header: a hunk ends when both run out.
  let oldLeft = 0;
  let newLeft = 0;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    if (inHunk && oldLeft <= 0 && newLeft <= 0 && !line.startsWith('\\')) inHunk = false;
    const hunk = inHunk ? null : /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      newLine = Number(hunk[3]);
      newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      inHunk = true;
      rows.push({ kind: 'hunk', text: line, oldLine: null, newLine: null });
    } else if (!inHunk && (line.startsWith('--- ') || line.startsWith('+++ ') || line.startsWith('Index: ') || line.startsWith('==='))) {
      rows.push({ kind: 'file', text: line, oldLine: null, newLine: null });
    } else if (inHunk && line.startsWith('+')) {
      newLeft--;
      rows.push({ kind: 'add', text: line.slice(1), oldLine: null, newLine: newLine++ });
    } else if (inHunk && line.startsWith('-')) {
      oldLeft--;
      rows.push({ kind: 'del', text: line.slice(1), oldLine: oldLine++, newLine: null });
    } else if (inHunk && (line.startsWith(' ') || line === '')) {
      oldLeft--;
      newLeft--;
      rows.push({ kind: 'context', text: line.slice(1), oldLine: oldLine++, newLine: newLine++ });
    } else {
      // "\ No newline at end of file", summaries like "(change too large to preview…)"
      rows.push({ kind: 'note', text: line, oldLine: null, newLine: null });
    }
  }
  return rows;
}
