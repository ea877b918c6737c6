/** One model step through a real provider (the AI SDK's, as the runtime builds it) against the scripted model server. */
import { streamModelStep, type StepPart } from '../../src/main/runtime/loop/model-call';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { createModel, type ProviderName } from '../../src/main/services/providers/providers';

/** The step's parts: a one-line prompt, one `lookup` tool offered, nothing redacted but the step's own needs. */
export async function providerStep(provider: ProviderName, baseURL: string): Promise<StepPart[]> {
  const model = createModel({ provider, model: provider === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4o', baseURL, apiKey: 'test-key' } as never);
  const parts: StepPart[] = [];
  for await (const p of streamModelStep({
    model,
    system: 'You are a test.',
    messages: [{ role: 'user', content: 'go' }],
    tools: [{ name: 'lookup', description: 'Look up.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } } as never],
    signal: new AbortController().signal,
    redactor: new SecretRedactor({ env: {} }),
    onUsage: () => undefined,
  })) parts.push(p);
  return parts;
}
