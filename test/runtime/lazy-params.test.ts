/**
 * Tool params built on first use (issue 54, a run's first request): a run assembles every family's ≈ 100 tools and
 * offers ≈ 15, so a tool's zod schema is built when it is offered or called, never at import or assembly. defineTool
 * turns `params` given as a function into an accessor that replaces itself with the schema on first read: an
 * accessor means not built yet, a plain value means built. No timing here; the figures are bench/schedule.bench.ts's.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { ToolRegistry } from '../../src/main/runtime/registry';
import { builtinRegistry, catalogTools } from '../support/tools';
import { tempDir } from '../support/tool-context';

const built = (t: ToolDefinition): boolean => 'value' in Object.getOwnPropertyDescriptor(t, 'params')!;

describe('tool params built on first use', () => {
  it('a function given as params is called on the first read only: not by defineTool, not by the registry adding the tool', () => {
    let calls = 0;
    const echo = defineTool({
      name: 'echo_back',
      description: 'x',
      params: () => {
        calls++;
        return z.object({ text: z.string().max(5) }).strict();
      },
      risk: 'read-only',
      disclosure: 'private',
      facts: { reaches: [] },
      execute: async ({ text }) => ({ output: text }),
    }) as ToolDefinition;
    const registry = new ToolRegistry([]);
    registry.add([echo]);
    expect([calls, built(echo)]).toEqual([0, false]);
    // Offered: its JSON schema is built from it, once.
    const spec = registry.toolSet({ conversationId: 'c', policy: 'read-only', revealed: [] }).specs.find((s) => s.name === 'echo_back')!;
    expect(spec.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string', maxLength: 5 } }, additionalProperties: false });
    expect([calls, built(echo)]).toEqual([1, true]);
    // Called: the same schema parses, and refuses as before.
    expect(registry.parseArgs(echo, { text: 'hi' })).toEqual({ text: 'hi' });
    expect(() => registry.parseArgs(echo, { text: 'too long' })).toThrow(/Invalid arguments for echo_back:\n- text: /);
    expect(echo.params).toBe(echo.params);
    expect(calls).toBe(1);
  });

  it('a call parses with the tool\'s params though the tool was never offered (built then, once)', () => {
    let calls = 0;
    const t = defineTool({ name: 'count_up', description: 'x', params: () => (calls++, z.object({ n: z.number() })), risk: 'read-only', disclosure: 'private', execute: async () => ({ output: '' }) }) as ToolDefinition;
    const registry = new ToolRegistry([]);
    registry.add([t]);
    expect(() => registry.parseArgs(t, { n: 'one' })).toThrow(/Invalid arguments for count_up:\n- n: /);
    expect(registry.parseArgs(t, { n: 1 })).toEqual({ n: 1 });
    expect(calls).toBe(1);
  });

  it('params given as a schema are that schema (unchanged)', () => {
    const params = z.object({});
    const t = defineTool({ name: 'plain', description: 'x', params, risk: 'read-only', disclosure: 'private', execute: async () => ({ output: '' }) });
    expect(t.params).toBe(params);
  });

  it('assembling every family builds no builtin tool\'s params; a first turn builds only the tools it offers', () => {
    const dataDir = tempDir('deskhand-lazy-params-');
    // Goals: a turn's tool set asks whether one is active (its loop tools are offered only then).
    const registry = builtinRegistry({ dataDir, goals: { active: () => null } });
    const catalog = catalogTools({ dataDir });
    const builtins = catalog.filter((t) => (t.kind ?? 'builtin') === 'builtin' && !t.inputSchema);
    expect(builtins.length).toBeGreaterThan(80);
    // Declared with a schema instead of a function, or read by the assembly: both show here, by name.
    expect(builtins.filter(built).map((t) => `${t.name}: declare params as a function (() => z.object(…)), built on first use`)).toEqual([]);
    const offered = registry.toolSet({ conversationId: 'c', policy: 'low-risk', revealed: [] }).specs.map((s) => s.name);
    expect(offered.length).toBeGreaterThan(5);
    const mine = registry.all();
    expect(mine.filter(built).map((t) => t.name).sort()).toEqual([...offered].sort());
    // And what was offered still parses its calls.
    const readFile = mine.find((t) => t.name === 'read_file')!;
    expect(() => registry.parseArgs(readFile, { path: 7 })).toThrow(/Invalid arguments for read_file/);
  });
});
