/**
 * map_overhead_ms_per_child: what a subagent costs beyond its model call. Each round runs map_subagents over 10
 * trivial children one at a time (max_concurrency 1; one scripted model step each) through the real loop, and —
 * paired, in the same run — the same 10 model calls made directly on the provider, one at a time. The figure is
 * (map − direct) / 10 per round, 20 rounds (the parent's own two steps are in it, shared by the 10 children). The
 * rounds of a figure share one store and runtime, opened before them (map_open_runtime_ms) as a host has them, each
 * round mapping in a new conversation; until issue 54's fourth round every round opened a fresh store and assembled
 * a runtime inside the map's time (≈ 5–16 ms per child of it, and the runtime's first use of every tool schema).
 *
 * map_overhead_same_request_ms_per_child: the same sequential rounds against a third arm, the children's very requests
 * (their system prompt, tool set and item, taken from the server after the latest map) made directly through the same
 * provider SDK: what a child costs beyond a model call of the size it makes. map_child_request_extra_ms is the rest,
 * per child (same request − the bare arm's one line): what the child's request itself costs the provider and the
 * server. Not the headline: the headline's baseline stays the bare call.
 *
 * map_100_parallel_share_ms_per_child: map_subagents over 100 children, 8 at once, against the same 100 calls made
 * directly 8 at once: (map − direct) / 100 is each child's share of the wall time when 8 run together — not what one
 * child costs (8 overlap), so it is named apart from the per-child figure. 20 rounds (each is 200 model calls, ≈ 1 s).
 *
 * The scripted model server runs in a child process of its own (bench/model-server-process.ts), as a real provider is
 * never in the agent's process: its parse of each request and build of each reply, and its garbage, are in neither
 * arm. (Issue 54's sixth to ninth rounds also took the per-child figure with the server in this process, in the same
 * rounds: map_overhead_inproc_ms_per_child, within its spread of this one; dropped after that release.)
 *
 * compaction_ms: compacting a 150k-token conversation (≈600 000 characters over 300 messages) through
 * summarize_context's path, the scripted summary call included; compaction_model_call_ms is that summary call alone
 * with the same transcript size, measured in the same rounds.
 */
import { createAppRuntime } from '../src/main/host/assembly/open-runtime';
import { createModel } from '../src/main/services/providers/providers';
import { streamModelStep } from '../src/main/runtime/loop/model-call';
import { SecretRedactor } from '../src/main/runtime/context/redaction';
import { Store } from '../src/main/services/store/store';
import { reply } from '../test/support/model-server';
import { tempDir } from '../test/support/tool-context';
import { figure, isSmoke, roundsOf, type BenchResult } from './lib';
import { startModelServerProcess } from './model-server-process';

/** A smoke run (CI) maps 16: every path, not the load. */
const CHILDREN = isSmoke() ? 16 : 100;
const CAP = 8;
const SEQ_CHILDREN = isSmoke() ? 2 : 10;
const SEQ_ROUNDS = 20;
/** Rounds of the 100-child map (≈ 1 s each on 2 cores): a headline figure, at least 20. */
const MAP_ROUNDS = 20;

export default async function subagentsBench(): Promise<BenchResult> {
  const server = await startModelServerProcess();
  const provider = { provider: 'openai' as const, model: 'bench', baseURL: server.baseURL, apiKey: 'sk-bench' };
  const work = tempDir('deskhand-bench-work-');
  try {
    // ── map_100 ───────────────────────────────────────────────────────────────────────────────────────────────────
    // A child's request (its first user message is the mapped item) is answered `ok`; the parent's take the replies
    // queued for its run (enqueueUnrouted, before the run's clock starts), then `done`.
    await server.setRoutes({ routes: [{ contains: 'ITEM', reply: { text: ['ok'] } }], otherwise: { text: ['done'] } });
    // One store and runtime per figure, as a host has them: opened before the rounds and closed after them. Opening a
    // store and assembling a runtime (and a runtime's first use of each tool schema and statement) is what a host pays
    // once, not what a child costs; map_open_runtime_ms reports the opening apart. Each round maps in a new conversation.
    const open = (cap: number) => {
      const t0 = performance.now();
      const store = new Store(tempDir('deskhand-bench-data-'));
      const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, subagents: { maxLive: cap } });
      return { store, runtime, ms: performance.now() - t0 };
    };
    type Opened = ReturnType<typeof open>;
    const parentReplies = (children: number, cap: number) =>
      server.enqueueUnrouted(
        reply().tool('map_subagents', { prompt_template: 'ITEM {{input}}: say ok', items: Array.from({ length: children }, (_, i) => String(i)), description: 'bench', max_concurrency: cap }),
        reply().text('done'),
      );
    const viaMap = async ({ runtime }: Opened, children: number) => {
      const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
      const out = await runtime.sendMessage(conv.id, 'map', { provider, interactive: false });
      const kids = runtime.subagents.list(conv.id);
      if (out.status !== 'finished' || kids.length !== children || kids.some((r) => r.status !== 'finished')) throw new Error(`map run ended ${out.status} with ${kids.length} children`);
    };
    const close = async ({ runtime, store }: Opened) => {
      await runtime.tasks.shutdown();
      store.close();
    };
    const model = createModel(provider);
    // The wire redactor every runtime request goes through (a redactor like a run's: this environment's credentials).
    const redactor = new SecretRedactor();
    const direct = async (children: number, cap: number) => {
      let next = 0;
      const worker = async () => {
        while (next < children) {
          const i = next++;
          const stream = streamModelStep({ model, system: 'You are Deskhand.', messages: [{ role: 'user', content: `ITEM ${i}: say ok` }], tools: [], signal: new AbortController().signal, redactor, onUsage: () => {} });
          for await (const _ of stream) void _;
        }
      };
      await Promise.all(Array.from({ length: cap }, worker));
    };
    /** The children's request bodies of the last sequential map (for the same-request arm). */
    let childBodies: { system: string[]; messages: { role: 'user'; content: string }[]; tools: { name: string; description: string; inputSchema: Record<string, unknown> }[] }[] = [];
    const sameRequests = async () => {
      if (!childBodies.length) throw new Error('no map round to replay yet');
      for (const b of childBodies) {
        const stream = streamModelStep({ model, system: b.system, messages: b.messages, tools: b.tools, signal: new AbortController().signal, redactor, onUsage: () => {} });
        for await (const _ of stream) void _;
      }
    };
    type ChatBody = { messages: { role: string; content: unknown }[]; tools?: { function: { name: string; description?: string; parameters: Record<string, unknown> } }[] };
    const keepChildBodies = (taken: { body?: string }[]) => {
      const children = taken.map((r) => JSON.parse(r.body!) as ChatBody).filter((b) => b.messages.some((m) => m.role === 'user' && String(m.content).includes('ITEM')));
      childBodies = children.map((b) => ({
        system: b.messages.filter((m) => m.role === 'system').map((m) => String(m.content)),
        messages: b.messages.filter((m) => m.role === 'user').map((m) => ({ role: 'user' as const, content: String(m.content) })),
        tools: (b.tools ?? []).map((t) => ({ name: t.function.name, description: t.function.description ?? '', inputSchema: t.function.parameters })),
      }));
    };
    const openMs: number[] = [];
    /**
     * The map and the direct calls, which goes first alternating per round, on one store and runtime opened before the
     * rounds: the paired map (a) and direct (b) times.
     */
    const pairedMap = async (rounds: number, children: number, cap: number, same = false) => {
      const out = { a: [] as number[], b: [] as number[], same: [] as number[] };
      const warmup = isSmoke() ? 0 : 1;
      const opened = open(cap);
      openMs.push(opened.ms);
      for (let i = 0; i < warmup + roundsOf(rounds); i++) {
        const timedMap = async () => {
          await parentReplies(children, cap);
          const t0 = performance.now();
          await viaMap(opened, children);
          const ms = performance.now() - t0;
          const taken = await server.take({ bodies: same });
          if (taken.length !== children + 2) throw new Error(`the map's ${children + 2} model requests did not all reach the server (${taken.length})`);
          if (same) keepChildBodies(taken);
          return ms;
        };
        const timedSame = async () => {
          const t0 = performance.now();
          await sameRequests();
          const ms = performance.now() - t0;
          const requests = (await server.take()).length;
          if (requests !== children) throw new Error(`the ${children} same-request model calls did not all reach the server (${requests})`);
          return ms;
        };
        const timedDirect = async () => {
          const t0 = performance.now();
          await direct(children, cap);
          const ms = performance.now() - t0;
          const requests = (await server.take()).length;
          if (requests !== children) throw new Error(`the ${children} direct model requests did not all reach the server (${requests})`);
          return ms;
        };
        let a = 0;
        let b = 0;
        let c = 0;
        // With the same-request arm the three take turns going first (map, direct, same; then direct, same, map; …): it
        // replays the children of the latest map, which is this round's or the one before (the same prompts and items).
        if (same) {
          const arms = [async () => (a = await timedMap()), async () => (b = await timedDirect()), async () => (c = await timedSame())];
          for (let k = 0; k < 3; k++) await arms[(i + k) % 3]!();
        } else if (i % 2 === 0) {
          a = await timedMap();
          b = await timedDirect();
        } else {
          b = await timedDirect();
          a = await timedMap();
        }
        if (i < warmup) continue;
        out.a.push(a);
        out.b.push(b);
        if (same) out.same.push(c);
      }
      await close(opened);
      return out;
    };
    const seq = await pairedMap(SEQ_ROUNDS, SEQ_CHILDREN, 1, true);
    const perChild = seq.a.map((a, i) => (a - seq.b[i]!) / SEQ_CHILDREN);
    const perChildSame = seq.a.map((a, i) => (a - seq.same[i]!) / SEQ_CHILDREN);
    const requestExtra = seq.same.map((c, i) => (c - seq.b[i]!) / SEQ_CHILDREN);
    const map = await pairedMap(MAP_ROUNDS, CHILDREN, CAP);
    const parallelShare = map.a.map((a, i) => (a - map.b[i]!) / CHILDREN);

    // ── compaction of a 150k-token conversation ──────────────────────────────────────────────────────────────────
    await server.setRoutes({ routes: [], otherwise: { text: ['SUMMARY: the earlier work, in brief.'] } });
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
      const stream = streamModelStep({ model, system: 'You compact an agent', messages: [{ role: 'user', content: transcript }], tools: [], signal: new AbortController().signal, redactor, onUsage: () => {} });
      for await (const _ of stream) void _;
    };
    const compaction: number[] = [];
    const call: number[] = [];
    let tokens = 0;
    for (let round = 0; round < 1 + roundsOf(5); round++) {
      const r = await compactOnce();
      const t0 = performance.now();
      await summaryCall();
      const c = performance.now() - t0;
      await server.take(); // forgotten: the server keeps every request, and these are 600 KB each
      if (round === 0) continue; // warm-up
      compaction.push(r.ms);
      call.push(c);
      tokens = r.tokens;
    }
    return {
      map_overhead_ms_per_child: figure(perChild, { unit: 'ms/child', baseline: `the same ${SEQ_CHILDREN} model calls made directly, one at a time, paired rounds`, target: '≤ 5' }),
      map_overhead_same_request_ms_per_child: figure(perChildSame, { unit: 'ms/child', baseline: `the children's very requests (system prompt, tool set, item) made directly through the same SDK, same rounds` }),
      map_child_request_extra_ms: figure(requestExtra, { unit: 'ms/child', baseline: 'a child\'s request made directly − the bare one-line call, same rounds (the request\'s own cost)' }),
      map_100_parallel_share_ms_per_child: figure(parallelShare, { unit: 'ms/child', baseline: `the same ${CHILDREN} model calls made directly, ${CAP} at once: wall share per child, ${CAP} overlapping`, headline: true }),
      map_100_total_ms: figure(map.a, { unit: 'ms', baseline: 'map_100_direct_ms' }),
      map_100_direct_ms: figure(map.b, { unit: 'ms' }),
      map_open_runtime_ms: figure(openMs, { unit: 'ms', baseline: 'opening a fresh store and assembling a runtime, once per figure before its rounds (not in the per-child figures)' }),
      compaction_ms: figure(compaction, { unit: 'ms', baseline: 'compaction_model_call_ms (the summary call alone)' }),
      compaction_model_call_ms: figure(call, { unit: 'ms' }),
      compaction_conversation_tokens: tokens,
    };
  } finally {
    await server.close();
  }
}
