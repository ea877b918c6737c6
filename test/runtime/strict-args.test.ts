/**
 * Strict arguments (issue 31): every tool — built-in (zod), MCP and custom (JSON Schema) — refuses an argument its
 * schema does not name, with the valid names and the closest one, through the registry's one parse path; the
 * schemas the model is sent say additionalProperties: false. End to end: the model's next request holds the error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { ToolRegistry } from '../../src/main/runtime/registry';
import { closestName } from '../../src/main/runtime/loop/strict-args';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { reply, startModelServer, type ModelServer, type OpenAIChatRequest } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { builtinTools } from '../support/tools';

const registry = new ToolRegistry(builtinTools({ dataDir: tempDir('deskhand-data-') }));
const mcpTool = {
  name: 'mcp__weather__forecast',
  kind: 'mcp',
  description: 'Forecast.',
  params: z.any(),
  inputSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, units: { type: 'object', properties: { temperature: { type: 'string' } } } }, required: ['city'] },
  risk: 'read-only',
  disclosure: 'public',
  execute: async () => ({ output: 'sunny' }),
} as unknown as ToolDefinition;
const customTool = {
  name: 'note_args',
  kind: 'custom',
  description: 'Custom.',
  params: z.any(),
  inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  risk: 'read-only',
  disclosure: 'public',
  execute: async () => ({ output: 'ok' }),
} as unknown as ToolDefinition;
const openTool = {
  name: 'mcp__free__anything',
  kind: 'mcp',
  description: 'Takes any object.',
  params: z.any(),
  inputSchema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
  risk: 'read-only',
  disclosure: 'public',
  execute: async () => ({ output: 'ok' }),
} as unknown as ToolDefinition;
registry.add([mcpTool, customTool, openTool]);

const parseError = (tool: string, args: unknown): string => {
  try {
    registry.parseArgs(registry.resolve(tool), args);
    return '(accepted)';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('strict arguments, one parse path for every tool', () => {
  // [tool, arguments, what the error must say]
  const table: [string, Record<string, unknown>, RegExp][] = [
    ['read_file', { path: 'a.txt', sinceByte: 6 }, /unknown argument "sinceByte"\. Did you mean "since_byte"\? Valid: path, line_offset, n_lines, since_byte, inode/],
    ['read_file', { path: 'a.txt', SINCE_BYTE: 6 }, /Did you mean "since_byte"/],
    ['read_file', { path: 'a.txt', 'since-byte': 6 }, /Did you mean "since_byte"/],
    ['read_file', { path: 'a.txt', lineOffset: 3 }, /Did you mean "line_offset"/],
    ['read_file', { path: 'a.txt', limit: 3 }, /unknown argument "limit"\. Valid: path/],
    ['read_file', { file_path: 'a.txt' }, /unknown argument "file_path"/],
    ['grep', { pattern: 'x', ouput_mode: 'content' }, /Did you mean "output_mode"/],
    ['grep', { pattern: 'x', case_insensitive: true }, /unknown argument "case_insensitive"\. Valid: pattern, path, glob/],
    ['execute_command', { command: 'ls', run_in_backgroud: true }, /Did you mean "run_in_background"/],
    ['execute_command', { command: 'ls', timeout_ms: 5 }, /Did you mean "timeout"/],
    ['write_file', { path: 'a', content: 'x', overwrite: true }, /unknown argument "overwrite"/],
    ['edit_file', { path: 'a', old_string: 'x', new_string: 'y', replaceAll: true }, /Did you mean "replace_all"/],
    ['ask_user_question', { questions: [{ question: 'Which?', options: [{ label: 'a', description: 'b' }, { label: 'c', description: 'd' }], multiSelect: true }] }, /unknown argument "multiSelect" in questions\.0\. Did you mean "multi_select"\?/],
    ['manage_todos', { todoz: [] }, /unknown argument "todoz"/],
    ['mcp__weather__forecast', { city: 'Oslo', day: 3 }, /unknown argument "day"\. Did you mean "days"\? Valid: city, days, units/],
    ['mcp__weather__forecast', { city: 'Oslo', units: { temprature: 'C' } }, /unknown argument "temprature" in units\. Did you mean "temperature"\?/],
    ['note_args', { mesage: 'hi' }, /Did you mean "message"/],
  ];
  it.each(table)('%s %j is refused naming the valid arguments', (tool, args, expected) => {
    const message = parseError(tool, args);
    expect(message).toMatch(expected);
    expect(message).toMatch(new RegExp(`^Invalid arguments for ${tool}:`));
    expect(message).toContain(`call ${tool} again`);
  });

  it('accepts the valid spellings, and arguments a schema leaves open', () => {
    expect(parseError('read_file', { path: 'a.txt', since_byte: 6 })).toBe('(accepted)');
    expect(parseError('mcp__weather__forecast', { city: 'Oslo', days: 2, units: { temperature: 'C' } })).toBe('(accepted)');
    expect(parseError('note_args', { message: 'hi' })).toBe('(accepted)');
    expect(parseError('mcp__free__anything', { a: 'x', anything: 1 })).toBe('(accepted)');
  });

  it('sends every object schema with additionalProperties: false (unless the tool says otherwise), without safe-integer bounds', () => {
    const specs = registry.modelTools();
    const loose: string[] = [];
    const visit = (node: unknown, where: string): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) return node.forEach((n, i) => visit(n, `${where}[${i}]`));
      const o = node as Record<string, unknown>;
      if (o.type === 'object' && o.properties && o.additionalProperties === undefined) loose.push(where);
      for (const [k, v] of Object.entries(o)) visit(v, `${where}.${k}`);
    };
    for (const s of specs) visit(s.inputSchema, s.name);
    expect(loose).toEqual([]);
    expect(specs.find((s) => s.name === 'read_file')!.inputSchema.additionalProperties).toBe(false);
    expect(specs.find((s) => s.name === 'mcp__free__anything')!.inputSchema.additionalProperties).toBe(true);
    expect(JSON.stringify(specs)).not.toContain('9007199254740991');
  });

  it('finds the closest name by letters first, then by edits, and none when nothing is close', () => {
    expect(closestName('sinceByte', ['path', 'since_byte'])).toBe('since_byte');
    expect(closestName('pth', ['path', 'since_byte'])).toBe('path');
    expect(closestName('colour', ['path', 'since_byte'])).toBeNull();
  });
});

describe('strict arguments end to end', () => {
  let server: ModelServer | undefined;
  let rt: AppRuntime | undefined;
  afterEach(async () => {
    await rt?.shutdownServices();
    rt?.store.close();
    await server?.close();
  });

  it('read_file {path, sinceByte: 6} reaches the model as an error naming since_byte, and the corrected call reads from byte 6', async () => {
    server = await startModelServer();
    const work = tempDir('deskhand-work-');
    writeFileSync(join(work, 'log.txt'), 'HEADERtail-of-the-log\n');
    rt = createAppRuntime({ dataDir: tempDir('deskhand-data-'), vault: null, retryBaseMs: 10, afterTurn: () => undefined, browser: null });
    const conv = rt.createConversation({ folder: work, policy: 'read-only' });
    server.enqueue(reply().tool('read_file', { path: 'log.txt', sinceByte: 6 }), reply().tool('read_file', { path: 'log.txt', since_byte: 6 }), reply().text('done'));
    const outcome = await rt.sendMessage(conv.id, 'read the log from byte 6', { provider: { provider: 'openai', model: 'm', baseURL: server.baseURL, apiKey: 'sk' }, interactive: false });
    expect(outcome.status).toBe('finished');
    const toolText = (i: number) => (server!.requests[i]!.body as OpenAIChatRequest).messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(toolText(1)[0]).toMatch(/unknown argument "sinceByte"\. Did you mean "since_byte"\?/);
    expect(toolText(1)[0]).not.toContain('HEADER');
    expect(toolText(2).at(-1)).toContain('tail-of-the-log');
    expect(toolText(2).at(-1)).not.toContain('HEADER');
    const sent = (server.requests[0]!.body as OpenAIChatRequest).tools!.find((t) => t.function.name === 'read_file')!;
    expect(sent.function.parameters.additionalProperties).toBe(false);
  }, 60_000);
});

// A tool with a nested zod object that is not strict: its inner unknown keys are refused too (zod would strip them).
describe('nested objects of zod tools', () => {
  it('refuses an unknown key inside a non-strict nested object', () => {
    const r = new ToolRegistry([
      defineTool({
        name: 'nested',
        description: 'n',
        params: z.object({ opts: z.object({ depth: z.number() }) }),
        risk: 'read-only',
        disclosure: 'internal',
        execute: async () => ({ output: '' }),
      }) as unknown as ToolDefinition,
    ]);
    expect(() => r.parseArgs(r.resolve('nested'), { opts: { dept: 1 } })).toThrow(/unknown argument "dept" in opts\. Did you mean "depth"\?/);
    expect(() => r.parseArgs(r.resolve('nested'), { opts: { depth: 1 } })).not.toThrow();
  });
});
