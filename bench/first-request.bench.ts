/**
 * What a new conversation's first request costs a real model, counted with a real tokenizer (js-tiktoken's o200k):
 * the request body the scripted model server receives when a person types "hello" into a new conversation of the
 * full app runtime (every family assembled, the browser and computer use as a person gets them, no MCP server).
 *
 * first_request_tokens: the whole body (system prompt + tool set + the message, with the protocol's JSON around it);
 * first_request_tool_tokens: the `tools` array alone; system_prompt_tokens: the system message's text alone;
 * first_request_tools: how many tool schemas it carries. The same body every time (no spread): n=1 figures.
 * Every wire is measured (OpenAI Chat Completions, which local servers speak; Anthropic Messages; OpenAI Responses,
 * suffix `_responses`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { createAppRuntime } from '../src/main/host/assembly/open-runtime';
import { Store } from '../src/main/services/store/store';
import { reply, startModelServer, type RecordedRequest } from '../test/support/model-server';
import { tempDir } from '../test/support/tool-context';
import { figure, type BenchResult } from './lib';

const enc = getEncoding('o200k_base');
const tokens = (text: string): number => enc.encode(text).length;

/** The system prompt's text in either protocol. */
function systemText(r: RecordedRequest): string {
  if (r.protocol === 'openai') {
    const sys = r.body.messages.filter((m) => m.role === 'system' || m.role === 'developer');
    return sys.map((m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join(''))).join('\n');
  }
  if (r.protocol === 'openai-responses') {
    const items = typeof r.body.input === 'string' ? [] : r.body.input.filter((m) => m.role === 'system' || m.role === 'developer');
    return items.map((m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join(''))).join('\n');
  }
  const s = r.body.system;
  return typeof s === 'string' ? s : (s ?? []).map((b) => b.text ?? '').join('');
}

export async function firstRequest(provider: 'openai' | 'anthropic' | 'openai-responses'): Promise<RecordedRequest> {
  const server = await startModelServer();
  const work = tempDir('deskhand-bench-work-');
  writeFileSync(join(work, 'README.md'), '# a project\n');
  const store = new Store(tempDir('deskhand-bench-data-'));
  const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, afterTurn: () => undefined });
  try {
    server.enqueue(reply().text('Hello!'));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    const outcome = await runtime.sendMessage(conv.id, 'hello', {
      provider: provider === 'openai-responses' ? { provider: 'openai', openaiApi: 'responses', model: 'bench', baseURL: server.baseURL, apiKey: 'sk-bench' } : { provider, model: 'bench', baseURL: server.baseURL, apiKey: 'sk-bench' },
      interactive: false,
    });
    if (outcome.status !== 'finished') throw new Error(`bench run ended ${outcome.status}: ${outcome.error ?? ''}`);
    if (server.requests.length !== 1) throw new Error(`expected one model request, saw ${server.requests.length}`);
    return server.requests[0]!;
  } finally {
    await runtime.tasks.shutdown();
    store.close();
    await server.close();
  }
}

export default async function firstRequestBench(): Promise<BenchResult> {
  const out: BenchResult = {};
  for (const provider of ['openai', 'anthropic', 'openai-responses'] as const) {
    const r = await firstRequest(provider);
    const suffix = provider === 'openai' ? '' : provider === 'anthropic' ? '_anthropic' : '_responses';
    const tools = r.body.tools ?? [];
    out[`first_request_tokens${suffix}`] = figure([tokens(JSON.stringify(r.body))], { unit: 'tokens', target: '≤ 6000', exact: 'a token count of one request, the same every run' });
    out[`first_request_tool_tokens${suffix}`] = figure([tokens(JSON.stringify(tools))], { unit: 'tokens', target: '≤ 4000', exact: 'a token count of one request, the same every run' });
    out[`system_prompt_tokens${suffix}`] = figure([tokens(systemText(r))], { unit: 'tokens', target: '1000–3500', exact: 'a token count of one request, the same every run' });
    out[`first_request_tools${suffix}`] = tools.length;
    out[`first_request_bytes${suffix}`] = JSON.stringify(r.body).length;
  }
  return out;
}
