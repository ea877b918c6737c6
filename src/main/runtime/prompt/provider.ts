/**
 * Section: what differs by provider family. Models of each family have habits worth steering: Claude models tend to
 * over-explain and to batch; GPT models benefit from being told to keep going until done and to use tools rather
 * than describe them; small local models need the essentials stated bluntly.
 */
export type ProviderFamily = 'anthropic' | 'openai' | 'local';

export function providerFamilyOf(providerId: string | undefined): ProviderFamily {
  if (!providerId) return 'openai';
  if (providerId.startsWith('anthropic')) return 'anthropic';
  if (providerId.startsWith('openai.chat') || providerId.startsWith('openai.responses') || providerId === 'openai') return 'openai';
  return 'local';
}

const NOTES: Record<ProviderFamily, string> = {
  anthropic: `# Style
- Keep prose short between tool calls; let the tool cards show the work. Use parallel calls for independent reads.`,
  openai: `# Style
- Keep going until the request is fully handled before you end your turn; when you say you will do something, do it with a tool call in the same turn. Use tools rather than describing what you would do.`,
  local: `# Style
- Call tools with exactly the arguments their schemas name (unknown arguments are refused). One clear step at a time; check each result before the next step. Finish with a short answer.`,
};

export function providerSection(family: ProviderFamily): string {
  return NOTES[family];
}
