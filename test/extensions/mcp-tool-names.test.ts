/**
 * MCP tool names as the model is offered them: `mcp__<server>__<tool>` within the 64 characters of
 * ^[a-zA-Z0-9_-]{1,64}$ that Anthropic and OpenAI take (a longer name gets the whole request refused), distinct when cut.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../../src/main/runtime/registry';
import { defineTool } from '../../src/main/runtime/tool';
import type { McpService, McpServerConfig, McpToolInfo, ToolsListener } from '../../src/main/services/mcp/index';
import { mcpToolName, registerMcpTools } from '../../src/main/tools/extensions/mcp-tools';
import { makeContext, tempDir } from '../support/tool-context';
import { TOOL_NAME } from '../support/provider-validation';

const forty = 'a-very-long-server-name-of-forty-chars-x';

describe('mcpToolName', () => {
  it.each([
    ['everything', 'echo', 'mcp__everything__echo'],
    ['fs', 'read.text/file', 'mcp__fs__read_text_file'],
    ['gh', 'créer issue', 'mcp__gh__cr_er_issue'],
    [forty, 'echo', `mcp__${forty}__echo`],
  ])('%s / %s → %s (kept whole when it fits)', (server, tool, name) => {
    expect(mcpToolName(server, tool)).toBe(name);
  });

  it.each([
    [forty, 'longRunningOperation'],
    [forty, 'x'.repeat(200)],
    ['s', 'y'.repeat(59)],
    [forty, 'get-resource-reference-with-a-long-tail'],
  ])('%s / %s: cut to 64 characters the providers take, ending in a hash of the whole name', (server, tool) => {
    const name = mcpToolName(server, tool);
    expect(name).toHaveLength(64);
    expect(name).toMatch(TOOL_NAME);
    expect(name).toMatch(new RegExp(`^mcp__${server}__[A-Za-z0-9_-]+_[0-9a-f]{8}$`));
    expect(mcpToolName(server, tool)).toBe(name); // stable across connections
  });

  it('keeps two long names of one server apart when their first 55 characters agree', () => {
    const a = mcpToolName(forty, 'get-resource-reference-alpha');
    const b = mcpToolName(forty, 'get-resource-reference-beta');
    expect(a.slice(0, 55)).toBe(b.slice(0, 55));
    expect(a).not.toBe(b);
    // The same tool name on another server stays apart too.
    expect(mcpToolName(forty, 'get-resource-reference-alpha')).not.toBe(mcpToolName(`${forty.slice(0, 39)}y`, 'get-resource-reference-alpha'));
  });

  it('the registry takes names of 64 characters and refuses longer ones', () => {
    const tool = (name: string) =>
      defineTool({ name, description: 'A tool of a test.', params: z.object({}).strict(), risk: 'read-only', disclosure: 'public', execute: async () => ({ output: '' }) });
    expect(() => new ToolRegistry([tool(`t${'x'.repeat(63)}`)])).not.toThrow();
    expect(() => new ToolRegistry([tool(`t${'x'.repeat(64)}`)])).toThrow(/is not a valid tool name/);
  });

  it('two tools whose names differ only in replaced characters both stay, each calling its own tool; one listed twice is offered once', async () => {
    let emit: ToolsListener = () => undefined;
    const called: string[] = [];
    const mcp = {
      onToolsChanged: (l: ToolsListener) => ((emit = l), () => undefined),
      callTool: async (_server: string, tool: string) => (called.push(tool), { content: [{ type: 'text', text: `ran ${tool}` }], isError: false }),
    } as unknown as McpService;
    const registry = new ToolRegistry([]);
    registerMcpTools(mcp, registry);
    const info = (name: string): McpToolInfo => ({ name, description: `the ${name} tool`, inputSchema: { type: 'object' } });
    emit({ name: 'fs', transport: 'stdio', command: 'x', args: [] } as unknown as McpServerConfig, [info('read.file'), info('read_file'), info('read.file')]);
    const names = registry.all().map((t) => t.name).filter((n) => n.startsWith('mcp__fs__')).sort();
    expect(names).toHaveLength(2);
    expect(names[0]).toBe('mcp__fs__read_file');
    expect(names[1]).toMatch(/^mcp__fs__read_file_[0-9a-f]{8}$/);
    for (const n of names) expect(n).toMatch(TOOL_NAME);
    const ctx = makeContext(tempDir());
    for (const n of names) await registry.lookup(n)!.execute({}, ctx);
    expect(called.sort()).toEqual(['read.file', 'read_file']);
  });
});
