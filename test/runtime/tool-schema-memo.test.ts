/**
 * The memo of built-in tools' JSON schemas (src/main/runtime/tool-schema-memo.ts; the CLI keeps it per build beside
 * the compile cache, test/cli/compile-cache.test.ts): the registry takes a built-in tool's schema from it and gives it
 * what it converted; tools given as JSON schema and tools of another kind never meet it. The memo is sound only if a
 * built-in tool's schema is a function of the build alone: the tools assembled with this suite's stand-in services
 * and those of a real runtime over a data folder with settings of its own must offer the same schemas.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAppRuntime } from '../../src/main/host/assembly/open-runtime';
import { ToolRegistry } from '../../src/main/runtime/registry';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { useToolSchemaMemo, type ToolSchemaMemo } from '../../src/main/runtime/tool-schema-memo';
import { Store } from '../../src/main/services/store/store';
import { builtinRegistry } from '../support/tools';
import { tempDir } from '../support/tool-context';

afterEach(() => useToolSchemaMemo(null));

const turn = { conversationId: 'c', policy: 'read-only' as const, revealed: [] };

function echo(overrides: Partial<ToolDefinition> = {}): ToolDefinition {
  return defineTool({
    name: 'echo_back',
    description: 'Says the text back.',
    params: () => z.object({ text: z.string().max(5).describe('What to say.') }).strict(),
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: [] },
    execute: async ({ text }: { text: string }) => ({ output: text }),
    ...overrides,
  } as never) as ToolDefinition;
}

/** A memo in a map, logging what the registry asked and gave. */
function mapMemo() {
  const kept = new Map<string, Record<string, unknown>>();
  const log: string[] = [];
  const memo: ToolSchemaMemo = {
    get(tool) {
      log.push(`get ${tool.name}`);
      const s = kept.get(tool.name);
      return s ? structuredClone(s) : undefined;
    },
    put(tool, schema) {
      log.push(`put ${tool.name}`);
      kept.set(tool.name, structuredClone(schema));
    },
  };
  return { memo, kept, log };
}

const offered = (registry: ToolRegistry, name: string) => registry.toolSet(turn).specs.find((s) => s.name === name)!.inputSchema;

describe('the tool schema memo', () => {
  it("a built-in tool's schema converted once is given to the memo; the next registry takes it from there instead of converting", () => {
    const { memo, kept, log } = mapMemo();
    useToolSchemaMemo(memo);
    const first = new ToolRegistry([echo()]);
    const converted = offered(first, 'echo_back');
    expect(converted).toMatchObject({ type: 'object', properties: { text: { type: 'string', maxLength: 5, description: 'What to say.' } }, additionalProperties: false });
    expect(log).toEqual(['get echo_back', 'put echo_back']);
    expect(kept.get('echo_back')).toEqual(converted);

    // What the memo holds is what is offered (a mark no conversion would make), and nothing is converted or kept again.
    kept.get('echo_back')!.description = 'FROM-THE-MEMO';
    const tool = echo();
    const second = new ToolRegistry([tool]);
    expect(offered(second, 'echo_back')).toMatchObject({ description: 'FROM-THE-MEMO' });
    expect(log).toEqual(['get echo_back', 'put echo_back', 'get echo_back']);
    // The params were never built for it: the schema came whole from the memo. Calls still parse with them.
    expect('value' in Object.getOwnPropertyDescriptor(tool, 'params')!).toBe(false);
    expect(second.parseArgs(tool, { text: 'hi' })).toEqual({ text: 'hi' });
    expect(() => second.parseArgs(tool, { text: 'too long' })).toThrow(/Invalid arguments for echo_back/);
  });

  it('tools given as JSON schema and tools of another kind never meet the memo', () => {
    const { memo, log } = mapMemo();
    useToolSchemaMemo(memo);
    const json = { ...echo({ name: 'mcp__srv__echo', kind: 'mcp' }), inputSchema: { type: 'object', properties: { text: { type: 'string' } } } } as ToolDefinition;
    const custom = echo({ name: 'my_echo', kind: 'custom' } as never);
    const registry = new ToolRegistry([json, custom]);
    expect(offered(registry, 'mcp__srv__echo')).toMatchObject({ properties: { text: { type: 'string' } } });
    expect(offered(registry, 'my_echo')).toMatchObject({ properties: { text: { maxLength: 5 } } });
    expect(log).toEqual([]);
  });

  it("every built-in tool's schema is a function of the build alone: stand-in services and a real runtime with its own settings offer the same", async () => {
    const stand = new Map(
      builtinRegistry({ dataDir: tempDir('deskhand-memo-a-') })
        .modelTools()
        .map((t) => [t.name, t.inputSchema]),
    );
    const dataDir = tempDir('deskhand-memo-b-');
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ compactAt: 55, defaultPolicy: 'high-risk' }));
    const store = new Store(dataDir);
    const runtime = createAppRuntime({ store, dataDir, vault: null });
    try {
      const builtin = new Set(runtime.registry.all().filter((t) => (t.kind ?? 'builtin') === 'builtin' && !t.inputSchema).map((t) => t.name));
      const real = runtime.registry.modelTools().filter((t) => builtin.has(t.name));
      expect(real.length).toBeGreaterThanOrEqual(80);
      const differ = real.filter((t) => stand.has(t.name) && JSON.stringify(t.inputSchema) !== JSON.stringify(stand.get(t.name))).map((t) => t.name);
      expect(differ).toEqual([]);
      expect(real.filter((t) => stand.has(t.name)).length).toBeGreaterThanOrEqual(80);
    } finally {
      await runtime.tasks.shutdown();
      store.close();
    }
  });
});
