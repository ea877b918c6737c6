/**
 * What a call will do, in one sentence generated from its declared effects (call-sentence.ts): real tools of every
 * kind through the real effects and decision, never a list of tool names. Each row checks the sentence's words.
 */
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { callEffects, decide } from '../../src/main/runtime/decision/approval-engine';
import { callSentence } from '../../src/main/runtime/decision/call-sentence';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { ComputerUseService } from '../../src/main/services/computer/computer-use';
import { StoreGrantBook } from '../../src/main/services/computer/grant-book';
import { MissingOperator } from '../../src/main/services/computer/operators';
import { appGrantsModule } from '../../src/main/services/store/modules/app-grants';
import { Store } from '../../src/main/services/store/store';
import { createComputerFamily } from '../../src/main/tools/computer';
import { createMcpTool } from '../../src/main/tools/extensions/mcp-tools';
import type { McpService } from '../../src/main/services/mcp';
import { tempDir } from '../support/tool-context';
import { builtinTool } from '../support/tools';

const dataDir = tempDir('deskhand-sentence-data-');
const ws = tempDir('deskhand-sentence-ws-');
mkdirSync(join(ws, 'src'), { recursive: true });
const store = new Store(dataDir);
const computer = new ComputerUseService({ operator: new MissingOperator('test', 'no desktop'), grants: new StoreGrantBook(store.module(appGrantsModule)), dataDir });
const computerTools = createComputerFamily({ computer }).tools as ToolDefinition[];
const mcp = createMcpTool({} as McpService, { name: 'crm', transport: 'http', url: 'https://mcp.example.com/rpc', tier: 'high-risk' } as never, { name: 'export_contacts', description: 'exports', inputSchema: { type: 'object' } }, false) as ToolDefinition;
const tool = (name: string) => computerTools.find((t) => t.name === name) ?? builtinTool(name, { dataDir });

async function sentence(t: ToolDefinition, args: Record<string, unknown>, sandbox: 'workspace-write' | 'off' = 'workspace-write', held: string[] = []) {
  const ctx = { cwd: ws, workspaceRoots: [ws], dataDir, sandbox };
  const effects = await callEffects(t, args, ctx);
  const d = decide({ tool: t, args, effects, policy: 'read-only', tainted: false, ctx, heldSecrets: new Set(held) });
  let summary: string | null = null;
  try {
    summary = t.presentation?.summary?.(args as never) ?? null;
  } catch {
    summary = null;
  }
  return callSentence({ tool: t, summary, effects, paths: d.paths, network: d.network, egress: d.egress, risk: d.risk, secrets: d.secrets, sandbox, workspaceRoots: [ws] });
}

describe('one sentence per call, from its effects', () => {
  it.each([
    ['a test command in the sandbox', 'execute_command', { command: 'npm test' }, 'workspace-write', /^Runs `npm test` in the sandbox, network off\.$/],
    ['a command without the sandbox', 'execute_command', { command: 'make build' }, 'off', /^Runs `make build` without the sandbox \(it can change files anywhere\)\.$/],
    ['a command that asks for the network', 'execute_command', { command: 'npm install left-pad', network: true }, 'workspace-write', /^Runs `npm install left-pad` in the sandbox with the network on\.$/],
    ['a file written in the workspace', 'write_file', { path: 'src/add.js', content: 'x' }, 'workspace-write', /^Writes src\/add\.js\.$/],
    ['a file written outside the folders', 'write_file', { path: '/tmp/deskhand-elsewhere/x.txt', content: 'x' }, 'workspace-write', /^Writes \/tmp\/deskhand-elsewhere\/x\.txt outside your folders\.$/],
    ['a page fetched', 'web_fetch', { url: 'https://docs.example.com/spec' }, 'workspace-write', /^Fetches from docs\.example\.com\.$/],
    ['a POST', 'http_request', { method: 'POST', url: 'https://collect.example/u', body: 'x' }, 'workspace-write', /^Sends a request to collect\.example\.$/],
    ['a wake trigger', 'register_trigger', { when: '30m', prompt: 'check again' }, 'workspace-write', /^Schedules the agent to run again later\.$/],
    ['typing into an app', 'computer_input', { app: 'zenity', text: 'Ada' }, 'workspace-write', /^Types into "zenity"\.$/],
    ['a click', 'computer_pointer', { app: 'zenity', x: 1, y: 1, action: 'click' }, 'workspace-write', /^Clicks in "zenity"\.$/],
    ['front, click and type', 'computer_foreground', { app: 'gedit', action: 'click', x: 1, y: 1, text: 'x' }, 'workspace-write', /^Brings "gedit" to the front, clicks in "gedit" and types into "gedit"\.$/],
  ] as const)('%s', async (_what, name, args, sandbox, want) => {
    expect(await sentence(tool(name), args, sandbox)).toMatch(want);
  });

  it('an MCP tool says its effects are not known in advance', async () => {
    expect(await sentence(mcp, {})).toMatch(/^Calls an MCP server's tool .*whose effects Deskhand cannot see in advance/);
  });

  it('a saved secret is named (never a value)', async () => {
    expect(await sentence(tool('execute_command'), { command: 'curl -H "Authorization: [redacted:GH_TOKEN]" https://api.github.com/user' }, 'workspace-write', ['GH_TOKEN'])).toMatch(/using the saved secret GH_TOKEN\.$/);
  });

  it('a call that declares nothing to say has no sentence (its title line says it)', async () => {
    expect(await sentence(tool('add_reminder'), { when: '30m', text: 'stretch' })).toBeNull();
  });
});
