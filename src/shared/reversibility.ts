/**
 * Whether an approval's call can be taken back (runtime/decision/reversibility.ts computes it; docs/rewind.md). An approval
 * request's `data` carries it as `{ reversibility }`; the card shows `words`. Pure.
 */
export interface ReversibilityFact {
  /** undoable: from the change list; irreversible: some of it cannot be taken back; no-change: it changes no files. */
  kind: 'undoable' | 'irreversible' | 'no-change';
  /** One sentence in plain words for the card. */
  words: string;
  /** Why it cannot be taken back (empty otherwise). */
  reasons: string[];
}

/** The fact an approval request's data carries, or null (an older row, an input request). */
export function reversibilityOf(data: unknown): ReversibilityFact | null {
  if (!data || typeof data !== 'object') return null;
  const r = (data as { reversibility?: unknown }).reversibility;
  if (!r || typeof r !== 'object') return null;
  const { kind, words, reasons } = r as Partial<ReversibilityFact>;
  if ((kind !== 'undoable' && kind !== 'irreversible' && kind !== 'no-change') || typeof words !== 'string') return null;
  return { kind, words, reasons: Array.isArray(reasons) ? reasons.filter((x): x is string => typeof x === 'string') : [] };
}
