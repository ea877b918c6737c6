/**
 * Forking a conversation from a message: the fork's next model request holds the history up to that message (a reply
 * that called tools keeps its results) and nothing after it; the source is unchanged; the fork's transcript shows the
 * copied tool calls as they ended; the CLI (`deskhand conversations fork ID --at MESSAGE`) does the same.
 */
import { recordsOf } from '../../src/main/runtime/records';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { conversationsCommand } from '../../src/main/host/cli/conversations';
import { projectMessages } from '../../src/main/host/app/projections';
import { parseMessageRef } from '../../src/main/runtime/context/fork';
import { contextModule } from '../../src/main/services/store/modules/context';
import { chatModule } from '../../src/main/services/store/modules/chat';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
let dataDir: string;
afterEach(async () => {
  vi.restoreAllMocks();
  await runtime?.tasks.shutdown();
  store?.close();
  await server?.close();
});

const wire = (req: RecordedRequest) => JSON.stringify(req.body);

async function threeTurns() {
  server = await startModelServer();
  dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  store = new Store(dataDir);
  runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000 });
  const provider = { provider: 'openai' as const, model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' };
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  server.enqueue(reply().tool('get_time', {}, { id: 'gt1' }), reply().text('REPLY-ONE'));
  await runtime.sendMessage(conv.id, 'TURN-ONE what time is it', { provider, interactive: false });
  server.enqueue(reply().text('REPLY-TWO'));
  await runtime.sendMessage(conv.id, 'TURN-TWO thanks', { provider, interactive: false });
  server.enqueue(reply().text('REPLY-THREE'));
  await runtime.sendMessage(conv.id, 'TURN-THREE later', { provider, interactive: false });
  return { conv, provider };
}

describe('fork a conversation', () => {
  it("the fork's next request holds the history up to the message and nothing after; the source is unchanged", async () => {
    const { conv, provider } = await threeTurns();
    const before = store.listMessages(conv.id);
    const replyTwo = before.find((m) => m.role === 'assistant' && m.content.includes('REPLY-TWO'))!;
    const fork = runtime.forkConversation(conv.id, parseMessageRef(`m${replyTwo.id}`));
    expect(fork.id).not.toBe(conv.id);
    expect(fork.title).toBe(`${store.getConversation(conv.id)!.title} (fork)`);
    expect(store.module(chatModule).forkOf(fork.id)).toEqual({ source_conversation_id: conv.id, at_message_id: replyTwo.id });

    server.enqueue(reply().text('FORK-REPLY'));
    await runtime.sendMessage(fork.id, 'TURN-FORK go on', { provider, interactive: false });
    const sent = wire(server.requests.at(-1)!);
    for (const t of ['TURN-ONE', 'REPLY-ONE', 'gt1', 'TURN-TWO', 'REPLY-TWO', 'TURN-FORK']) expect(sent).toContain(t);
    expect(sent).not.toContain('TURN-THREE');
    expect(sent).not.toContain('REPLY-THREE');

    // The source: the same messages, byte for byte; its runs stay its own.
    expect(store.listMessages(conv.id)).toEqual(before);
    expect(store.runsForConversation(conv.id)).toHaveLength(3);
    // The fork's transcript shows the copied call as it ended, and its messages are the person's (pinned by compaction).
    const items = projectMessages(recordsOf(store), fork.id, { title: (t) => t, summarize: () => null });
    expect(items.find((i) => i.kind === 'tool')).toMatchObject({ status: 'ok' });
    const person = store.module(contextModule).personMessages(fork.id, Number.MAX_SAFE_INTEGER).map((p) => JSON.parse(p.content) as string);
    expect(person).toEqual(['TURN-ONE what time is it', 'TURN-TWO thanks', 'TURN-FORK go on']);
  });

  it('a fork at a reply that called tools keeps their results; the CLI forks by message id; bad ids are refused', async () => {
    const { conv, provider } = await threeTurns();
    const call = store.listMessages(conv.id).find((m) => m.role === 'assistant' && m.content.includes('gt1'))!;
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
    expect(await conversationsCommand(['fork', conv.id, '--at', `m${call.id}`, '--json', '--data-dir', dataDir])).toBe(0);
    vi.restoreAllMocks();
    const result = JSON.parse(out.join('')) as { conversationId: string; messages: number };
    // The user message, the reply with the call, and its results.
    expect(result.messages).toBe(3);
    expect(store.listMessages(result.conversationId).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    server.enqueue(reply().text('AFTER-CALL'));
    await runtime.sendMessage(result.conversationId, 'continue', { provider, interactive: false });
    const sent = wire(server.requests.at(-1)!);
    expect(sent).toContain('gt1');
    expect(sent).not.toContain('REPLY-ONE');

    await expect(conversationsCommand(['fork', conv.id, '--at', 'm99999', '--data-dir', dataDir])).rejects.toThrow(/has no message 99999/);
    for (const bad of ['x1', 'm', '-3', '1e3', 'm12;', '']) expect(() => parseMessageRef(bad)).toThrow(/is not a message id/);
    expect(parseMessageRef('m12.2')).toBe(12);
    expect(parseMessageRef(' 7 ')).toBe(7);
  });
});
