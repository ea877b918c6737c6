/**
 * createModel makes the model at once and loads its provider's package on the first call (issue 54, item 5: a run
 * does not compile the providers it does not use before its first request). What the runtime reads before that call
 * must be what the SDK's own model says, for every provider and wire: the provider id (cache breakpoints, reasoning
 * replay and tool-call ids key on it), the model id, the specification version, and the URLs it takes as they are.
 * The calls themselves go through the real providers in the other runtime tests (bad-day, reasoning,
 * responses-reasoning, prompt-cache, sse-coalesce); here one streamed step per provider proves the deferred load.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModel, loadModel, providerIdOf, type ProviderConfig } from '../../src/main/services/providers/providers';
import { streamModelStep, type StepPart } from '../../src/main/runtime/loop/model-call';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { DeskhandError } from '../../src/shared/errors';
import { ZodFirstPartyTypeKind as kinds } from '../../src/main/services/providers/zod-v3-kinds';
import { ZodFirstPartyTypeKind as zod3Kinds } from 'zod/v3';
import { startModelServer, type ModelServer } from '../support/model-server';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
  server.setFallback(() => ({ text: ['lazy ', 'ok'] }));
});
afterAll(async () => {
  await server.close();
});

const CONFIGS: { name: string; cfg: () => ProviderConfig }[] = [
  { name: 'anthropic', cfg: () => ({ provider: 'anthropic', model: 'claude-sonnet-4-5', baseURL: server.baseURL, apiKey: 'k' }) },
  { name: 'anthropic, default address', cfg: () => ({ provider: 'anthropic', model: 'claude-opus-4-1', baseURL: null, apiKey: null }) },
  { name: 'openai chat', cfg: () => ({ provider: 'openai', model: 'gpt-4o', baseURL: server.baseURL, apiKey: 'k' }) },
  { name: 'openai chat, said so', cfg: () => ({ provider: 'openai', model: 'gpt-4o', baseURL: server.baseURL, apiKey: 'k', openaiApi: 'chat' }) },
  { name: 'openai responses', cfg: () => ({ provider: 'openai', model: 'o4-mini', baseURL: server.baseURL, apiKey: 'k', openaiApi: 'responses' }) },
  { name: 'openai-compatible', cfg: () => ({ provider: 'openai-compatible', model: 'qwen3', baseURL: server.baseURL, apiKey: null }) },
  { name: 'openai-compatible with a key', cfg: () => ({ provider: 'openai-compatible', model: 'llama', baseURL: `${server.baseURL}/`, apiKey: 'k' }) },
];

type V3 = Awaited<ReturnType<typeof loadModel>>;
const urls = async (m: V3) => Object.fromEntries(Object.entries(await m.supportedUrls).map(([k, v]) => [k, v.map((r) => r.source)]));

describe('a model made before its provider is loaded', () => {
  it.each(CONFIGS)('$name: the provider id, model id and version the runtime reads are the SDK model\'s own', async ({ cfg }) => {
    const lazy = createModel(cfg()) as V3;
    const real = await loadModel(cfg());
    expect(real.provider).toBe(providerIdOf(cfg()));
    expect({ v: lazy.specificationVersion, provider: lazy.provider, modelId: lazy.modelId }).toEqual({ v: real.specificationVersion, provider: real.provider, modelId: real.modelId });
    expect(await urls(lazy)).toEqual(await urls(real));
  });

  it.each(CONFIGS.filter((c) => !c.name.includes('default address')))('$name: a streamed step through the model made first reaches the server and reads the reply', async ({ cfg }) => {
    const before = server.requests.length;
    const parts: StepPart[] = [];
    for await (const p of streamModelStep({
      model: createModel(cfg()),
      system: 'You are a test.',
      messages: [{ role: 'user', content: 'go' }],
      tools: [],
      signal: new AbortController().signal,
      redactor: new SecretRedactor({ env: {} }),
      onUsage: () => undefined,
    })) parts.push(p);
    expect(server.requests.length).toBe(before + 1);
    expect(parts.flatMap((p) => (p.type === 'text' ? [p.delta] : [])).join('')).toBe('lazy ok');
  });

  it('the openai-compatible provider without a base URL is still refused when the model is made, with the flag to give', () => {
    expect(() => createModel({ provider: 'openai-compatible', model: 'm', baseURL: null, apiKey: null })).toThrow(DeskhandError);
    expect(() => createModel({ provider: 'openai-compatible', model: 'm', baseURL: null, apiKey: null })).toThrow('--base-url');
  });

  it('the build gives the SDK the names of zod 3\'s schema kinds it imports (instead of all of zod 3): the same names and strings as zod 3\'s own', () => {
    expect({ ...kinds }).toEqual({ ...zod3Kinds });
  });
});
