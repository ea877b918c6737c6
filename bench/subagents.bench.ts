/**
 * map_100_overhead_ms: what a subagent costs beyond its model call. Each round runs map_subagents over 100 trivial
 * children (one scripted model step each, 8 at once) through the real loop, and — paired, in the same run — the same
 * 100 model calls made directly on the provider, 8 at once. The figure is (map − direct) / 100 per child.
 *
 * compaction_ms: compacting a 150k-token conversation (≈600 000 characters over 300 messages) through
 * summarize_context's path, the scripted summary call included; compaction_model_call_ms is that summary call alone
 * with the same transcript size, measured in the same rounds.
 */
import { createAppRuntime } from '../src/main/host/open-runtime';
import { createModel } from '../src/main/services/providers/providers';
import { streamModelStep } from '../src/main/runtime/model-call';
import { Store } from '../src/main/services/store/store';
import { reply, startModelServer } from '../test/support/model-server';
import { tempDir } from '../test/support/tool-context';
import { figure, paired, type BenchResult } from './lib';

const CHILDREN = 100;
const CAP = 8;

export default async function subagentsBench(): Promise<BenchResult> {
  const server = await startModelServer();
  const provider = { provider: 'openai' as const, model: 'bench', baseURL: server.baseURL, apiKey: 'sk-bench' };
  const work = tempDir('deskhand-bench-work-');
  try {
    // ── map_100 ───────────────────────────────────────────────────────────────────────────────────────────────────
    const parentReplies: ReturnType<typeof reply>[] = [];
    server.setFallback((req) => {
      const first = req.protocol === 'openai' ? JSON.stringify(req.body.messages.find((m) => m.role === 'user')?.content ?? '') : '';
      if (first.includes('ITEM')) return reply().text('ok');
      return parentReplies.shift() ?? reply().text('done');
    });
    const viaMap = async () => {
      const store = new Store(tempDir('deskhand-bench-data-'));
      const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, subagents: { maxLive: CAP } });
      parentReplies.push(
        reply().tool('map_subagents', { prompt_template: 'ITEM {{input}}: say ok', items: Array.from({ length: CHILDREN }, (_, i) => String(i)), description: 'bench', max_concurrency: CAP }),
        reply().text('done'),
      );
      const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
      const out = await runtime.sendMessage(conv.id, 'map', { provider, interactive: false });
      if (out.status !== 'finished' || runtime.subagents.list(conv.id).some((r) => r.status !== 'finished')) throw new Error(`map run ended ${out.status}`);
      await runtime.tasks.shutdown();
      store.close();
    };
    const model = createModel(provider);
    const direct = async () => {
      let next = 0;
      const worker = async () => {
        while (next < CHILDREN) {
          const i = next++;
          const stream = streamModelStep({ model, system: 'You are Deskhand.', messages: [{ role: 'user', content: `ITEM ${i}: say ok` }], tools: [], signal: new AbortController().signal });
          for await (const _ of stream) void _;
        }
      };
      await Promise.all(Array.from({ length: CAP }, worker));
    };
    const map = await paired(3, 1, viaMap, direct);
    const perChild = map.a.map((a, i) => (a - map.b[i]!) / CHILDREN);

    // ── compaction of a 150k-token conversation ──────────────────────────────────────────────────────────────────
    server.setFallback(() => reply().text('SUMMARY: the earlier work, in brief.'));
    const compactOnce = async () => {
      const store = new Store(tempDir('deskhand-bench-data-'));
      const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null });
      const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
      const body = 'lorem ipsum dolor sit amet '.repeat(74); // ≈ 2000 characters ≈ 500 tokens
      for (let i = 0; i < 150; i++) {
        store.addMessage(conv.id, null, 'user', `${i} ${body}`);
        store.addMessage(conv.id, null, 'assistant', [{ type: 'text', text: `${i} ${body}` }]);
      }
      const tokens = runtime.contextFigures(conv.id).contextTokens;
      const t0 = performance.now();
      const result = await runtime.compactNow(conv.id, null, undefined, new AbortController().signal, provider);
      const ms = performance.now() - t0;
      if (!result.compacted) throw new Error('nothing compacted');
      await runtime.tasks.shutdown();
      store.close();
      return { ms, tokens };
    };
    const transcript = 'lorem ipsum dolor sit amet '.repeat(Math.floor(400_000 / 27));
    const summaryCall = async () => {
      const stream = streamModelStep({ model, system: 'You compact an agent', messages: [{ role: 'user', content: transcript }], tools: [], signal: new AbortController().signal });
      for await (const _ of stream) void _;
    };
    const compaction: number[] = [];
    const call: number[] = [];
    let tokens = 0;
    for (let round = 0; round < 6; round++) {
      const r = await compactOnce();
      const t0 = performance.now();
      await summaryCall();
      const c = performance.now() - t0;
      if (round === 0) continue; // warm-up
      compaction.push(r.ms);
      call.push(c);
      tokens = r.tokens;
    }
    return {
      map_100_overhead_ms: figure(perChild, { unit: 'ms/child', baseline: 'the same 100 model calls made directly, 8 at once, paired rounds' }),
      map_100_total_ms: figure(map.a, { unit: 'ms', baseline: 'map_100_direct_ms' }),
      map_100_direct_ms: figure(map.b, { unit: 'ms' }),
      compaction_ms: figure(compaction, { unit: 'ms', baseline: 'compaction_model_call_ms (the summary call alone)' }),
      compaction_model_call_ms: figure(call, { unit: 'ms' }),
      compaction_conversation_tokens: tokens,
    };
  } finally {
    await server.close();
  }
}
