/**
 * What Stop and PreCompact hooks say, where it goes (docs/hooks.md), with the person's real hooks (settings.json in the
 * data folder, run by the host's hook service): a Stop hook's block reason is the model's next user-role message and
 * the transcript shows it as the hook's, never as the person's; a firing's notes (a `systemMessage`, a failing hook's
 * line) are shown to the person only and never reach the model; a PreCompact hook's stdout is instructions for the
 * summary request. Proved by the model server's recorded requests and the stored conversation as the UI gets it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it, onTestFinished } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { projectMessages } from '../../src/main/host/app/projections';
import { recordsOf } from '../../src/main/runtime/records';
import { lastUserMessage } from '../../src/main/runtime/loop/branches';
import { personMessages } from '../../src/main/host/assembly/memory-host';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import { contextModule } from '../../src/main/services/store/modules/context';
import { Store } from '../../src/main/services/store/store';
import type { MessageItem } from '../../src/shared/contract';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';

const NODE = JSON.stringify(process.execPath);
const wire = (req: RecordedRequest) => JSON.stringify(req.body);
const isSummaryCall = (req: RecordedRequest) => wire(req).includes('You compact an agent');

interface World {
  server: ModelServer;
  store: Store;
  runtime: AppRuntime;
  provider: ProviderConfig;
  /** The conversation as the UI gets it. */
  items: (conversationId: string) => MessageItem[];
}

/**
 * A runtime over a fresh data folder with the person's hooks (settings.json, Claude Code's schema: each event's node
 * scripts) and a model server; all of it closed when the test ends.
 */
async function world(hooks: Record<string, string[]>, contextWindow?: number): Promise<World> {
  const server = await startModelServer();
  const dataDir = tempDir('deskhand-data-');
  const scripts = tempDir('deskhand-hooks-');
  const settings: Record<string, unknown[]> = {};
  for (const [event, bodies] of Object.entries(hooks)) {
    const commands = bodies.map((body, i) => {
      const path = join(scripts, `${event}-${i}.js`);
      writeFileSync(path, `const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));\n${body}\n`);
      return { type: 'command', command: `${NODE} ${JSON.stringify(path)}` };
    });
    settings[event] = [{ hooks: commands }];
  }
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ hooks: settings }));
  const store = new Store(dataDir);
  const runtime = createAppRuntime({ store, dataDir, vault: null, retryBaseMs: 10, idleTimeoutMs: 10_000, ...(contextWindow ? { contextWindow } : {}) });
  onTestFinished(async () => {
    await runtime.tasks.shutdown();
    store.close();
    await server.close();
  });
  return {
    server,
    store,
    runtime,
    provider: { provider: 'openai', model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' },
    items: (conversationId) => projectMessages(recordsOf(store), conversationId, { title: (t) => t, summarize: () => null }),
  };
}

it("a Stop hook's reason is the model's next message, shown as the hook's; its systemMessage is the person's only", async () => {
  const { server, store, runtime, provider, items } = await world({
    // Blocks the first stop only (a file marks it), with a note each time.
    Stop: [
      `const fs = require('node:fs'); const once = __filename + '.blocked'; const block = !input.stop_hook_active && !fs.existsSync(once); fs.writeFileSync(once, '');
      process.stdout.write(JSON.stringify(block ? { decision: 'block', reason: 'Keep-Going-Rr7: run the tests too', systemMessage: 'Note-For-You-Mm3' } : { systemMessage: 'Note-For-You-Mm3' }));`,
    ],
  });
  const conv = runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
  server.enqueue(reply().text('first done'), reply().text('really done'), reply().text('here'));
  const first = await runtime.sendMessage(conv.id, 'go', { provider, interactive: false });
  expect(first.status, JSON.stringify(first)).toBe('finished');
  // A regenerate sends the person's message again, not the hook's reason that came after it.
  expect(JSON.parse(lastUserMessage(recordsOf(store), conv.id).content)).toBe('go');
  const again = await runtime.sendMessage(conv.id, 'and now?', { provider, interactive: false });
  expect(again.status, JSON.stringify(again)).toBe('finished');
  expect(server.requests).toHaveLength(3);

  // The model read the reason as a user-role message after its answer, labelled as the Stop hook's.
  const second = (server.requests[1]!.body as { messages: { role: string; content: unknown }[] }).messages;
  const said = second.findIndex((m) => m.role === 'user' && JSON.stringify(m.content).includes('Keep-Going-Rr7'));
  expect(said, JSON.stringify(second)).toBeGreaterThan(0);
  expect(JSON.stringify(second[said]!.content)).toMatch(/^"\[Stop hook\]\\nStop hook `[^`]*Stop-0\.js[^`]*`: Keep-Going-Rr7: run the tests too"$/);
  expect(second[said - 1]!.role).toBe('assistant');
  // The notes never reach the model, in any request.
  for (const r of server.requests) expect(wire(r)).not.toContain('Note-For-You-Mm3');

  // The stored conversation: the person's messages are theirs only; the reason and the notes are the hook's.
  const shown = items(conv.id);
  expect(shown.filter((i) => i.kind === 'user').map((i) => (i as { text: string }).text)).toEqual(['go', 'and now?']);
  // Memory's quote rule reads the person's messages: the hook's reason is not one.
  expect(personMessages(recordsOf(store), conv.id)).toEqual(['go', 'and now?']);
  const hooks = shown.filter((i): i is Extract<MessageItem, { kind: 'hook' }> => i.kind === 'hook');
  expect(hooks.map((h) => [h.event, h.toModel, h.text.includes('Keep-Going-Rr7') ? 'reason' : h.text])).toEqual([
    ['Stop', false, 'Note-For-You-Mm3'],
    ['Stop', true, 'reason'],
    ['Stop', false, 'Note-For-You-Mm3'],
    ['Stop', false, 'Note-For-You-Mm3'],
  ]);
  expect(hooks.find((h) => h.toModel)!.text).toMatch(/^Stop hook `[^`]*`: Keep-Going-Rr7: run the tests too$/);
  // In order: the first answer, the note, the reason, the answer it led to, the second firing's note, the next turn.
  const order = shown.map((i) => (i.kind === 'hook' ? `hook:${i.toModel}` : i.kind === 'assistant' ? i.text : i.kind));
  expect(order).toEqual(['user', 'first done', 'hook:false', 'hook:true', 'really done', 'hook:false', 'user', 'here', 'hook:false']);
}, 60_000);

it("a PreCompact hook's stdout is instructions for the summary; a failing one's line is the person's only", async () => {
  // The first prints instructions; the second fails (its line is a note).
  const { server, store, runtime, provider, items } = await world({ PreCompact: [`process.stdout.write('Keep-The-Port-Kk9 in the summary');`, `process.stderr.write('Compact-Broken-Pp8'); process.exit(1);`] }, 4000);
  const conv = runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
  server.setFallback((req) => (isSummaryCall(req) ? reply().text('SUMMARY-TEXT') : reply().text('ok')));
  for (let i = 0; i < 6; i++) await runtime.sendMessage(conv.id, `paste ${i} ${'lorem ipsum dolor sit amet '.repeat(120)}`, { provider, interactive: false });
  expect(store.module(contextModule).list(conv.id).length).toBeGreaterThanOrEqual(1);

  const summary = server.requests.find(isSummaryCall)!;
  expect(wire(summary)).toContain('Instructions for this summary from the PreCompact hooks:');
  expect(wire(summary)).toContain('Keep-The-Port-Kk9 in the summary');
  // The instructions are the summary's, the failing hook's line the person's: neither is in the agent's requests.
  for (const r of server.requests) expect(wire(r)).not.toContain('Compact-Broken-Pp8');
  for (const r of server.requests.filter((q) => !isSummaryCall(q))) expect(wire(r)).not.toContain('Keep-The-Port-Kk9');
  const notes = items(conv.id).filter((i): i is Extract<MessageItem, { kind: 'hook' }> => i.kind === 'hook');
  expect(notes.length).toBeGreaterThanOrEqual(1);
  expect(notes[0]).toMatchObject({ event: 'PreCompact', toModel: false });
  expect(notes[0]!.text).toMatch(/PreCompact-1\.js[^\n]*` failed \(exit 1\): Compact-Broken-Pp8; ignored/);
}, 60_000);

it("a project's PreCompact instructions are withheld from the summary (a note says so), as every untrusted word is", async () => {
  const { server, runtime, provider } = await world({}, 4000);
  // A project's hook beside the person's (fired through the runtime's hooks interface, as the host's service answers).
  runtime.useHooks({
    fire: async (event) =>
      event === 'PreCompact'
        ? {
            block: null,
            permission: null,
            context: [
              { text: 'Person-Instr-Vv2', source: 'hook ~/compact.sh', trusted: true },
              { text: 'Project-Instr-Tt4', source: 'project hook ./compact.sh', trusted: false },
            ],
            stop: null,
            notes: [],
            ran: ['hook ~/compact.sh', 'project hook ./compact.sh'],
          }
        : null,
  });
  const conv = runtime.createConversation({ folder: tempDir('deskhand-work-'), policy: 'read-only' });
  server.setFallback((req) => (isSummaryCall(req) ? reply().text('SUMMARY-TEXT') : reply().text('ok')));
  for (let i = 0; i < 6; i++) await runtime.sendMessage(conv.id, `paste ${i} ${'lorem ipsum dolor sit amet '.repeat(120)}`, { provider, interactive: false });
  const summaries = server.requests.filter(isSummaryCall).map(wire);
  expect(summaries.length).toBeGreaterThanOrEqual(1);
  for (const summary of summaries) {
    expect(summary).toContain('[hook ~/compact.sh]\\nPerson-Instr-Vv2');
    expect(summary).not.toContain('Project-Instr-Tt4');
    expect(summary).toMatch(/\[untrusted content from project hook .\/compact.sh withheld from this summary \(\d+ characters\)/);
  }
}, 60_000);
