/**
 * The conversation tools people expect, over the real app service, runtime, tools, store and scripted model server:
 * attachments reach the model as parts (the server's recorded request), edit-and-resend and regenerate replace the
 * turn from a message on (a superseded branch, kept but never sent or shown), tokens and cost per turn and per
 * conversation, Markdown export, and what a tool card says after a reload (how it ended, who cleared it, its duration
 * from execution start, the denied diff).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractEvent, MessageItem, PendingApproval, ToolItem } from '../../src/shared/contract';
import { chatModule } from '../../src/main/services/store/modules/chat';
import { formatUsage } from '../../src/shared/prices';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let server: ModelServer;
let dataDir: string;
let work: string;
let h: Harness;
let model = 'scripted';

const scripted = () => ({ provider: 'openai-compatible' as const, model, baseURL: server.baseURL, apiKey: null });
const finished = (e: ContractEvent) => e.event === 'run' && e.payload.type === 'run.finished' && e.payload;
const approval = (e: ContractEvent): PendingApproval | undefined => (e.event === 'approvalsChanged' ? e.payload.approvals[0] : undefined);

// The smallest valid PNG (1×1).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

beforeEach(async () => {
  server = await startModelServer();
  dataDir = tempDir('deskhand-chat-data-');
  work = tempDir('deskhand-chat-work-');
  model = 'scripted';
});

afterEach(async () => {
  await h.service.shutdown();
  h.close();
  await server.close();
});

function open(): void {
  h = openHarness({ dataDir, override: scripted() });
}

async function conversation(policy: 'read-only' | 'low-risk' = 'read-only'): Promise<string> {
  return (await h.service.createConversation({ folder: work, policy })).id;
}

async function turn(conversationId: string, text: string, extra: Record<string, unknown> = {}): Promise<void> {
  await h.service.sendMessage({ conversationId, text, ...extra } as never);
  await h.waitFor(finished);
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return { code: (err as { code: string }).code, message: (err as Error).message };
  }
  throw new Error('expected the call to fail');
}

const items = async (id: string): Promise<MessageItem[]> => (await h.service.getMessages({ conversationId: id })).items;
const lastBody = () => JSON.stringify(server.requests.at(-1)!.body);

describe('attachments', () => {
  it('reach the model as an image part and as text naming the file, are stored with the message and shown as chips', async () => {
    open();
    const id = await conversation();
    server.enqueue(reply().text('A red dot and your notes.'));
    await turn(id, 'What is in these?', {
      attachments: [
        { name: 'dot.png', mediaType: 'image/png', data: PNG.toString('base64') },
        { name: 'notes.txt', mediaType: 'text/plain', data: Buffer.from('buy milk\nAPI_TOKEN=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789').toString('base64') },
      ],
    });
    const user = (server.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages.find((m) => m.role === 'user')!;
    const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts[0]).toEqual({ type: 'text', text: 'What is in these?' });
    expect(parts.find((p) => p.type === 'image_url')!.image_url!.url).toBe(`data:image/png;base64,${PNG.toString('base64')}`);
    const file = parts.find((p) => p.type === 'text' && p.text!.startsWith('Attached file notes.txt'))!.text!;
    expect(file).toContain('buy milk');
    // A credential in an attached file is redacted like one typed.
    expect(file).not.toContain('abcdefghijklmnopqrstuvwxyz0123456789');

    const user2 = (await items(id)).find((i) => i.kind === 'user')!;
    expect(user2).toMatchObject({ text: 'What is in these?', attachments: [{ name: 'dot.png', kind: 'image', bytes: PNG.length }, { name: 'notes.txt', kind: 'text' }] });
    expect((user2 as { attachments: { dataUrl: string | null }[] }).attachments[0]!.dataUrl).toMatch(/^data:image\/png;base64,/);

    // The next turn's history carries the image again (stored with the message).
    server.enqueue(reply().text('Still a dot.'));
    await turn(id, 'And now?');
    expect(lastBody()).toContain(`data:image/png;base64,${PNG.toString('base64')}`);
  });

  it('refuse what is too large, not an image or text, or lies about its type, and change nothing', async () => {
    open();
    const id = await conversation();
    const big = Buffer.alloc(800 * 1024, 'a').toString('base64');
    expect(await failure(h.service.sendMessage({ conversationId: id, text: 'x', attachments: [{ name: 'big.txt', mediaType: 'text/plain', data: big }] }))).toMatchObject({
      code: 'usage',
      message: /big\.txt is 800 KB; an attachment may be at most 700 KB/,
    });
    expect(await failure(h.service.sendMessage({ conversationId: id, text: 'x', attachments: [{ name: 'a.zip', mediaType: 'application/zip', data: 'UEsDBA==' }] }))).toMatchObject({
      message: /only images .* and text files can be attached, not application\/zip/,
    });
    expect(await failure(h.service.sendMessage({ conversationId: id, text: 'x', attachments: [{ name: 'fake.png', mediaType: 'image/png', data: Buffer.from('hello').toString('base64') }] }))).toMatchObject({
      message: /fake\.png: the file is not a image\/png image/,
    });
    expect(h.store.listMessages(id)).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });
});

describe('edit and resend, regenerate', () => {
  it('replace the turn from the edited message on: the old branch is kept aside, never sent, shown or searchable', async () => {
    open();
    const id = await conversation();
    server.enqueue(reply().text('Paris is the capital.'), reply().text('Lyon has the old town.'), reply().text('Marseille has the port.'));
    await turn(id, 'Tell me about Paris');
    await turn(id, 'Now about Lyon');
    const second = (await items(id)).filter((i) => i.kind === 'user')[1]!;
    await turn(id, 'Now about Marseille', { replaceFrom: second.id });

    const body = lastBody();
    expect(body).toContain('Tell me about Paris');
    expect(body).toContain('Paris is the capital.');
    expect(body).toContain('Now about Marseille');
    expect(body).not.toContain('Lyon');
    const shown = (await items(id)).map((i) => (i.kind === 'user' || i.kind === 'assistant' ? i.text : i.kind));
    expect(shown).toEqual(['Tell me about Paris', 'Paris is the capital.', 'Now about Marseille', 'Marseille has the port.']);
    // Kept as a superseded branch, whole; search sees only the current branch.
    const branch = h.store.module(chatModule).superseded(id);
    expect(branch.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(new Set(branch.map((m) => m.branch_id)).size).toBe(1);
    expect((await h.service.searchMessages({ query: 'Lyon', limit: 10 } as never)).matches ?? []).toHaveLength(0);
    expect(await failure(h.service.sendMessage({ conversationId: id, text: 'again', replaceFrom: second.id }))).toMatchObject({ code: 'not_found' });
    const assistant = (await items(id)).find((i) => i.kind === 'assistant')!;
    expect(await failure(h.service.sendMessage({ conversationId: id, text: 'again', replaceFrom: assistant.id }))).toMatchObject({ code: 'usage', message: /Only your own messages/ });
  });

  it('regenerate sends the last message again, attachments included, and replaces only the last reply', async () => {
    open();
    const id = await conversation();
    server.enqueue(reply().text('First answer.'), reply().text('Second answer.'), reply().text('Second answer, take two.'));
    await turn(id, 'one');
    await turn(id, 'two', { attachments: [{ name: 'dot.png', mediaType: 'image/png', data: PNG.toString('base64') }] });
    const before = server.requests.at(-1)!.body as { messages: unknown[] };
    await h.service.regenerate({ conversationId: id });
    await h.waitFor(finished);
    const after = server.requests.at(-1)!.body as { messages: unknown[] };
    expect(after.messages).toEqual(before.messages);
    const shown = (await items(id)).map((i) => (i.kind === 'user' || i.kind === 'assistant' ? i.text : i.kind));
    expect(shown).toEqual(['one', 'First answer.', 'two', 'Second answer, take two.']);
    expect((await items(id)).filter((i) => i.kind === 'user')[1]).toMatchObject({ attachments: [{ name: 'dot.png' }] });
  });
});

describe('tokens and cost', () => {
  it('per turn from the provider usage, priced from the table; an unknown model shows tokens only', async () => {
    model = 'gpt-4o-mini';
    open();
    const id = await conversation();
    server.enqueue(reply().text('Priced.').usage({ input: 1000, output: 200 }), reply().text('Again.').usage({ input: 3000, output: 100 }));
    await turn(id, 'a');
    await turn(id, 'b');
    const result = await h.service.getMessages({ conversationId: id });
    const turns = result.items.filter((i): i is Extract<MessageItem, { kind: 'assistant' }> => i.kind === 'assistant').map((i) => i.usage);
    expect(turns[0]).toMatchObject({ inputTokens: 1000, outputTokens: 200, models: ['gpt-4o-mini'] });
    expect(turns[0]!.costUsd).toBeCloseTo((1000 * 0.15 + 200 * 0.6) / 1e6, 10);
    expect(result.usage).toMatchObject({ inputTokens: 4000, outputTokens: 300 });
    expect(result.usage!.costUsd).toBeCloseTo((4000 * 0.15 + 300 * 0.6) / 1e6, 10);
    // Input the provider's prompt cache served is priced as cached (gpt-4o-mini: $0.075 per million, half the input).
    server.enqueue(reply().text('Cached.').usage({ input: 4000, output: 100, cacheRead: 3000 }));
    await turn(id, 'again');
    const cached = await h.service.getMessages({ conversationId: id });
    const last = cached.items.at(-1) as Extract<MessageItem, { kind: 'assistant' }>;
    expect(last.usage).toMatchObject({ inputTokens: 4000, cacheReadTokens: 3000, outputTokens: 100 });
    expect(last.usage!.costUsd).toBeCloseTo((1000 * 0.15 + 3000 * 0.075 + 100 * 0.6) / 1e6, 10);
    expect(cached.usage).toMatchObject({ inputTokens: 8000, cacheReadTokens: 3000, outputTokens: 400 });
    await h.service.shutdown();
    h.close();

    model = 'my-local-model';
    open();
    server.enqueue(reply().text('Unpriced.').usage({ input: 10, output: 5 }));
    await turn(id, 'c');
    const mixed = await h.service.getMessages({ conversationId: id });
    expect(mixed.items.at(-1)).toMatchObject({ kind: 'assistant', usage: { inputTokens: 10, outputTokens: 5, costUsd: null } });
    expect(mixed.usage).toMatchObject({ inputTokens: 8010, outputTokens: 405, costUsd: null, models: ['gpt-4o-mini', 'my-local-model'] });
  });

  it('on the Anthropic wire, the usage line shows what the cache served and what was written to it, each priced as such', async () => {
    h = openHarness({ dataDir, override: { provider: 'anthropic', model: 'claude-sonnet-4-5', baseURL: server.baseURL, apiKey: 'sk-ant-test' } });
    const id = await conversation();
    // The scripted server reports usage as Anthropic does: input_tokens apart from cache_read/cache_creation_input_tokens.
    server.enqueue(reply().text('Written.').usage({ input: 5000, output: 100, cacheWrite: 4000 }), reply().text('Read.').usage({ input: 5200, output: 50, cacheRead: 4000, cacheWrite: 1000 }));
    await turn(id, 'one');
    await turn(id, 'two');
    const result = await h.service.getMessages({ conversationId: id });
    const turns = result.items.filter((i): i is Extract<MessageItem, { kind: 'assistant' }> => i.kind === 'assistant').map((i) => i.usage!);
    expect(turns[1]).toMatchObject({ inputTokens: 5200, cacheReadTokens: 4000, cacheWriteTokens: 1000, outputTokens: 50 });
    // claude-sonnet-4-5: $3 input, $0.30 cache read, $3.75 cache write, $15 output per million.
    expect(turns[1]!.costUsd).toBeCloseTo((200 * 3 + 4000 * 0.3 + 1000 * 3.75 + 50 * 15) / 1e6, 10);
    expect(formatUsage(turns[1]!)).toBe('5,200 in (4,000 cached, 1,000 to cache) · 50 out · $0.0063');
    expect(formatUsage(turns[0]!)).toBe('5,000 in (4,000 to cache) · 100 out · $0.0195');
    expect(result.usage).toMatchObject({ inputTokens: 10200, cacheReadTokens: 4000, cacheWriteTokens: 5000, outputTokens: 150 });
  });
});

describe('export', () => {
  it('renders messages and tool calls as Markdown with fenced arguments and outputs, without untrusted markup or secrets', async () => {
    open();
    const id = await conversation('low-risk');
    server.enqueue(reply().text('Running it.').tool('execute_command', { command: 'echo exported-output $HOME' }), reply().text('It printed exported-output.'));
    await turn(id, 'Run echo please. My key is sk-ant-api03-zyxwvutsrqponmlkjihgfedcba9876543210');
    const { markdown, fileName } = await h.service.exportConversation({ conversationId: id });
    expect(fileName).toMatch(/\.md$/);
    expect(markdown).toContain('## You');
    expect(markdown).toContain('## Deskhand');
    expect(markdown).toMatch(/\*\*Tool call: .*\*\* \(`execute_command`\) — ok, allowed by the conversation policy/);
    expect(markdown).toContain('```json\n{\n  "command": "echo exported-output $HOME"\n}\n```');
    expect(markdown).toMatch(/Output \(from command output; data, not instructions\):\n\n```\n[^`]*exported-output/);
    expect(markdown).not.toContain('<untrusted');
    expect(markdown).not.toContain('zyxwvutsrqponmlkjihgfedcba9876543210');
    expect(markdown).toContain('It printed exported-output.');
  });
});

describe('tool cards after a reload', () => {
  it('say who approved and when, count the duration from execution start, and keep a denied diff', async () => {
    open();
    const id = await conversation();
    const file = join(work, 'a.txt');
    const other = join(work, 'b.txt');
    server.enqueue(
      reply().tool('write_file', { path: file, content: 'approved\n' }),
      reply().text('Written.'),
      reply().tool('write_file', { path: other, content: 'denied change\n' }),
      reply().text('Not written.'),
    );
    await h.service.sendMessage({ conversationId: id, text: 'write it' });
    const first = await h.waitFor(approval);
    await new Promise((r) => setTimeout(r, 300)); // the approval waits a while, as a person would
    await h.service.decideApproval({ approvalId: first.approvalId, decision: 'approve' });
    await h.waitFor(finished);
    await h.service.sendMessage({ conversationId: id, text: 'write again' });
    const second = await h.waitFor(approval);
    await h.service.decideApproval({ approvalId: second.approvalId, decision: 'deny', reason: 'no' });
    await h.waitFor(finished);
    expect(readFileSync(file, 'utf8')).toBe('approved\n');
    expect(existsSync(other)).toBe(false);

    const [ok, denied] = (await items(id)).filter((i): i is ToolItem => i.kind === 'tool');
    const row = h.store.getApproval(first.approvalId)!;
    expect(ok).toMatchObject({ status: 'ok', cleared: { by: 'person', via: 'the web UI', decision: 'approved', at: row.decided_at } });
    const call = h.store.toolCallsForConversation(id).find((c) => c.call_id === ok!.callId)!;
    const note = h.store.module(chatModule).notesForConversation(id).find((n) => n.tool_call_id === call.id)!;
    // Execution started after the answer; the card's duration is the execution alone, not the wait.
    expect(note.started_at).toBeGreaterThanOrEqual(row.decided_at!);
    expect(ok!.durationMs).toBe(call.finished_at! - note.started_at!);
    expect(denied).toMatchObject({ status: 'denied', cleared: { by: 'person', via: 'the web UI', decision: 'denied' } });
    expect(denied!.preview).toContain('+denied change');
  });

  it('say "backgrounded" for a command moved to the background and "stopped" for one the person stopped', async () => {
    open();
    const id = await conversation('low-risk');
    server.enqueue(reply().tool('execute_command', { command: 'sleep 30', run_in_background: true, description: 'nap' }), reply().text('Started.'));
    await turn(id, 'start a nap');
    server.enqueue(reply().tool('execute_command', { command: 'sleep 30' }), reply().text('never'));
    await h.service.sendMessage({ conversationId: id, text: 'sleep in the foreground' });
    await h.waitFor((e) => e.event === 'run' && e.payload.type === 'tool.call' && e.payload.tool === 'execute_command');
    await new Promise((r) => setTimeout(r, 500));
    await h.service.stopRun({ conversationId: id });
    await h.waitFor(finished);
    const cards = (await items(id)).filter((i): i is ToolItem => i.kind === 'tool');
    expect(cards.map((c) => c.status)).toEqual(['backgrounded', 'stopped']);
    expect(cards[0]!.cleared).toMatchObject({ by: 'policy' });
  });
});
