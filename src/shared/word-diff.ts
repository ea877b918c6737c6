/**
 * Word-level changes inside a diff's changed lines (for DiffView): in each block of removed lines followed by added
 * lines, the n-th removed line is paired with the n-th added one and compared word by word (jsdiff's
 * diffWordsWithSpace). A pair with nothing in common is left unmarked (the whole line changed; marking every word
 * says nothing), and so are very long lines.
 */
import { diffWordsWithSpace } from 'diff';
import type { DiffRow } from './unified-diff';

export interface WordSegment {
  text: string;
  /** This piece was removed (on a removed line) or added (on an added line). */
  changed: boolean;
}

const MAX_LINE = 2000;

/** Segments per row index, for the removed/added rows that pair up; rows not in the map are shown whole. */
export function wordChanges(rows: readonly DiffRow[]): Map<number, WordSegment[]> {
  const out = new Map<number, WordSegment[]>();
  let i = 0;
  while (i < rows.length) {
    if (rows[i]!.kind !== 'del') {
      i++;
      continue;
    }
    const delStart = i;
    while (i < rows.length && rows[i]!.kind === 'del') i++;
    const addStart = i;
    while (i < rows.length && rows[i]!.kind === 'add') i++;
    const pairs = Math.min(addStart - delStart, i - addStart);
    for (let k = 0; k < pairs; k++) {
      const pair = pairLine(rows[delStart + k]!.text, rows[addStart + k]!.text);
      if (!pair) continue;
      out.set(delStart + k, pair.removed);
      out.set(addStart + k, pair.added);
    }
  }
  return out;
}

export function pairLine(oldLine: string, newLine: string): { removed: WordSegment[]; added: WordSegment[] } | null {
  if (oldLine.length > MAX_LINE || newLine.length > MAX_LINE || oldLine === newLine) return null;
  const parts = diffWordsWithSpace(oldLine, newLine);
  // Nothing but whitespace in common: the line was replaced, not edited.
  if (!parts.some((p) => !p.added && !p.removed && p.value.trim() !== '')) return null;
  const removed: WordSegment[] = [];
  const added: WordSegment[] = [];
  for (const p of parts) {
    if (!p.added) push(removed, p.value, Boolean(p.removed));
    if (!p.removed) push(added, p.value, Boolean(p.added));
  }
  return { removed, added };
}

function push(list: WordSegment[], text: string, changed: boolean): void {
  const last = list[list.length - 1];
  if (last && last.changed === changed) last.text += text;
  else list.push({ text, changed });
}
