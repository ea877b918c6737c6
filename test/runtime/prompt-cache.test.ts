/**
 * Issue 48, item 4: caching that pays. OpenAI gets one `prompt_cache_key` per conversation (its requests route to the
 * same cache); project instructions and per-turn context follow the stable system prompt as a system message of their
 * own, so an AGENTS.md edit leaves the cached tools and stable prompt whole. Through the real runtime and the scripted
 * server, which caches Anthropic prefixes as the API does (model-server.ts anthropicCacheUse).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/main/runtime/runtime';
import { Store } from '../../src/main/services/store/store';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import type { RunEvent } from '../../src/shared/events';
import { reply, startModelServer, type AnthropicMessagesRequest, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { builtinTools } from '../support/tools';

let server: ModelServer;
let store: Store;
let dataDir: string;
let work: string;
beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-cache-data-');
  work = tempDir('deskhand-cache-work-');
  store = new Store(dataDir);
});
afterEach(async () => {
  store.close();
  await server.close();
});

const wires: Record<string, () => ProviderConfig> = {
  anthropic: () => ({ provider: 'anthropic', model: 'claude-test', baseURL: server.baseURL, apiKey: 'sk-ant-test' }),
  openai: () => ({ provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' }),
  'openai-compatible': () => ({ provider: 'openai-compatible', model: 'qwen-test', baseURL: server.baseURL, apiKey: null }),
};
const runtime = () => new Runtime({ store, dataDir, tools: builtinTools({ dataDir }), retryBaseMs: 1, idleTimeoutMs: 5000 });

describe('prompt_cache_key', () => {
  it('openai: one key per conversation on every request of every run; another conversation has its own', async () => {
    const rt = runtime();
    const a = rt.createConversation({ folder: work, policy: 'read-only' });
    const b = rt.createConversation({ folder: work, policy: 'read-only' });
    const opts = { provider: wires.openai!(), interactive: false };
    server.enqueue(reply().tool('ls', {}), reply().text('one'), reply().text('two'), reply().text('other'));
    await rt.sendMessage(a.id, 'list', opts);
    await rt.sendMessage(a.id, 'again', opts);
    await rt.sendMessage(b.id, 'hello', opts);
    const keys = server.requests.map((r) => (r.body as { prompt_cache_key?: unknown }).prompt_cache_key);
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(/^deskhand-[0-9a-f]{32}$/);
    expect(keys.slice(0, 3)).toEqual([keys[0], keys[0], keys[0]]);
    expect(keys[3]).toMatch(/^deskhand-[0-9a-f]{32}$/);
    expect(keys[3]).not.toBe(keys[0]);
    // The key names no Deskhand id.
    expect(String(keys[0])).not.toContain(a.id.replace(/^conv_/, '').slice(0, 8));
    expect(server.refused).toEqual([]);
  });

  it.each(['anthropic', 'openai-compatible'])('%s: no prompt_cache_key (only OpenAI documents it)', async (name) => {
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().text('hi'));
    await rt.sendMessage(conv.id, 'hello', { provider: wires[name]!(), interactive: false });
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain('prompt_cache_key');
  });
});

describe('instructions after the stable prompt', () => {
  type Block = { type: string; text?: string; cache_control?: unknown };
  /** The scripted server's token count of a request's first `n` cache blocks (tools, then system blocks). */
  const prefixTokens = (body: AnthropicMessagesRequest, n: number): number => {
    const blocks: unknown[] = [...(body.tools ?? []).map((t) => ['tool', t]), ...(body.system as Block[]).map((s) => ['system', s])];
    const chars = blocks.slice(0, n).reduce<number>((sum, block) => {
      const [where, { cache_control: _mark, ...rest }] = block as [string, Block];
      return sum + JSON.stringify([where, rest]).length + 1;
    }, 2);
    return Math.ceil(chars / 4);
  };

  it('anthropic: an AGENTS.md edit between turns still reads the tools and the stable prompt from the cache', async () => {
    writeFileSync(join(work, 'AGENTS.md'), 'Run tests with: npm run check-Alpha17\n');
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    const usage: Extract<RunEvent, { type: 'usage' }>['usage'][] = [];
    const opts = { provider: wires.anthropic!(), interactive: false, onEvent: (e: RunEvent) => e.type === 'usage' && usage.push(e.usage) };
    server.enqueue(reply().text('one'));
    await rt.sendMessage(conv.id, 'first', opts);
    writeFileSync(join(work, 'AGENTS.md'), 'Run tests with: make verify-Beta42\n');
    server.enqueue(reply().text('two'));
    await rt.sendMessage(conv.id, 'second', opts);
    expect(server.refused).toEqual([]);

    const [before, after] = server.requests.map((r) => r.body as AnthropicMessagesRequest);
    const system = (body: AnthropicMessagesRequest) => body.system as Block[];
    // The stable prompt is the first system block, marked and byte-identical; the instructions follow, unmarked.
    expect(system(after!)).toHaveLength(2);
    expect(system(after!)[0]).toEqual(system(before!)[0]);
    expect(system(after!)[0]!.cache_control).toBeDefined();
    expect(system(after!)[0]!.text).not.toMatch(/check-Alpha17|verify-Beta42/);
    expect(system(before!)[1]!.text).toContain('check-Alpha17');
    expect(system(after!)[1]!.text).toContain('verify-Beta42');
    expect(system(after!)[1]!.cache_control).toBeUndefined();
    // What the edit cost: the second turn read the tools and the stable prompt from the cache (more than the tools).
    const tools = after!.tools!.length;
    expect(usage[1]!.cacheReadTokens).toBe(prefixTokens(after!, tools + 1));
    expect(usage[1]!.cacheReadTokens).toBeGreaterThan(prefixTokens(after!, tools));
  });

  it('openai: the stable prompt is the first system message and stays byte-identical across an AGENTS.md edit', async () => {
    writeFileSync(join(work, 'AGENTS.md'), 'Version one: Gamma-1\n');
    const rt = runtime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    const opts = { provider: wires.openai!(), interactive: false };
    server.enqueue(reply().text('one'), reply().text('two'));
    await rt.sendMessage(conv.id, 'first', opts);
    writeFileSync(join(work, 'AGENTS.md'), 'Version two: Gamma-2\n');
    await rt.sendMessage(conv.id, 'second', opts);
    const systems = server.requests.map((r) => (r.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'system').map((m) => String(m.content)));
    expect(systems[0]).toHaveLength(2);
    expect(systems[1]![0]).toBe(systems[0]![0]);
    expect(systems[0]![1]).toContain('Gamma-1');
    expect(systems[1]![1]).toContain('Gamma-2');
    expect(server.refused).toEqual([]);
  });
});
