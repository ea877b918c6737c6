/**
 * Tool-call ids, kept apart from the provider's numbering.
 *
 * A provider's id only has to tell the calls of one reply apart: some number them per response or per process (a
 * local server restarted mid-conversation sends `call_1` again), some use characters another provider refuses
 * (`functions.read_file:0` from an OpenAI-compatible server; Anthropic takes only `^[a-zA-Z0-9_-]+$`). So:
 * - A call's key in Deskhand (its row's `call_id`, the id stored in the transcript) is the provider's id while that
 *   id is new to the conversation, and otherwise one built from where the call stands (run, step, position), which
 *   no other call has. A repeat across steps just runs; a repeat within one reply is still refused (callers), since
 *   the model could not tell which result answers which call.
 * - Every request maps the stored ids to ids its wire takes (`wireHistory`): kept as they are where valid and unique
 *   in the request, else replaced deterministically (the same history maps the same way on every request, so the
 *   provider's prompt cache still matches).
 * The same pass leaves out assistant text that is only whitespace (Anthropic refuses "text content blocks must
 * contain non-whitespace text"), so a history written under any provider replays to any other.
 */
import { createHash } from 'node:crypto';

/** Anthropic's pattern for `tool_use.id` (and so for every `tool_result.tool_use_id`). */
export const ANTHROPIC_CALL_ID = /^[a-zA-Z0-9_-]+$/;

/** Which id rules a request's wire has: Anthropic's pattern, or any string (OpenAI chat and compatible servers). */
export type CallIdWire = 'anthropic' | 'openai';

export function callIdWireOf(providerId: string): CallIdWire {
  return providerId.startsWith('anthropic') ? 'anthropic' : 'openai';
}

/** The key of a call whose provider id the conversation already has: the id's readable part, then run, step, position. */
export function positionalCallId(providerId: string, runId: string, step: number, position: number): string {
  const readable = providerId.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 32) || 'call';
  return `${readable}_${runId.replace(/^run_/, '').slice(0, 8)}_s${step}_${position}`;
}

type Part = Record<string, unknown> & { type?: unknown };
interface Msg {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: unknown;
}

const short = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

/** The id `id` goes out as on `wire`, before it is made unique in the request. */
function wireForm(id: string, wire: CallIdWire): string {
  if (wire === 'openai') return id === '' ? `call_${short(id)}` : id;
  if (ANTHROPIC_CALL_ID.test(id)) return id;
  // The readable part kept, the original's hash appended, so two ids that clean up alike stay apart.
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 48)}_${short(id)}`;
}

const blankText = (p: Part) => p.type === 'text' && typeof p.text === 'string' && p.text.trim() === '';

/**
 * The history as `wire` takes it: every tool-call id valid and unique in the request (its results follow it), and
 * no whitespace-only text in assistant messages (an assistant message left with nothing is left out). Messages that
 * need no change are passed through as they are.
 */
export function wireHistory<M extends Msg>(messages: readonly M[], wire: CallIdWire): M[] {
  const taken = new Set<string>();
  // The ids of the latest assistant message: the tool messages after it answer those calls.
  let scope = new Map<string, string>();
  const out: M[] = [];
  for (const m of messages) {
    if (m.role === 'assistant' && Array.isArray(m.content)) {
      scope = new Map();
      let changed = false;
      const content: Part[] = [];
      for (const p of m.content as Part[]) {
        if (blankText(p)) {
          changed = true;
          continue;
        }
        if (p?.type === 'tool-call' && typeof p.toolCallId === 'string') {
          const mapped = unique(wireForm(p.toolCallId, wire), taken);
          scope.set(p.toolCallId, mapped);
          if (mapped !== p.toolCallId) {
            changed = true;
            content.push({ ...p, toolCallId: mapped });
            continue;
          }
        }
        content.push(p);
      }
      if (content.length === 0) continue;
      out.push(changed ? { ...m, content } : m);
    } else if (m.role === 'assistant' && typeof m.content === 'string' && m.content.trim() === '') {
      continue;
    } else if (m.role === 'tool' && Array.isArray(m.content)) {
      let changed = false;
      const content = (m.content as Part[]).map((p) => {
        if (p?.type !== 'tool-result' || typeof p.toolCallId !== 'string') return p;
        const mapped = scope.get(p.toolCallId) ?? wireForm(p.toolCallId, wire);
        if (mapped === p.toolCallId) return p;
        changed = true;
        return { ...p, toolCallId: mapped };
      });
      out.push(changed ? { ...m, content } : m);
    } else out.push(m);
  }
  return out;
}

/** `id`, or `id_2`, `id_3`… : the first form not yet taken in this request (and now taken). */
function unique(id: string, taken: Set<string>): string {
  let candidate = id;
  for (let n = 2; taken.has(candidate); n++) candidate = `${id}_${n}`;
  taken.add(candidate);
  return candidate;
}
