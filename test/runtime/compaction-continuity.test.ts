/**
 * Compaction never summarizes the person's instructions away, on both wires: a long scripted conversation (each of
 * the person's messages opens with a directive, then a long paste) is compacted at the threshold by a summary that
 * mentions none of them; the next model request still holds every directive the person gave, the pinned work state
 * and the project instructions, while the old pastes are gone. The record says what was dropped and what was kept,
 * and retrieve_tool_result pages a dropped message back whole.
 */
import { recordsOf } from '../../src/main/runtime/records';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { contextModule } from '../../src/main/services/store/modules/context';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { projectMessages } from '../../src/main/host/app/projections';
import { SettingsFile } from '../../src/main/host/assembly/settings-file';
import { settingsSchema } from '../../src/shared/contract';

let server: ModelServer;
let store: Store;
let runtime: AppRuntime;
afterEach(async () => {
  await runtime?.tasks.shutdown();
  store?.close();
  await server?.close();
});

const WIRES: Record<string, (url: string) => ProviderConfig> = {
  openai: (url) => ({ provider: 'openai', model: 'gpt-test', baseURL: url, apiKey: 'sk-test' }),
  anthropic: (url) => ({ provider: 'anthropic', model: 'claude-test', baseURL: url, apiKey: 'sk-ant-test' }),
};

/** Everything a request carries, as one string (system, messages, tools; either wire). */
const wire = (req: RecordedRequest) => JSON.stringify(req.body);
const isSummaryCall = (req: RecordedRequest) => wire(req).includes('You compact an agent');
const paste = (tag: string) => `${tag} ${'lorem ipsum dolor sit amet '.repeat(120)}`;
const DIRECTIVES = ['DIRECTIVE-1 answer in French', 'DIRECTIVE-2 never touch the db folder', 'DIRECTIVE-3 use tabs', 'DIRECTIVE-4 keep commits small', 'DIRECTIVE-5 cite file paths', 'DIRECTIVE-6 stop before deploying'];

describe.each(Object.keys(WIRES))('compaction continuity on the %s wire', (name) => {
  it("keeps every instruction the person gave and the pinned facts in the request after compaction", async () => {
    server = await startModelServer();
    const dataDir = tempDir('deskhand-data-');
    const work = tempDir('deskhand-work-');
    writeFileSync(join(work, 'AGENTS.md'), 'PROJECT-RULE: run the linter before every commit.\n');
    store = new Store(dataDir);
    runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000, contextWindow: 4000 });
    const provider = WIRES[name]!(server.baseURL);
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    // Turn 1 pins a fact in the work state.
    server.enqueue(reply().tool('update_work_state', { patch: { fact: 'PINNED-FACT the staging port is 8443' } }), reply().text('noted'));
    await runtime.sendMessage(conv.id, `${DIRECTIVES[0]}. Remember the port.`, { provider, interactive: false });
    // A summary that drops every directive: the pinned set must carry them anyway.
    server.setFallback((req) => (isSummaryCall(req) ? reply().text('SUMMARY-TEXT: several long pastes were discussed.') : reply().text('ok')));
    for (const d of DIRECTIVES.slice(1)) await runtime.sendMessage(conv.id, `${d}. ${paste(`PASTE-${d.slice(10, 11)}`)}`, { provider, interactive: false });

    const records = store.module(contextModule).list(conv.id);
    expect(records.length).toBeGreaterThanOrEqual(1);
    const lastSummary = server.requests.filter(isSummaryCall).at(-1)!;
    const next = server.requests[server.requests.indexOf(lastSummary) + 1]!;
    expect(next.protocol).toBe(name);
    const text = wire(next);
    expect(text).toContain('SUMMARY-TEXT');
    for (const d of DIRECTIVES) expect(text).toContain(d);
    expect(text).toContain('PINNED-FACT the staging port is 8443');
    expect(text).toContain('PROJECT-RULE: run the linter before every commit.');
    // Compaction did shorten it: the oldest paste is not carried whole any more.
    expect(text).not.toContain(paste('PASTE-2'));

    // The record: what was dropped, what was kept verbatim (the tail and the person's messages, pinned).
    const record = records.at(-1)!;
    const kept = JSON.parse(record.kept!) as { messages: number; chars: number; instructions: { id: number; chars: number; cut: boolean }[]; state: string[] };
    expect(kept.messages).toBeGreaterThan(0);
    expect(kept.state).toContain('work state');
    const personIds = kept.instructions.map((i) => i.id);
    expect(personIds.length).toBeGreaterThanOrEqual(2);
    expect(kept.instructions.some((i) => i.cut)).toBe(true);
    expect(record.tokens_after).toBeGreaterThan(0);
    expect(record.tokens_after).toBeLessThan(record.tokens_before);
    // The transcript's record shows the same (what the person audits).
    const shown = projectMessages(recordsOf(store), conv.id, { title: (t) => t, summarize: () => null }).filter((i) => i.kind === 'compaction').at(-1)!;
    expect(shown).toMatchObject({ tokensAfter: record.tokens_after, kept: { messages: kept.messages, instructions: kept.instructions, state: kept.state } });

    // A cut message is paged back whole by its id; a message after the summary is not a dropped one.
    const cutId = kept.instructions.find((i) => i.cut)!.id;
    const toolMessage = store.listMessages(conv.id).find((m) => m.role === 'tool' && m.id <= record.upto_message_id)!;
    const script = [
      reply().tool('retrieve_tool_result', { id: `msg_${cutId}`, length: 100_000 }, { id: 'rt1' }),
      reply().tool('retrieve_tool_result', { id: 'msg_999999' }, { id: 'rt2' }),
      reply().tool('retrieve_tool_result', { id: `msg_${toolMessage.id}` }, { id: 'rt3' }),
      reply().text('read it'),
    ];
    server.setFallback((req) => (isSummaryCall(req) ? reply().text('SUMMARY-TEXT again') : (script.shift() ?? reply().text('ok'))));
    runtime.setFamilies(conv.id, ['results'], true);
    await runtime.sendMessage(conv.id, 'What did I paste before?', { provider, interactive: false });
    const results = new Map(store.toolCallsForConversation(conv.id).map((c) => [c.call_id, c]));
    const original = store.listMessages(conv.id).find((m) => m.id === cutId)!;
    const whole = JSON.parse(original.content) as string;
    expect(results.get('rt1')!.output).toContain(whole);
    expect(results.get('rt2')!.output).toMatch(/msg_999999 is not a message a compaction dropped from this conversation/);
    // The person's message comes back as theirs; a dropped tool result comes back as untrusted content.
    expect(results.get('rt1')!.output).not.toContain('<untrusted');
    expect(results.get('rt3')!.output).toMatch(/<untrusted source="dropped message msg_\d+"[\s\S]*PINNED-FACT/);
  });
});

describe('the compaction threshold', () => {
  it('comes from Settings (compactAtPercent), read again when settings.json changes; a host flag overrides it', async () => {
    server = await startModelServer();
    const dataDir = tempDir('deskhand-data-');
    store = new Store(dataDir);
    runtime = createAppRuntime({ store, dataDir, vault: null, contextWindow: 10_000 });
    const conv = runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
    expect(runtime.contextFigures(conv.id).compactAtTokens).toBe(8000); // no settings: 80%
    const file = new SettingsFile(dataDir);
    file.write({ ...file.read(), compactAtPercent: 30 });
    expect(runtime.contextFigures(conv.id).compactAtTokens).toBe(3000);
    file.write({ ...file.read(), compactAtPercent: 55 });
    expect(runtime.contextFigures(conv.id).compactAtTokens).toBe(5500);
    await runtime.tasks.shutdown();
    const flagged = createAppRuntime({ store, dataDir, vault: null, contextWindow: 10_000, compactAt: 0.6 });
    expect(flagged.contextFigures(conv.id).compactAtTokens).toBe(6000);
    await flagged.tasks.shutdown();
    expect(settingsSchema.safeParse({ ...file.read(), compactAtPercent: 99 }).success).toBe(false);
  });
});
