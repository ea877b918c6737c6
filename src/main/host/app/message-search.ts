/**
 * Searching what was said: words typed in the sidebar become an FTS5 query (each word a quoted prefix term, so no
 * input can be FTS syntax), matched against message text (user messages and the model's replies).
 */
import type { MethodResult } from '../../../shared/contract';
import { type Records } from '../../runtime/records';

const MAX_TERMS = 8;

/** `deploy stag` → `"deploy"* "stag"*`; null when there is no word to search for. */
export function ftsQuery(input: string): string | null {
  const words = input
    .normalize('NFKC')
    .split(/[^\p{L}\p{N}_]+/u)
    .filter(Boolean)
    .slice(0, MAX_TERMS);
  if (!words.length) return null;
  return words.map((w) => `"${w.replace(/"/g, '""')}"*`).join(' ');
}

export function searchMessages(store: Records, query: string, limit: number): MethodResult<'searchMessages'> {
  const match = ftsQuery(query);
  if (!match) return { matches: [] };
  const titles = new Map<string, string>();
  const matches = store.searchMessages(match, limit).map((m) => {
    if (!titles.has(m.conversation_id)) titles.set(m.conversation_id, store.getConversation(m.conversation_id)?.title ?? '');
    return {
      conversationId: m.conversation_id,
      conversationTitle: titles.get(m.conversation_id)!,
      itemId: `m${m.message_id}`,
      role: m.role,
      snippet: m.snippet,
      at: m.created_at,
    };
  });
  return { matches };
}
