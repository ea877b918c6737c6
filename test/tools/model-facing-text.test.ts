/**
 * The model-facing text of the default tools (issue 48 item 1): short descriptions must still say what a model needs
 * to choose and call each tool right. Read from the first request the scripted model server records for "hello" in a
 * new conversation of the full app runtime, on both wires, so a cut that drops a needed fact fails here by name; the
 * prose cut from descriptions stays reachable through search_tools (a tool's `details`), and a deferred tool of a
 * default family still runs when the model calls it by name.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getEncoding } from 'js-tiktoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';

interface Offered {
  name: string;
  /** The description and every parameter's description, as the model reads them. */
  text: string;
  params: string[];
}

function offered(r: RecordedRequest): Offered[] {
  const tools = (r.body.tools ?? []) as unknown as Record<string, unknown>[];
  return tools.map((t) => {
    const fn = (r.protocol === 'openai' ? t.function : t) as { name: string; description: string; parameters?: unknown; input_schema?: unknown };
    const schema = (fn.parameters ?? fn.input_schema) as { properties?: Record<string, unknown> };
    return { name: fn.name, text: `${fn.description}\n${JSON.stringify(schema)}`, params: Object.keys(schema.properties ?? {}) };
  });
}

/** What each default tool's text must still tell the model (one entry per fact, so a failure names it). */
const FACTS: Record<string, Record<string, RegExp>> = {
  read_file: {
    'lines come numbered': /numbered lines/,
    'a notice says where to continue': /line_offset to continue/,
    'the snapshot is for edit_file': /snapshot[^.]*edit_file/,
    'reading comes before changing': /Required before write_file or edit_file/,
    'a negative offset reads the end': /negative counts from the end/,
  },
  edit_file: {
    'the file is read first': /read with read_file/,
    'old_string must be exact and unique': /Exact text[^"]*must occur once unless replace_all/,
    'new files go through write_file': /create a file use write_file/,
  },
  write_file: {
    'an existing file is read first': /read with read_file/,
    'edit_file for parts': /prefer edit_file/,
    'content is the whole file': /whole new content/,
  },
  grep: { 'regular expressions': /regular expression/, 'the output modes': /files_with_matches[^"]*content[^"]*count_matches/, 'paging': /next page/ },
  find: { 'names, not contents': /not contents: grep/, 'a glob example': /\*\*\/\*\.\{ts,tsx\}/ },
  ls: { 'folders end with /': /folders end with "\/"/ },
  execute_command: {
    'runs in the sandbox': /in the sandbox/,
    'stdin is closed': /Stdin is closed/,
    'servers go to the background': /run_in_background for servers/,
    'network asks': /Allow the network[^"]*Asks the person/,
    'outside the sandbox only after a block': /only after it blocked/,
    'background needs a name': /Needs description/,
  },
  task_output: { 'it does not wait': /does not wait/ },
  manage_todos: { 'the full list each time': /FULL list/, 'one item in progress': /One item in_progress/ },
  ask_user_question: { 'multiple choice': /multiple-choice/, 'not for permission': /Not for permission/, 'Other is added': /Other\\?" \(own words\) is added/ },
  web_search: { 'read a hit with web_fetch': /web_fetch/ },
  web_fetch: { 'main content': /main content/ },
  search_tools: { 'loads from the next step': /next step/, 'shows what descriptions leave out': /leaves out/ },
  get_time: { 'the work budget': /workMinutesLeft/ },
};

const enc = getEncoding('o200k_base');
const tokens = (text: string): number => enc.encode(text).length;

let server: ModelServer;
let store: Store;
let runtime: ReturnType<typeof createAppRuntime>;
let work: string;
const WIRES = ['openai', 'anthropic', 'openai-responses'] as const;
const first: Partial<Record<(typeof WIRES)[number], RecordedRequest>> = {};

beforeAll(async () => {
  server = await startModelServer();
  work = tempDir('deskhand-facing-work-');
  writeFileSync(join(work, 'README.md'), '# a project\n');
  store = new Store(tempDir('deskhand-facing-data-'));
  runtime = createAppRuntime({ store, dataDir: store.dataDir, vault: null, afterTurn: () => undefined });
  for (const wire of WIRES) {
    server.enqueue(reply().text('Hello!'));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    const before = server.requests.length;
    const provider = wire === 'openai-responses' ? ({ provider: 'openai', openaiApi: 'responses' } as const) : { provider: wire };
    const outcome = await runtime.sendMessage(conv.id, 'hello', { provider: { ...provider, model: 'scripted', baseURL: server.baseURL, apiKey: 'sk-test' }, interactive: false });
    expect(outcome.status).toBe('finished');
    first[wire] = server.requests[before]!;
  }
});

afterAll(async () => {
  await runtime.tasks.shutdown();
  store.close();
  await server.close();
});

describe('the first request of a new conversation', () => {
  for (const wire of WIRES) {
    it(`${wire}: every default tool's text says what the model needs`, () => {
      const tools = offered(first[wire]!);
      const missing: string[] = [];
      for (const [name, facts] of Object.entries(FACTS)) {
        const tool = tools.find((t) => t.name === name);
        if (!tool) {
          missing.push(`${name}: not offered`);
          continue;
        }
        for (const [fact, re] of Object.entries(facts)) if (!re.test(tool.text)) missing.push(`${name}: ${fact}`);
      }
      expect(missing).toEqual([]);
      // Every offered tool is covered by the table (a new default tool gets its facts here).
      expect(tools.map((t) => t.name).filter((n) => !(n in FACTS))).toEqual([]);
    });

    it(`${wire}: the tool schemas fit in 4,000 o200k tokens and the whole request in 6,000`, () => {
      const r = first[wire]!;
      expect(tokens(JSON.stringify(r.body.tools ?? []))).toBeLessThanOrEqual(4000);
      expect(tokens(JSON.stringify(r.body))).toBeLessThanOrEqual(6000);
    });
  }

  it('lists the deferred tools of the default families in the system prompt, by name', () => {
    const r = first.openai! as Extract<RecordedRequest, { protocol: 'openai' }>;
    const system = r.body.messages.filter((m) => m.role === 'system').map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    for (const name of ['mkdir', 'cp', 'mv', 'rm', 'stat', 'cd', 'pwd', 'list_background_jobs', 'wait_tasks', 'cancel_background_jobs', 'context_info', 'list_todos', 'update_work_state', 'ask_file_picker']) {
      expect(system, name).toMatch(new RegExp(`Tools: [^\\n]*\\b${name}\\b`));
      expect(offered(r).map((t) => t.name)).not.toContain(name);
    }
    expect(system).toMatch(/Paths: absolute, relative to the current directory, or starting with ~/);
  });
});

describe('what the short descriptions leave out', () => {
  it('search_tools returns a tool\'s details (what its description leaves out)', async () => {
    server.enqueue(reply().tool('search_tools', { query: 'grep' }), reply().text('ok'));
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    const before = server.requests.length;
    await runtime.sendMessage(conv.id, 'how does grep page?', { provider: { provider: 'openai', model: 'scripted', baseURL: server.baseURL, apiKey: 'sk-test' }, interactive: false });
    const result = JSON.stringify((server.requests[before + 1]!.body as { messages: unknown[] }).messages.at(-1));
    expect(result).toMatch(/grep: Search file contents/);
    expect(result).toMatch(/head_limit results after offset/);
    expect(result).toMatch(/system grep answers/);
  });

  it('a deferred tool of a default family runs when called by name, and its family is offered from then on', async () => {
    server.enqueue(reply().tool('mkdir', { path: 'made/here' }), reply().text('done'));
    const conv = runtime.createConversation({ folder: work, policy: 'low-risk' });
    const before = server.requests.length;
    const outcome = await runtime.sendMessage(conv.id, 'make a folder', { provider: { provider: 'openai', model: 'scripted', baseURL: server.baseURL, apiKey: 'sk-test' }, interactive: false });
    expect(outcome.status).toBe('finished');
    expect(existsSync(join(work, 'made', 'here'))).toBe(true);
    const names = offered(server.requests[before + 1]!).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['mkdir', 'cp', 'mv', 'rm', 'stat']));
  });
});
