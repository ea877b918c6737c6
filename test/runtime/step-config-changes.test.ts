/**
 * What a step reads of the person's and the project's configuration is kept between steps (docs/performance.md,
 * "Issue 54, fourth round"): the hooks of settings.json, the agent definitions the system prompt lists, the project
 * instructions, the compaction threshold. Each is kept only while its files look the same: a change made while a
 * conversation runs is seen by its next step. Here the change is made while the model server answers a step (the
 * scripted server's fallback runs at the request), and the effects are read back: the hook's own log, the system
 * prompt of the requests that follow, the summary request compaction makes.
 */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createAppRuntime } from '../../src/main/host/assembly/open-runtime';
import { defaultSettings } from '../../src/main/host/assembly/settings-file';
import { ProfileStore } from '../../src/main/services/profiles/index';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
let store: Store;
let work: string;

beforeEach(async () => {
  server = await startModelServer();
  store = new Store(tempDir('deskhand-step-config-data-'));
  work = tempDir('deskhand-step-config-work-');
  writeFileSync(join(work, 'a.txt'), 'hello\n');
});

afterEach(async () => {
  store.close();
  await server.close();
});

const provider = () => ({ provider: 'openai' as const, model: 'test', baseURL: server.baseURL, apiKey: 'sk-test' });

/** The system prompt of an OpenAI chat-completions request. */
function systemOf(req: RecordedRequest): string {
  if (req.protocol !== 'openai') throw new Error('expected an OpenAI request');
  return req.body.messages
    .filter((m) => m.role === 'system')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

const isSummary = (req: RecordedRequest) => systemOf(req).startsWith('You compact an agent');

/** settings.json as Settings writes it, with more keys (hooks, compactAtPercent). */
function settings(extra: Record<string, unknown>): void {
  writeFileSync(join(store.dataDir, 'settings.json'), JSON.stringify({ ...defaultSettings({}), ...extra }, null, 2));
}

it('a hook, an agent definition, an instruction file and an edit of each, made while a run goes on, count from its next step', async () => {
  const log = join(work, 'hook.log');
  const agents = join(store.dataDir, 'agents');
  mkdirSync(agents);
  const agent = (description: string) => writeFileSync(join(agents, 'helper.md'), `---\nname: helper\ndescription: ${description}\n---\nHelp.\n`);
  // Whatever the model is asked, a `stat` call; the changes are made while steps 2 and 3 are asked for.
  const steps: RecordedRequest[] = [];
  server.setFallback((req) => {
    steps.push(req);
    const n = steps.length;
    if (n === 2) {
      settings({ hooks: { PreToolUse: [{ matcher: 'stat', hooks: [{ type: 'command', command: `echo pre >> ${JSON.stringify(log)}` }] }] } });
      agent('Helps-first');
      writeFileSync(join(work, 'AGENTS.md'), 'Marker-instructions-one.\n');
    }
    if (n === 3) {
      // Edits of the same length (the stamp also holds the change and inode-change times, not only the size).
      agent('Helps-again');
      writeFileSync(join(work, 'AGENTS.md'), 'Marker-instructions-two.\n');
      settings({ hooks: { PreToolUse: [{ matcher: 'stat', hooks: [{ type: 'command', command: `echo pre2 >> ${JSON.stringify(log)}` }] }] } });
    }
    return n <= 3 ? reply().tool('stat', { path: n % 2 ? 'a.txt' : './a.txt' }) : reply().text('done');
  });
  const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, browser: null, afterTurn: () => undefined });
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  const outcome = await runtime.sendMessage(conv.id, 'look at a.txt', { provider: provider(), interactive: false });
  expect(outcome.status, outcome.error).toBe('finished');
  expect(steps).toHaveLength(4);

  // Step 1's call ran before any hook was configured; step 2's met the first hook, step 3's the edited one.
  expect(readFileSync(log, 'utf8')).toBe('pre\npre2\n');
  const [one, two, three, four] = steps.map(systemOf);
  // The definitions listed: none before the file, then the file as written, then as edited.
  expect(one).not.toContain('helper');
  expect(two).not.toContain('helper');
  expect(three).toContain('- helper: Helps-first');
  expect(four).toContain('- helper: Helps-again');
  expect(four).not.toContain('Helps-first');
  // The project instructions likewise.
  expect(two).not.toContain('Marker-instructions');
  expect(three).toContain('Marker-instructions-one.');
  expect(four).toContain('Marker-instructions-two.');
  expect(four).not.toContain('Marker-instructions-one.');
});

it('a definition removed, and a hook removed, are gone from the next step', async () => {
  const log = join(work, 'hook.log');
  const agents = join(store.dataDir, 'agents');
  mkdirSync(agents);
  writeFileSync(join(agents, 'helper.md'), '---\nname: helper\ndescription: Helps\n---\nHelp.\n');
  writeFileSync(join(agents, 'other.md'), '---\nname: other\ndescription: Also helps\n---\nHelp too.\n');
  settings({ hooks: { PreToolUse: [{ matcher: 'stat', hooks: [{ type: 'command', command: `echo pre >> ${JSON.stringify(log)}` }] }] } });
  const steps: RecordedRequest[] = [];
  server.setFallback((req) => {
    steps.push(req);
    if (steps.length === 2) {
      writeFileSync(join(agents, 'helper.md'), 'Rewritten without front matter.\n');
      unlinkSync(join(agents, 'other.md'));
      settings({});
    }
    return steps.length <= 2 ? reply().tool('stat', { path: steps.length % 2 ? 'a.txt' : './a.txt' }) : reply().text('done');
  });
  const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, browser: null, afterTurn: () => undefined });
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  const outcome = await runtime.sendMessage(conv.id, 'look at a.txt', { provider: provider(), interactive: false });
  expect(outcome.status, outcome.error).toBe('finished');
  expect(steps).toHaveLength(3);
  // The hook ran for step 1's call only.
  expect(readFileSync(log, 'utf8')).toBe('pre\n');
  const [one, two, three] = steps.map(systemOf);
  expect(one).toContain('- helper: Helps');
  expect(two).toContain('- other: Also helps');
  // Without front matter the file's name is its type and its first line its description; the removed one is gone.
  expect(three).not.toContain('- helper: Helps');
  expect(three).toContain('- helper: Rewritten without front matter.');
  expect(three).not.toContain('- other:');
});

it('a lower compaction threshold saved in Settings while a run goes on compacts before its next step', async () => {
  settings({});
  const steps: RecordedRequest[] = [];
  let summaries = 0;
  server.setFallback((req) => {
    if (isSummary(req)) {
      summaries++;
      return reply().text('SUMMARY: read a.txt a few times.');
    }
    steps.push(req);
    // While step 2 is asked for, Settings → Context goes from 80 % to 10 %.
    if (steps.length === 2) settings({ compactAtPercent: 10 });
    return steps.length <= 3 ? reply().tool('stat', { path: steps.length % 2 ? 'a.txt' : './a.txt' }) : reply().text('done');
  });
  const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, browser: null, afterTurn: () => undefined, contextWindow: 20_000 });
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  // ≈ 3,000 tokens: under 80 % of the window (16,000), over 10 % (2,000).
  const outcome = await runtime.sendMessage(conv.id, `look at a.txt. ${'context '.repeat(1500)}`, { provider: provider(), interactive: false });
  expect(outcome.status, outcome.error).toBe('finished');
  // Steps 1 and 2 were asked for at 80 %: no summary before step 3's request; then one.
  expect(summaries).toBe(1);
  const order = server.requests.map((r) => (isSummary(r) ? 'summary' : 'step'));
  expect(order.slice(0, 3)).toEqual(['step', 'step', 'summary']);
});

it('an agent profile assigned from another connection while a run goes on narrows its next step (fifth round: reads shared within a step)', async () => {
  // What the CLI (`deskhand profiles …`) does: another connection to the same data folder.
  const cli = new Store(store.dataDir);
  try {
    new ProfileStore(cli).put({ name: 'narrow', systemPrompt: 'Marker-profile-instructions.', deniedTools: ['read_file'] });
    const steps: RecordedRequest[] = [];
    let conversationId = '';
    server.setFallback((req) => {
      steps.push(req);
      if (steps.length === 2) new ProfileStore(cli).assign(conversationId, 'narrow');
      return steps.length <= 2 ? reply().tool('stat', { path: steps.length % 2 ? 'a.txt' : './a.txt' }) : reply().text('done');
    });
    const runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, browser: null, afterTurn: () => undefined });
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    conversationId = conv.id;
    const outcome = await runtime.sendMessage(conv.id, 'look at a.txt', { provider: provider(), interactive: false });
    expect(outcome.status, outcome.error).toBe('finished');
    expect(steps).toHaveLength(3);
    const tools = steps.map((req) => (req.protocol === 'openai' ? (req.body.tools ?? []).map((t) => (t as { function: { name: string } }).function.name) : []));
    expect(tools[0]).toContain('read_file');
    expect(tools[1]).toContain('read_file');
    expect(tools[2]).not.toContain('read_file');
    expect(tools[2]).toContain('stat');
    const [one, two, three] = steps.map(systemOf);
    expect(one).not.toContain('Marker-profile-instructions.');
    expect(two).not.toContain('Marker-profile-instructions.');
    expect(three).toContain('Marker-profile-instructions.');
  } finally {
    cli.close();
  }
});
