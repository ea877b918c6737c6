import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText, jsonSchema, streamText, tool, type LanguageModel, type ModelMessage, type TextStreamPart } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply, startModelServer, type ModelServer, type RecordedRequest, type ScriptedReply } from './support/model-server';

const KEY = 'sk-test-key';

const tools = {
  read_file: tool({
    description: 'Read a file',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  }),
  ls: tool({ description: 'List a folder', inputSchema: jsonSchema<{ dir?: string }>({ type: 'object', properties: { dir: { type: 'string' } } }) }),
};

type Part = TextStreamPart<typeof tools>;

interface Case {
  name: string;
  protocol: RecordedRequest['protocol'];
  model(server: ModelServer, apiKey?: string): LanguageModel;
}

const cases: Case[] = [
  { name: 'openai', protocol: 'openai', model: (s, apiKey = KEY) => createOpenAI({ baseURL: s.baseURL, apiKey }).chat('gpt-test') },
  {
    name: 'openai-compatible',
    protocol: 'openai',
    model: (s, apiKey = KEY) => createOpenAICompatible({ name: 'local', baseURL: s.baseURL, apiKey, includeUsage: true })('local-model'),
  },
  { name: 'anthropic', protocol: 'anthropic', model: (s, apiKey = KEY) => createAnthropic({ baseURL: s.baseURL, apiKey })('claude-test') },
];

interface Run {
  result: ReturnType<typeof streamText<typeof tools>>;
  parts: Part[];
  /** The error, whether the SDK threw it from the stream or emitted it as an error part. */
  error: unknown;
}

async function run(model: LanguageModel, opts: { prompt?: string; messages?: ModelMessage[]; maxRetries?: number; abortSignal?: AbortSignal } = {}): Promise<Run> {
  const result = streamText({
    model,
    tools,
    maxOutputTokens: 256,
    maxRetries: opts.maxRetries ?? 0,
    onError: () => {},
    ...(opts.messages ? { messages: opts.messages } : { prompt: opts.prompt ?? 'hi' }),
    ...(opts.abortSignal ? { abortSignal: opts.abortSignal } : {}),
  });
  const parts: Part[] = [];
  let error: unknown;
  try {
    for await (const part of result.fullStream) {
      parts.push(part);
      if (part.type === 'error') error = part.error;
    }
  } catch (thrown) {
    error = thrown;
  }
  return { result, parts, error };
}

const ofType = <T extends Part['type']>(parts: Part[], type: T) => parts.filter((p): p is Extract<Part, { type: T }> => p.type === type);

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 5));
}

describe.each(cases)('model server with the $name provider', ({ protocol, model: makeModel }) => {
  let server: ModelServer;
  let model: LanguageModel;
  beforeEach(async () => {
    server = await startModelServer({ apiKey: KEY });
    model = makeModel(server);
  });
  afterEach(() => server.close());

  it('streams text deltas in order with finish reason and usage', async () => {
    server.enqueue(reply().text('Hello ').text('wor').text('ld').usage({ input: 10, output: 5 }));
    const { parts, error } = await run(model);
    expect(error).toBeUndefined();
    expect(ofType(parts, 'text-delta').map((p) => p.text)).toEqual(['Hello ', 'wor', 'ld']);
    const finish = ofType(parts, 'finish')[0];
    expect(finish?.finishReason).toBe('stop');
    expect(finish?.totalUsage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect(server.pending).toBe(0);
  });

  it('records what the model was sent', async () => {
    server.enqueue(reply().text('ok'));
    await run(model, { prompt: 'list the files' });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.protocol).toBe(protocol);
    expect(request?.path).toBe(protocol === 'openai' ? '/v1/chat/completions' : '/v1/messages');
    expect(request?.body.stream).toBe(true);
    if (request?.protocol === 'openai') {
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(request.body.messages).toEqual([{ role: 'user', content: 'list the files' }]);
      expect(request.body.tools?.map((t) => t.function.name)).toEqual(['read_file', 'ls']);
      expect(request.body.stream_options).toEqual({ include_usage: true });
    } else if (request?.protocol === 'anthropic') {
      expect(request.headers['x-api-key']).toBe(KEY);
      expect(request.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'list the files' }] }]);
      expect(request.body.tools?.map((t) => t.name)).toEqual(['read_file', 'ls']);
    }
  });

  it('streams several tool calls in one step, then records the tool results of the next step', async () => {
    server.enqueue(reply().text('Looking.').tool('read_file', { path: 'a.txt' }).tool('ls', {}, { id: 'my_call' }), reply().text('Done.'));
    const first = await run(model, { prompt: 'read a.txt' });
    expect(first.error).toBeUndefined();
    const calls = ofType(first.parts, 'tool-call');
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([
      ['read_file', { path: 'a.txt' }],
      ['ls', {}],
    ]);
    const generatedId = protocol === 'openai' ? 'call_1_0' : 'toolu_1_0';
    expect(calls.map((c) => c.toolCallId)).toEqual([generatedId, 'my_call']);
    expect(calls.every((c) => !c.invalid)).toBe(true);
    expect(ofType(first.parts, 'finish')[0]?.finishReason).toBe('tool-calls');

    const toolMessage: ModelMessage = {
      role: 'tool',
      content: calls.map((c) => ({ type: 'tool-result', toolCallId: c.toolCallId, toolName: c.toolName, output: { type: 'text', value: `result of ${c.toolCallId}` } })),
    };
    const history = (await first.result.response).messages;
    const second = await run(model, { messages: [{ role: 'user', content: 'read a.txt' }, ...history, toolMessage] });
    expect(ofType(second.parts, 'text-delta').map((p) => p.text)).toEqual(['Done.']);

    const sent = server.requests.at(-1);
    if (sent?.protocol === 'openai') {
      expect(sent.body.messages.slice(1)).toMatchObject([
        {
          role: 'assistant',
          content: 'Looking.',
          tool_calls: [
            { id: generatedId, type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
            { id: 'my_call', type: 'function', function: { name: 'ls', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: generatedId, content: `result of ${generatedId}` },
        { role: 'tool', tool_call_id: 'my_call', content: 'result of my_call' },
      ]);
    } else if (sent?.protocol === 'anthropic') {
      expect(sent.body.messages.slice(1)).toMatchObject([
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: generatedId, name: 'read_file', input: { path: 'a.txt' } },
            { type: 'tool_use', id: 'my_call', name: 'ls', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: generatedId, content: `result of ${generatedId}` },
            { type: 'tool_result', tool_use_id: 'my_call', content: 'result of my_call' },
          ],
        },
      ]);
    } else {
      expect.fail('no request recorded');
    }

  });

  it('turns malformed tool arguments into an invalid tool call and a tool error', async () => {
    server.enqueue(reply().toolRaw('read_file', '{"path": broken'));
    const { parts, error } = await run(model);
    expect(error).toBeUndefined();
    const [call] = ofType(parts, 'tool-call');
    expect(call).toMatchObject({ toolName: 'read_file', input: '{"path": broken', invalid: true });
    const [toolError] = ofType(parts, 'tool-error');
    expect(String(toolError?.error)).toMatch(/Invalid input for tool read_file/);
  });

  it('rejects a wrong API key with a 401 APICallError, without consuming the script', async () => {
    server.enqueue(reply().text('never sent'));
    const { error } = await run(makeModel(server, 'wrong-key'));
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(401);
    expect((error as APICallError).message).toBe(protocol === 'openai' ? 'Incorrect API key provided.' : 'invalid x-api-key');
    expect(server.pending).toBe(1);
  });

  it('lets the SDK retry a 429 after retry-after, then succeed with the next reply', async () => {
    server.enqueue(reply().status(429, { retryAfterSeconds: 1 }), reply().text('after retry'));
    const started = Date.now();
    const { parts, error } = await run(model, { maxRetries: 1 });
    expect(error).toBeUndefined();
    expect(ofType(parts, 'text-delta').map((p) => p.text)).toEqual(['after retry']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
  });

  it('answers an overloaded 529 with the protocol error body', async () => {
    server.enqueue(reply().status(529));
    const { error } = await run(model);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ statusCode: 529, isRetryable: true, message: 'Overloaded' });
    const body = JSON.parse((error as APICallError).responseBody ?? '{}') as unknown;
    expect(body).toEqual(
      protocol === 'openai'
        ? { error: { message: 'Overloaded', type: 'server_error', param: null, code: null } }
        : { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    );
  });

  it('surfaces a stream broken mid-way as an error after the partial text', async () => {
    server.enqueue(reply().text('partial').streamError());
    const { parts, error } = await run(model);
    expect(ofType(parts, 'text-delta').map((p) => p.text)).toEqual(['partial']);
    expect(error).toBeInstanceOf(Error);
    expect(ofType(parts, 'finish')).toHaveLength(0);
  });

  it('hangs until the client aborts', async () => {
    server.enqueue(reply().hang());
    const controller = new AbortController();
    const pending = run(model, { abortSignal: controller.signal });
    await until(() => server.requests.length === 1);
    controller.abort();
    const { parts } = await pending;
    expect(parts.map((p) => p.type)).toEqual(['start', 'abort']);
  });

  it('answers non-streaming requests with a JSON completion', async () => {
    server.enqueue(reply().text('Hi ').text('there').tool('read_file', { path: 'b.txt' }).usage({ input: 7, output: 3 }));
    const result = await generateText({ model, tools, prompt: 'hi', maxOutputTokens: 256, maxRetries: 0 });
    expect(server.requests[0]?.body.stream).not.toBe(true);
    expect(result.text).toBe('Hi there');
    expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([['read_file', { path: 'b.txt' }]]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage).toMatchObject({ inputTokens: 7, outputTokens: 3 });
  });
});

describe('model server scripting', () => {
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer();
  });
  afterEach(() => server.close());

  const openai = () => createOpenAI({ baseURL: server.baseURL, apiKey: 'any' }).chat('gpt-test');

  it('fails loudly when the script is exhausted', async () => {
    const { error } = await run(openai());
    expect(error).toMatchObject({ statusCode: 500, message: 'model server: no scripted reply left' });
  });

  it('answers from the fallback once the queue is empty, for as many requests as a benchmark sends', async () => {
    server.enqueue(reply().text('scripted'));
    let calls = 0;
    server.setFallback((request) => {
      calls++;
      return (request.body as { messages: unknown[] }).messages.length > 2 ? reply().text('fallback') : reply().tool('ls', {});
    });
    expect(server.pending).toBe(1);
    expect(ofType((await run(openai())).parts, 'text-delta')[0]?.text).toBe('scripted');
    expect(server.pending).toBe(0);

    for (let i = 0; i < 200; i++) {
      const { parts, error } = await run(openai());
      expect(error).toBeUndefined();
      expect(ofType(parts, 'tool-call')).toHaveLength(1);
    }
    // How fast is the benchmarks' business (bench/), not a timed assertion that fails on a busy machine.
    expect(calls).toBe(200);

    server.setFallback(undefined);
    expect((await run(openai())).error).toMatchObject({ statusCode: 500 });
  });

  it('estimates usage when none is scripted, and sends usage only when asked', async () => {
    server.enqueue(reply().text('x'), reply().text('y'));
    const withUsage = await run(openai());
    expect(ofType(withUsage.parts, 'finish')[0]?.totalUsage.inputTokens).toBeGreaterThan(0);

    const noUsage = await run(createOpenAICompatible({ name: 'local', baseURL: server.baseURL })('m'));
    expect(server.requests[1]?.body.stream_options).toBeUndefined();
    expect(ofType(noUsage.parts, 'finish')[0]?.totalUsage.inputTokens).toBeUndefined();
  });

  it('delays each event when asked', async () => {
    server.enqueue(reply().text('a').text('b').delay(40));
    const started = Date.now();
    const { parts } = await run(openai());
    expect(ofType(parts, 'text-delta').map((p) => p.text)).toEqual(['a', 'b']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150); // role chunk, 2 deltas, finish, usage, [DONE]
  });

  it('ends hung connections on close', async () => {
    server.enqueue(reply().hang());
    const pending = run(openai());
    await until(() => server.requests.length === 1);
    await server.close();
    expect((await pending).error).toBeInstanceOf(Error);
  });

  it('answers unknown routes with 404', async () => {
    const response = await fetch(`${server.url}/v1/models`);
    expect(response.status).toBe(404);
    expect(await response.text()).toMatch(/no route for GET \/v1\/models/);
  });
});

describe('model-server-main', () => {
  it('serves a JSON script in its own process and appends recorded requests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-server-'));
    const scriptFile = join(dir, 'script.json');
    const requestsFile = join(dir, 'requests.jsonl');
    const script: ScriptedReply[] = [{ tools: [{ name: 'read_file', args: { path: 'x' } }] }, { text: ['bye'] }];
    writeFileSync(scriptFile, JSON.stringify(script));
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/model-server-main.ts', '--script', scriptFile, '--requests', requestsFile, '--api-key', KEY], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const { url } = JSON.parse(line) as { url: string };
      const model = createAnthropic({ baseURL: `${url}/v1`, apiKey: KEY })('claude-test');
      const first = await run(model);
      expect(ofType(first.parts, 'tool-call').map((c) => c.input)).toEqual([{ path: 'x' }]);
      const second = await run(model);
      expect(ofType(second.parts, 'text-delta').map((p) => p.text)).toEqual(['bye']);
      const recorded = readFileSync(requestsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as RecordedRequest);
      expect(recorded.map((r) => [r.protocol, r.body.model])).toEqual([
        ['anthropic', 'claude-test'],
        ['anthropic', 'claude-test'],
      ]);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('exits with code 3, naming each refusal, when it refused a request no test expected (0 with --expect-refusals)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'model-server-'));
    const scriptFile = join(dir, 'script.json');
    writeFileSync(scriptFile, JSON.stringify([{ text: ['never'] }]));
    const stopAfterRefusal = async (extra: string[]) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/model-server-main.ts', '--script', scriptFile, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const { url } = JSON.parse(line) as { url: string };
      const res = await fetch(`${url}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }) });
      expect(res.status).toBe(400);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, stderr };
    };
    const unexpected = await stopAfterRefusal([]);
    expect(unexpected.code).toBe(3);
    expect(unexpected.stderr).toMatch(/1 request\(s\) were refused[\s\S]*- \/v1\/messages: max_tokens: Field required/);
    expect((await stopAfterRefusal(['--expect-refusals', 'this test sends a body without max_tokens'])).code).toBe(0);
  });
});
