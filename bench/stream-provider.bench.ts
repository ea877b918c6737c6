/**
 * The provider layer's share of a long reply, without the UI: a 50,000-token burst (the stream-render bench's, one
 * SSE event per token in one write) consumed through `streamModelStep` (the AI SDK provider's `doStream`, the runtime's
 * only way to a model) against the same burst read to its end by a plain HTTP reader, and against the same provider
 * with the SSE joining of sse-coalesce.ts turned off (the SDK parsing every event, as before issue 54's cut), the
 * three arms in the same rounds, order rotating. OpenAI-compatible and Anthropic wires.
 *
 * stream_provider_vs_reader_ratio (per wire): time to the stream's end through the provider / the plain reader.
 * stream_provider_us_per_token: (provider − reader) / tokens, per round: what the provider layer adds per token.
 * stream_provider_uncoalesced_vs_coalesced_ratio: the SDK on every event / with joined events, same rounds.
 */
import { streamModelStep } from '../src/main/runtime/loop/model-call';
import { SecretRedactor } from '../src/main/runtime/context/redaction';
import { createModel } from '../src/main/services/providers/providers';
import { sseCoalesceTuning } from '../src/main/services/providers/sse-coalesce';
import { startModelServer } from '../test/support/model-server';
import { figure, interleaved, isSmoke, ratio, type BenchResult } from './lib';

const TOKENS = isSmoke() ? 5_000 : 50_000;
const ROUNDS = Number(process.env.DESKHAND_BENCH_ROUNDS ?? 20);
const WORDS = ['the', 'agent', 'reads', 'a', 'file,', 'plans', 'an', 'edit', 'and', 'asks', 'before', 'it', 'writes', '`code`', '**bold**', 'text.'];

export default async function streamProvider(): Promise<BenchResult> {
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i++) tokens.push(i % 48 === 47 ? `${WORDS[i % WORDS.length]}\n\n` : `${WORDS[i % WORDS.length]} `);
  const expected = tokens.join('');
  const server = await startModelServer();
  const out: BenchResult = {};
  try {
    for (const wire of ['openai-compatible', 'anthropic'] as const) {
      const model = createModel({ provider: wire, model: wire === 'anthropic' ? 'claude-sonnet-4-5' : 'bench', baseURL: server.baseURL, apiKey: 'bench-key' } as never);
      const viaProvider = async (coalesce: boolean): Promise<void> => {
        server.enqueue({ text: tokens });
        sseCoalesceTuning.enabled = coalesce;
        let text = '';
        try {
          // A reused keep-alive socket the server has just closed (ECONNRESET before the request is sent) is retried:
          // the reply is still queued, and the failed attempt costs microseconds.
          for (let attempt = 0; ; attempt++) {
            try {
              for await (const p of streamModelStep({ model, system: 'Bench.', messages: [{ role: 'user', content: 'go' }], tools: [], signal: new AbortController().signal, redactor: new SecretRedactor({ env: {} }), onUsage: () => undefined })) {
                if (p.type === 'text') text += p.delta;
              }
              break;
            } catch (err) {
              if (attempt >= 2 || text !== '' || !/ECONNRESET/.test(String((err as Error).message))) throw err;
            }
          }
        } finally {
          sseCoalesceTuning.enabled = true;
        }
        if (text !== expected) throw new Error(`${wire}: the provider's text differs from the burst`);
      };
      const reader = async (): Promise<void> => {
        server.enqueue({ text: tokens });
        const path = wire === 'anthropic' ? '/messages' : '/chat/completions';
        const body = wire === 'anthropic'
          ? { model: 'claude-sonnet-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'go' }] }
          : { model: 'bench', stream: true, messages: [{ role: 'user', content: 'go' }] };
        const res = await fetch(`${server.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'bench-key', authorization: 'Bearer bench-key', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(body) });
        const raw = await res.text();
        if (!raw.includes('text.')) throw new Error(`${wire}: the plain reader saw no text`);
      };
      const t = await interleaved(ROUNDS, 1, { coalesced: () => viaProvider(true), uncoalesced: () => viaProvider(false), reader });
      const tag = wire === 'anthropic' ? 'anthropic' : 'openai_compatible';
      out[`stream_provider_vs_reader_ratio_${tag}`] = ratio(t.coalesced, t.reader, { baseline: `the same ${TOKENS}-token burst read to its end by a plain HTTP reader, same rounds`, headline: true });
      out[`stream_provider_us_per_token_${tag}`] = figure(t.coalesced.map((c, i) => ((c - t.reader[i]!) * 1000) / TOKENS), { unit: 'µs', baseline: '(provider − plain reader) / tokens, per round' });
      out[`stream_provider_uncoalesced_vs_coalesced_ratio_${tag}`] = ratio(t.uncoalesced, t.coalesced, { baseline: 'the SDK parsing every SSE event (joining off) / joined events, same rounds' });
      out[`stream_provider_ms_${tag}`] = figure(t.coalesced, { unit: 'ms', baseline: 'request to the stream read to its end through the provider' });
      out[`stream_provider_uncoalesced_ms_${tag}`] = figure(t.uncoalesced, { unit: 'ms', baseline: 'the same, joining off' });
      out[`stream_reader_plain_ms_${tag}`] = figure(t.reader, { unit: 'ms', baseline: 'plain HTTP reader' });
    }
  } finally {
    await server.close();
  }
  return out;
}
