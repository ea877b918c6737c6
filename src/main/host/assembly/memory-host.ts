/**
 * What the memory and goal families need from the host: whether the person said a quote (their own messages only,
 * never wake-ups or goal-cycle messages, which Deskhand writes), the settled tool results evidence may cite, and
 * automatic extraction — a side call of the model after a finished turn that only *proposes* records.
 */
import { z } from 'zod';
import type { Records } from '../../runtime/records';
import { judgeQuote, type MemoryService } from '../../services/memory';
import type { QuoteCheck } from '../../tools/memory';
import type { EvidenceSource } from '../../services/goals';
import type { ProviderConfig } from '../../services/providers/providers';
import { parseReviewMessage } from './review-message';
import { parseWakeMessage } from './wake-message';

/** Marks the messages the goal loop writes (so they never count as the person's words). */
export const GOAL_CYCLE_TRAILER = 'This message comes from Deskhand, not from the person: the goal loop continues.';

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('\n');
  return '';
}

/** The person's own messages in a conversation (newest last), optionally only those of one run. */
export function personMessages(records: Records, conversationId: string, runId?: string): string[] {
  // A Stop hook's reason is a user-role message the model read, never the person's words.
  const hooks = records.compactions.hookMessageIds(conversationId);
  return records
    .listMessages(conversationId)
    .filter((m) => m.role === 'user' && !hooks.has(m.id) && (!runId || m.run_id === runId))
    .map((m) => textOf(JSON.parse(m.content) as unknown))
    .filter((t) => !t.endsWith(GOAL_CYCLE_TRAILER) && parseWakeMessage(t) === null)
    // A composition review: the person's words are theirs; the header and Deskhand's instructions are not.
    .map((t) => parseReviewMessage(t)?.text ?? t)
    .filter(Boolean);
}

/**
 * The quote rule over the messages the person typed: for a subagent, those of the conversation its tree started from
 * (its own user messages are briefs and steering its parent agent wrote, never the person's words).
 */
export function quoteCheck(records: Records): QuoteCheck {
  return {
    judge(conversationId, quote, fact) {
      const root = records.subagents.byConversation(conversationId)?.root_conversation_id ?? conversationId;
      return judgeQuote(quote, fact, personMessages(records, root));
    },
    isSubagent(conversationId) {
      return records.subagents.byConversation(conversationId) !== undefined;
    },
  };
}

export function evidenceSource(records: Records): EvidenceSource {
  return {
    resultOf(conversationId, callId) {
      const call = records.toolCallsForConversation(conversationId).find((c) => c.call_id === callId);
      if (!call || call.output === null || (call.status !== 'done' && call.status !== 'error')) return null;
      return { tool: call.tool, output: call.output, ok: call.status === 'done' && call.is_error === 0 };
    },
  };
}

const EXTRACTION_SYSTEM = [
  'You read one turn of a conversation between a person and their desktop agent and propose durable memory records:',
  'facts and preferences the PERSON stated about themselves, their work, or how they want things done, worth knowing in later conversations.',
  'Reply with JSON only: {"records": [{"scope": "workspace" | "project", "topic": "a few words", "body": "the fact in plain words", "quote": "the person\'s exact words it comes from"}]}.',
  'At most 8 records; {"records": []} when nothing is worth remembering. Never include secrets, and never anything that only the agent or a tool said.',
].join('\n');

const extracted = z.object({
  records: z
    .array(z.object({ scope: z.string().optional(), topic: z.string().min(1).max(200), body: z.string().min(1), quote: z.string().min(3).max(2000) }))
    .max(8),
});

export interface ExtractionDeps {
  records: Records;
  memory: MemoryService;
  complete(cfg: ProviderConfig, system: string, prompt: string): Promise<string>;
}

/**
 * After a finished turn the person started: one side call proposes records, which wait for the person (status
 * `proposed`). Nothing is ever saved active by extraction. Returns the ids proposed.
 */
export async function extractMemories(deps: ExtractionDeps, turn: { runId: string; conversationId: string; provider: ProviderConfig }): Promise<string[]> {
  if (!deps.memory.extractionEnabled()) return [];
  const said = personMessages(deps.records, turn.conversationId, turn.runId);
  if (!said.length) return [];
  const conv = deps.records.getConversation(turn.conversationId);
  if (!conv) return [];
  const replies = deps.records
    .listMessages(turn.conversationId)
    .filter((m) => m.role === 'assistant' && m.run_id === turn.runId)
    .map((m) => textOf(JSON.parse(m.content) as unknown))
    .join('\n')
    .slice(-4000);
  const prompt = `The person said:\n${said.join('\n').slice(0, 8000)}\n\nThe agent answered:\n${replies}`;
  const text = await deps.complete(turn.provider, EXTRACTION_SYSTEM, prompt);
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) return [];
  let parsed: z.infer<typeof extracted>;
  try {
    parsed = extracted.parse(JSON.parse(text.slice(start, end + 1)));
  } catch {
    return [];
  }
  const known = new Set(deps.memory.list({ folder: conv.folder }).map((r) => norm(`${r.topic} ${r.body}`)));
  const quotes = quoteCheck(deps.records);
  const ids: string[] = [];
  for (const r of parsed.records) {
    // Only the person's own words, never the user scope (that is written only through the explicit tool), no duplicates.
    if (quotes.judge(turn.conversationId, r.quote, r.body) !== null || known.has(norm(`${r.topic} ${r.body}`))) continue;
    try {
      const { record } = deps.memory.add(
        { scope: r.scope === 'project' ? 'project' : 'workspace', topic: r.topic, body: r.body, quote: r.quote },
        { folder: conv.folder, actor: 'automatic extraction', conversationId: turn.conversationId, status: 'proposed', source: 'extraction' },
      );
      ids.push(record.id);
      known.add(norm(`${r.topic} ${r.body}`));
    } catch {
      // a record over a limit is dropped, never retried
    }
  }
  return ids;
}
