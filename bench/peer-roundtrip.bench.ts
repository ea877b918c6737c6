/**
 * peer_roundtrip_overhead_ms: ask_peer (the engine's decision for the call, then the tool: the peer book, the token
 * from the secret store, the SDK's client fetching the agent card and streaming the task) to a loopback A2A server
 * built with the SDK that answers at once, against a plain SDK client call (ClientFactory.createFromUrl +
 * sendMessageStream with the same Bearer header) in the same rounds. Calls alternate; the overhead is taken per pair
 * (ask_peer ms − plain ms) and printed as its median with p10–p90.
 */
import { callEffects, decide } from '../src/main/runtime/decision/approval-engine';
import { A2aPeerCaller, PeerBook } from '../src/main/services/peers/index';
import type { SecretStore } from '../src/main/services/vault/secret-store';
import { Store } from '../src/main/services/store/store';
import { createAskPeer } from '../src/main/tools/peers/ask-peer';
import { makeContext, tempDir } from '../test/support/tool-context';
import { bearer, sdkClient, sdkSampleServer, textMessage } from '../test/support/a2a';
import { figure, paired, roundsOf, type BenchResult } from './lib';

const ROUNDS = 30;
const WARMUP = 3;

class MemorySecrets implements SecretStore {
  private readonly map = new Map<string, string>();
  async get(name: string) {
    return this.map.get(name) ?? null;
  }
  async set(name: string, value: string) {
    this.map.set(name, value);
  }
  async delete(name: string) {
    return this.map.delete(name);
  }
  async list() {
    return [...this.map.keys()];
  }
}

export default async function peerRoundtripBench(): Promise<BenchResult> {
  const server = await sdkSampleServer('bench-token', (text) => `ok: ${text}`);
  const work = tempDir('deskhand-bench-peers-');
  const store = new Store(work);
  try {
    const book = new PeerBook(store, new MemorySecrets());
    await book.add({ name: 'sample', endpoint: server.url, tier: 'public', outboundToken: 'bench-token' });
    const tool = createAskPeer(new A2aPeerCaller(book));
    const args = tool.params.parse({ peer: 'sample', message: 'ping' });
    const ectx = { cwd: work, workspaceRoots: [work], dataDir: work };
    const ctx = makeContext(work);
    const viaTool = async (): Promise<string> => {
      decide({ tool, args, effects: await callEffects(tool, args, ectx), policy: 'high-risk', tainted: false, ctx: ectx });
      return (await tool.execute(args, ctx)).output;
    };
    const plain = async (): Promise<string> => {
      const client = await sdkClient(server.url);
      let text = '';
      for await (const ev of client.sendMessageStream(await textMessage('ping'), bearer('bench-token'))) {
        const p = ev.payload;
        if (p?.$case === 'statusUpdate') text = p.value.status?.message?.parts.map((x) => (x.content?.$case === 'text' ? x.content.value : '')).join('') ?? text;
      }
      return text;
    };
    if (!(await viaTool()).includes('ok: ping') || !(await plain()).includes('ok: ping')) throw new Error('peer bench: the sample server did not answer');
    const t = await paired(roundsOf(ROUNDS), WARMUP, viaTool, plain);
    return {
      peer_roundtrip_overhead_ms: figure(t.a.map((a, i) => a - t.b[i]!), { unit: 'ms', baseline: 'a plain SDK client call (card fetch + streamed send), same rounds' }),
      peer_roundtrip_ask_peer_ms: figure(t.a, { unit: 'ms' }),
      peer_roundtrip_plain_sdk_ms: figure(t.b, { unit: 'ms' }),
    };
  } finally {
    store.close();
    await server.close();
  }
}
