/** Shared setup for the memory, plan-mode and goal tests: the real runtime (every family) against the scripted model server. */
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import type { RecordedRequest } from '../support/model-server';

export const providerFor = (baseURL: string): ProviderConfig => ({ provider: 'openai', model: 'gpt-test', baseURL, apiKey: 'sk-test' });

/** The system prompt the model received in a request (its system messages: the stable prompt, then instructions and context). */
export function systemOf(req: RecordedRequest): string {
  if (req.protocol !== 'openai') return '';
  return req.body.messages
    .filter((m) => m.role === 'system')
    .map((sys) => (typeof sys.content === 'string' ? sys.content : JSON.stringify(sys.content ?? '')))
    .join('\n\n');
}

/** The tool names offered in a request. */
export function toolsOf(req: RecordedRequest): string[] {
  return req.protocol === 'openai' ? (req.body.tools ?? []).map((t) => t.function.name) : [];
}

/** Every tool result the model received in a request, by call id. */
export function toolResultsOf(req: RecordedRequest): Map<string, string> {
  const out = new Map<string, string>();
  if (req.protocol !== 'openai') return out;
  for (const m of req.body.messages) if (m.role === 'tool' && typeof m.tool_call_id === 'string') out.set(m.tool_call_id, typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
  return out;
}
