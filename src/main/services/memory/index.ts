/**
 * The memory service's interface (tools import only this module): records the person taught the agent, lessons the
 * agent proposed, each change with a receipt and a diff, full-text search (FTS5), and recall as untrusted data.
 */
import type { MemoryReceiptRow, MemoryRow, MemoryScope, MemoryStatus, ScopeRef, ScratchpadRow } from '../store/modules/memory';

export { judgeQuote } from './quote';
export type { MemoryReceiptRow as MemoryReceipt, MemoryRow as MemoryRecord, MemoryScope, MemoryStatus, ScopeRef, ScratchpadRow };

/** The person confirmed the record as it stands (accepted or edited it): recalling it does not taint a run. */
export const personConfirmed = (r: Pick<MemoryRow, 'confirmed'>): boolean => r.confirmed === 1;

/** Spec II's hard limits. */
export const MEMORY_LIMITS = { bodyBytes: 4096, topicChars: 200, quoteChars: 2000, perScope: 200 } as const;
export const MEMORY_SCOPES = ['user', 'workspace', 'project'] as const;

export interface MemoryDraft {
  scope: MemoryScope;
  topic: string;
  body: string;
  /** The person's exact words the record comes from; null only for lessons. */
  quote: string | null;
}

export interface Changed {
  record: MemoryRow;
  receipt: MemoryReceiptRow;
}

export interface MemoryService {
  /** The scopes a conversation in `folder` sees: user, its workspace (the folder) and its project (the git root). */
  scopesFor(folder: string): ScopeRef[];
  add(draft: MemoryDraft, opts: { folder: string; actor: string; conversationId?: string | null; kind?: MemoryRow['kind']; status?: MemoryStatus; source?: MemoryRow['source'] }): Changed;
  /** `byPerson`: the person edited it (the record counts as confirmed); otherwise it counts as agent-written. */
  update(id: string, patch: Partial<Pick<MemoryDraft, 'topic' | 'body' | 'quote'>>, opts: { actor: string; conversationId?: string | null; byPerson?: boolean }): Changed;
  remove(id: string, opts: { actor: string; conversationId?: string | null }): MemoryReceiptRow;
  /** The person accepts a proposed record or lesson: it becomes active (and is recalled from then on). */
  accept(id: string, actor: string): Changed;
  reject(id: string, actor: string): Changed;
  get(id: string): MemoryRow | undefined;
  list(filter?: { kind?: MemoryRow['kind']; status?: MemoryStatus; folder?: string }): MemoryRow[];
  /** Active records of the folder's scopes matching the words of `query` (FTS5, bm25 order). */
  search(query: string, folder: string, limit?: number, kind?: MemoryRow['kind']): MemoryRow[];
  /** Changes whenever any record changes, in this process or another: a search result stands until it does. */
  generation(): number;
  receipts(id: string): MemoryReceiptRow[];
  extractionEnabled(): boolean;
  setExtraction(on: boolean): void;
  /** The workspace's scratchpad (the folder's), shared by every conversation there; null when it is empty. */
  scratchpad(folder: string): ScratchpadRow | null;
  /**
   * Changes the workspace's scratchpad in one transaction: `next` gets the current text and returns the new one (it
   * may throw to refuse). `taints`: the new text carries what the current one did plus this writer's taint, unless
   * `replaces` (the old text is gone).
   */
  updateScratchpad(folder: string, next: (current: string) => string, opts: { tainted: boolean; replaces: boolean }): ScratchpadRow | null;
}

/** An FTS5 query from free text: each word quoted (no operators reach FTS5), any of them may match. */
export function ftsQuery(text: string, maxTerms = 32): string | null {
  const words = [...new Set((text.toLowerCase().match(/[\p{L}\p{N}_]{2,}/gu) ?? []).filter((w) => !STOP.has(w)))].slice(0, maxTerms);
  return words.length ? words.map((w) => `"${w}"`).join(' OR ') : null;
}

const STOP = new Set(['the', 'and', 'for', 'you', 'with', 'that', 'this', 'are', 'was', 'but', 'not', 'have', 'has', 'can', 'from', 'what', 'how', 'its', 'our', 'your', 'please', 'into', 'use']);

/** A receipt's diff: a unified-style diff of the record as text (topic line, then the body). */
export function recordDiff(before: { topic: string; body: string; scope: string } | null, after: { topic: string; body: string; scope: string } | null): string {
  const lines = (r: typeof before) => (r ? [`scope: ${r.scope}`, `topic: ${r.topic}`, ...r.body.split('\n')] : []);
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out = [`--- ${before ? 'before' : '/dev/null'}`, `+++ ${after ? 'after' : '/dev/null'}`, `@@ -${start + 1},${endA - start} +${start + 1},${endB - start} @@`];
  for (const l of a.slice(0, start)) out.push(` ${l}`);
  for (const l of a.slice(start, endA)) out.push(`-${l}`);
  for (const l of b.slice(start, endB)) out.push(`+${l}`);
  for (const l of a.slice(endA)) out.push(` ${l}`);
  return out.join('\n');
}
