/**
 * The extension points, proven through the real loop against the scripted model server: tools added and removed at
 * run time (what the model is offered, what a call gets), deferred tools revealed by search_tools, per-turn filters,
 * JSON Schema tools, and input requests of new kinds (questions, file picks) that park, are answered from another
 * connection and resume — with what reached the model checked in the model server's recorded requests.
 */
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { Runtime } from '../../src/main/runtime/runtime';
import { ToolRegistry } from '../../src/main/runtime/registry';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { Store } from '../../src/main/services/store/store';
import type { RunEvent } from '../../src/shared/events';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { createContextFamily } from '../../src/main/tools/context';
import { createFileFamily } from '../../src/main/tools/files';
import { createInteractionFamily } from '../../src/main/tools/interaction';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
let dataDir: string;
let work: string;
let store: Store;

const ping = defineTool({
  name: 'ping',
  description: 'Answer pong.',
  params: z.object({}).strict(),
  risk: 'read-only',
  disclosure: 'public',
  async execute() {
    return { output: 'pong' };
  },
});

function provider(): ProviderConfig {
  return { provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' };
}

/** Tool names the model was offered in a recorded request (OpenAI wire format). */
function offered(request: RecordedRequest | undefined): string[] {
  const tools = (request?.body as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? [];
  return tools.map((t) => t.function.name);
}

/** The tool results the model received in a recorded request. */
function toolResults(request: RecordedRequest | undefined): string[] {
  const messages = (request?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  return messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}

function runtimeWith(registry: ToolRegistry, extra: Partial<ConstructorParameters<typeof Runtime>[0]> = {}): Runtime {
  return new Runtime({ store, dataDir, registry, retryBaseMs: 10, idleTimeoutMs: 5000, ...extra });
}

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-data-');
  work = tempDir('deskhand-work-');
  store = new Store(dataDir);
});

afterEach(async () => {
  store.close();
  await server.close();
});

describe('a live registry', () => {
  it('offers a tool added at run time from the next model step, and stops offering and running it once removed', async () => {
    const registry = new ToolRegistry([]);
    const rt = runtimeWith(registry);
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });

    server.enqueue(reply().tool('ping', {}), reply().text('ok'));
    const first = await rt.sendMessage(conv.id, 'ping?', { provider: provider(), interactive: false });
    expect(first.status).toBe('finished');
    expect(offered(server.requests[0])).not.toContain('ping');
    expect(toolResults(server.requests[1])[0]).toMatch(/Unknown tool "ping"/);

    const remove = registry.add([ping]);
    server.enqueue(reply().tool('ping', {}), reply().text('ok'));
    await rt.sendMessage(conv.id, 'ping now', { provider: provider(), interactive: false });
    expect(offered(server.requests[2])).toContain('ping');
    expect(toolResults(server.requests[3]).at(-1)).toBe('pong');

    remove();
    server.enqueue(reply().tool('ping', {}), reply().text('ok'));
    await rt.sendMessage(conv.id, 'and again', { provider: provider(), interactive: false });
    expect(offered(server.requests[4])).not.toContain('ping');
    expect(toolResults(server.requests[5]).at(-1)).toMatch(/Unknown tool "ping"/);
  });

  it('keeps deferred tools out of the list until search_tools reveals them for the conversation', async () => {
    const registry = new ToolRegistry([]);
    registry.add(createContextFamily({ catalog: registry }).tools);
    registry.add([{ ...ping, name: 'mcp__demo__ping', kind: 'mcp', deferred: true, description: 'Answer pong from the demo server.' } as ToolDefinition]);
    const rt = runtimeWith(registry);
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });

    server.enqueue(reply().tool('search_tools', { query: 'demo pong' }), reply().tool('mcp__demo__ping', {}), reply().text('done'));
    const outcome = await rt.sendMessage(conv.id, 'use the demo server', { provider: provider(), interactive: false });
    expect(outcome.status).toBe('finished');
    expect(offered(server.requests[0])).toContain('search_tools');
    expect(offered(server.requests[0])).not.toContain('mcp__demo__ping');
    expect(toolResults(server.requests[1]).at(-1)).toMatch(/mcp__demo__ping \[revealed: callable from your next step\]/);
    expect(offered(server.requests[1])).toContain('mcp__demo__ping');
    expect(toolResults(server.requests[2]).at(-1)).toBe('pong');
    // Revealed for the conversation: a later turn offers it from its first step.
    server.enqueue(reply().text('still here'));
    await rt.sendMessage(conv.id, 'later', { provider: provider(), interactive: false });
    expect(offered(server.requests[3])).toContain('mcp__demo__ping');
  });

  it('a deferred tool called before it was loaded runs when its arguments are valid, and is loaded from the next step on', async () => {
    let ran = 0;
    const registry = new ToolRegistry([]);
    registry.add(createContextFamily({ catalog: registry }).tools);
    registry.add([{ ...ping, name: 'mcp__demo__ping', kind: 'mcp', deferred: true, description: 'Answer pong from the demo server.', execute: async () => (ran++, { output: 'pong' }) } as ToolDefinition]);
    const rt = runtimeWith(registry);
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().tool('mcp__demo__ping', { colour: 'red' }), reply().tool('mcp__demo__ping', {}), reply().text('done'));
    const outcome = await rt.sendMessage(conv.id, 'use the demo server', { provider: provider(), interactive: false });
    expect(outcome.status).toBe('finished');
    expect(offered(server.requests[0])).not.toContain('mcp__demo__ping');
    // A guess at its arguments is refused with the valid ones (strict arguments), and its schema is loaded now.
    expect(toolResults(server.requests[1])[0]).toMatch(/unknown argument "colour"[\s\S]*mcp__demo__ping was not loaded: its schema is in your next step/);
    expect(offered(server.requests[1])).toContain('mcp__demo__ping');
    expect(toolResults(server.requests[2]).at(-1)).toBe('pong');
    expect(ran).toBe(1);
  });

  it('narrows a turn with a filter, and parses JSON Schema tools with model-readable errors', async () => {
    const registry = new ToolRegistry([ping]);
    const custom: ToolDefinition = {
      name: 'add_numbers',
      kind: 'custom',
      description: 'Add two numbers.',
      params: z.any(),
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
      risk: 'read-only',
      disclosure: 'public',
      async execute(args) {
        const { a, b } = args as { a: number; b: number };
        return { output: String(a + b) };
      },
    };
    registry.add([custom]);
    const off = registry.addFilter('no-ping', () => (tool) => (tool.name === 'ping' ? 'ping is switched off in this mode' : null));
    const rt = runtimeWith(registry);
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().tool('ping', {}).tool('add_numbers', { a: 2, b: 'three' }).tool('add_numbers', { a: 2, b: 3 }), reply().text('ok'));
    await rt.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    expect(offered(server.requests[0])).toEqual(['add_numbers']);
    const [pinged, bad, good] = toolResults(server.requests[1]);
    expect(pinged).toMatch(/not available in this turn: ping is switched off in this mode/);
    expect(bad).toMatch(/Invalid arguments for add_numbers:[\s\S]*b/);
    expect(good).toBe('5');
    off();
    expect(registry.toolSet({ conversationId: conv.id, policy: 'read-only', revealed: [] }).specs.map((s) => s.name)).toContain('ping');
  });

  it('prepares each filter once per turn, and the calls of a step resolve against the set the model was offered', async () => {
    const registry = new ToolRegistry([ping]);
    const many = Array.from({ length: 20 }, (_, i) => ({ ...ping, name: `ping_${i}` }));
    registry.add(many);
    let prepared = 0;
    let checked = 0;
    registry.addFilter('counting', () => {
      prepared++; // a per-turn fact (a store row) is read here, once
      return () => {
        checked++;
        return null;
      };
    });
    const rt = runtimeWith(registry);
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().tool('ping', {}), reply().tool('ping_3', {}), reply().text('ok'));
    await rt.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    expect(toolResults(server.requests[2])).toEqual(['pong', 'pong']);
    // Three model steps, each offered one tool set (the calls of a step resolve against it): three preparations, and
    // every tool is checked once per set.
    expect(prepared).toBe(3);
    expect(checked).toBe(3 * 21);
  });

  it('refuses names that would break namespacing', () => {
    const registry = new ToolRegistry([]);
    expect(() => registry.add([{ ...ping, name: 'mcp__x__ping' }])).toThrow(/only MCP tools/);
    expect(() => registry.add([{ ...ping, name: 'ping-tool', kind: 'mcp' }])).toThrow(/mcp__<server>__<tool>/);
    expect(() => registry.add([ping, ping])).toThrow(/registered twice/);
    expect(registry.all()).toEqual([]);
  });
});

describe('input requests', () => {
  function interactionRuntime(): Runtime {
    const registry = new ToolRegistry([]);
    const interaction = createInteractionFamily();
    registry.add(interaction.tools);
    registry.add(createFileFamily({ dataDir, secrets: new SecretRedactor() }).tools);
    return runtimeWith(registry, { inputKinds: interaction.inputKinds });
  }

  const questions = {
    questions: [
      { question: 'Which database?', header: 'Database', options: [{ label: 'SQLite', description: 'a file' }, { label: 'Postgres', description: 'a server' }] },
      { question: 'Which extras?', options: [{ label: 'Auth', description: 'log in' }, { label: 'Search', description: 'full text' }, { label: 'Export', description: 'CSV' }], multi_select: true },
    ],
  };

  it('parks a question, refuses answers that do not fit, and resumes with each question and its answer for the model', async () => {
    const rt = interactionRuntime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().tool('ask_user_question', questions), reply().text('Thanks.'));
    const events: RunEvent[] = [];
    const parked = await rt.sendMessage(conv.id, 'set it up', { provider: provider(), interactive: false, onEvent: (e) => events.push(e) });
    expect(parked.status).toBe('parked');
    const asked = events.find((e): e is Extract<RunEvent, { type: 'input.requested' }> => e.type === 'input.requested');
    expect(asked).toMatchObject({ kind: 'question', tool: 'ask_user_question', requestId: parked.approvalIds[0] });
    expect((asked!.data as { questions: { question: string }[] }).questions.map((q) => q.question)).toEqual(['Which database?', 'Which extras?']);
    const id = asked!.requestId;

    await expect(rt.decideApproval(id, { approved: true })).rejects.toThrow(/not an approval: answer it with `deskhand runs answer/);
    await expect(rt.answerRequest(id, { answers: { 'Which database?': 'SQLite' } })).rejects.toThrow(/No answer for "Which extras\?"/);
    await expect(rt.answerRequest(id, { answers: { 'Which database?': ['SQLite', 'Postgres'], 'Which extras?': 'Auth' } })).rejects.toThrow(/takes one answer/);
    await expect(rt.answerRequest(id, { nope: 1 })).rejects.toThrow(/not an answer to a question request/);
    expect(server.requests).toHaveLength(1);

    const resumed = await rt.answerRequest(id, { answers: { 'Which database?': 'postgres', 'Which extras?': ['Auth', 'Offline mode'] } }, { provider: provider(), interactive: false });
    expect(resumed?.status).toBe('finished');
    const result = toolResults(server.requests[1])[0]!;
    expect(result).toContain('Q: Which database?\nA: Postgres');
    expect(result).toContain('Q: Which extras?\nA: Auth; (their own words) Offline mode');
    await expect(rt.answerRequest(id, { answers: {} })).rejects.toThrow(/already approved/);
  });

  it('a declined question tells the model so', async () => {
    const rt = interactionRuntime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().tool('ask_user_question', questions), reply().text('ok'));
    const parked = await rt.sendMessage(conv.id, 'go', { provider: provider(), interactive: false });
    await rt.decideApproval(parked.approvalIds[0]!, { approved: false, reason: 'decide yourself' }, { provider: provider(), interactive: false });
    expect(toolResults(server.requests[1])[0]).toMatch(/declined this request\. Their reason: decide yourself/);
  });

  it('a picked file outside the workspace becomes readable without asking, and writing there still asks', async () => {
    const outside = tempDir('deskhand-outside-');
    mkdirSync(join(outside, 'data'));
    writeFileSync(join(outside, 'data', 'report.csv'), 'a,b\n1,2\n');
    const rt = interactionRuntime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().tool('ask_file_picker', { prompt: 'Pick the export' }));
    const parked = await rt.sendMessage(conv.id, 'analyse my export', { provider: provider(), interactive: false });
    const id = parked.approvalIds[0]!;
    await expect(rt.answerRequest(id, { paths: ['relative.csv'] })).rejects.toThrow(/not an absolute path/);
    await expect(rt.answerRequest(id, { paths: [join(outside, 'data')] })).rejects.toThrow(/is a folder; the agent asked for a file/);
    await expect(rt.answerRequest(id, { paths: [join(outside, 'missing.csv')] })).rejects.toThrow(/does not exist/);

    const picked = join(outside, 'data', 'report.csv');
    server.enqueue(reply().tool('read_file', { path: picked }).tool('write_file', { path: join(outside, 'data', 'notes.txt'), content: 'x' }), reply().text('ok'));
    const events: RunEvent[] = [];
    const after = await rt.answerRequest(id, { paths: [picked] }, { provider: provider(), interactive: false, onEvent: (e) => events.push(e) });
    expect(toolResults(server.requests[1])[0]).toContain(picked);
    const read = events.find((e): e is Extract<RunEvent, { type: 'tool.decision' }> => e.type === 'tool.decision' && e.tool === 'read_file');
    expect(read?.decision).toBe('allow');
    const write = events.find((e): e is Extract<RunEvent, { type: 'tool.decision' }> => e.type === 'tool.decision' && e.tool === 'write_file');
    expect(write?.decision).toBe('ask');
    expect(after?.status).toBe('parked');
    const readResult = events.find((e): e is Extract<RunEvent, { type: 'tool.result' }> => e.type === 'tool.result' && e.tool === 'read_file');
    expect(readResult?.output).toContain('1,2');
    // Picked by the person: not outside content (no untrusted envelope, no taint), unlike an unpicked outside read.
    expect(readResult?.output).not.toContain('<untrusted');
    expect(store.getConversation(conv.id)?.tainted).toBe(0);
  });

  it('a run waiting in one process resumes when another connection answers, without polling', async () => {
    const rt = interactionRuntime();
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().tool('ask_user_question', questions), reply().text('Thanks.'));
    let requestId = '';
    const asked = new Promise<void>((resolve) => {
      rt.onEvent((e) => {
        if (e.type === 'input.requested') {
          requestId = e.requestId;
          resolve();
        }
      });
    });
    const running = rt.sendMessage(conv.id, 'set it up', { provider: provider(), interactive: true });
    await asked;
    // Another process: its own connection, its own runtime (no in-process waiter to wake).
    const otherStore = new Store(dataDir);
    try {
      const otherRuntime = new Runtime({ store: otherStore, dataDir, registry: new ToolRegistry(createInteractionFamily().tools), inputKinds: createInteractionFamily().inputKinds });
      const outcome = await otherRuntime.answerRequest(requestId, { answers: { 'Which database?': 'SQLite', 'Which extras?': 'Search' } });
      expect(outcome?.status).toBe('running');
    } finally {
      otherStore.close();
    }
    const finished = await running;
    expect(finished.status).toBe('finished');
    expect(toolResults(server.requests[1])[0]).toContain('A: SQLite');
  });
});

describe('policy explain', () => {
  it('prints every inspector with its verdict and reasons', async () => {
    const registry = new ToolRegistry(createFileFamily({ dataDir, secrets: new SecretRedactor() }).tools);
    const rt = runtimeWith(registry);
    const result = await rt.explain('write_file', { path: 'a.txt', content: 'x' }, 'read-only', work);
    // A runtime with no holds registered (the app registers plan mode, mission scope and the ceilings: holds.ts).
    expect(result.inspectors.map((i) => i.inspector)).toEqual(['classifier', 'containment', 'secrets', 'url-guard', 'taint', 'app-grants', 'confined', 'policy', 'saved-rules', 'hooks']);
    expect(result.inspectors.find((i) => i.inspector === 'classifier')).toMatchObject({ verdict: 'pass', reasons: ['write_file is high-risk'] });
    expect(result.inspectors.find((i) => i.inspector === 'policy')).toMatchObject({ verdict: 'pass', reasons: ['policy "read-only" does not clear high-risk'] });
    expect(result.decision).toBe('ask');
    const allowed = await rt.explain('write_file', { path: 'a.txt', content: 'x' }, 'high-risk', work);
    expect(allowed.inspectors.find((i) => i.inspector === 'policy')?.verdict).toBe('allow');
    expect(allowed.decision).toBe('allow');
  });
});

describe('a tool that declares no effects', () => {
  it('still has its path-like arguments contained (fail safe), as writes unless it is read-only', async () => {
    const outside = tempDir('deskhand-outside-');
    const undeclared: ToolDefinition = { ...ping, name: 'touch_it', risk: 'low-risk', params: z.object({ path: z.string() }) };
    const rt = runtimeWith(new ToolRegistry([undeclared]));
    const inside = await rt.explain('touch_it', { path: 'a.txt' }, 'low-risk', work);
    expect(inside.containment).toMatchObject([{ access: 'write', insideWorkspace: true }]);
    const out = await rt.explain('touch_it', { path: join(outside, 'a.txt') }, 'low-risk', work);
    expect(out.containment).toMatchObject([{ access: 'write', insideWorkspace: false }]);
    expect(out.decision).toBe('ask');
  });
});
