/**
 * The one redactor at the wire (issue 43), proved by a canary in every source that can reach a model request, on both
 * wires (OpenAI chat completions and Anthropic Messages, through the real AI SDK providers and the scripted model
 * server): the workspace root's AGENTS.md, a nested folder's, the personal file, recalled memory, the scratchpad, the
 * pinned plan, the goal, an MCP tool's description, its nested schema descriptions and enum values, a loaded skill's
 * body, a tool result, a text attachment, a composition review waiting in the conversation (the viewer's comment, in
 * review-message.ts's format) and the message itself.
 *
 * Each source holds its own canary value, planted while the redactor did not know it (a vault secret saved after the
 * memory was written, a credential learned from a file later: the per-source checks of that moment let it through),
 * then the redactor learns it under the source's name. No request may hold any canary in any form, and — the positive
 * control — every request that carried the source holds its placeholder `[redacted:CANARY_<SOURCE>]` where the
 * source's text was: the source did reach the request, and the wire redacted it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { PINNED_PLAN_SLOT } from '../../src/main/runtime/decision/plan-mode';
import type { ProviderConfig } from '../../src/main/services/providers/providers';
import type { McpServerConfig, McpService, McpToolInfo } from '../../src/main/services/mcp';
import { createMcpTool } from '../../src/main/tools/extensions/mcp-tools';
import { reviewMessage } from '../../src/main/host/assembly/review-message';
import { makeRuntime } from '../extensions/helpers';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let model: ModelServer;
let runtime: AppRuntime | null = null;
beforeEach(async () => {
  model = await startModelServer();
  model.setFallback(() => reply().text('ok'));
});
afterEach(async () => {
  await runtime?.mcp.close();
  runtime?.store.close();
  runtime = null;
  await model.close();
});

const SOURCES = ['ROOT', 'NESTED', 'PERSONAL', 'MEMORY', 'SCRATCHPAD', 'PLAN', 'GOAL', 'MCP_DESC', 'MCP_PARAM', 'MCP_ENUM', 'SKILL', 'FILE', 'ATTACHMENT', 'MESSAGE', 'REVIEW'] as const;
type Source = (typeof SOURCES)[number];

/** A fresh canary per source: random, so only a leak can put it in a request. */
function canaries(): Record<Source, string> {
  const tag = Math.random().toString(36).slice(2, 8);
  return Object.fromEntries(SOURCES.map((s) => [s, `Cnry${s.replace(/_/g, '')}${tag}Qz7`])) as Record<Source, string>;
}

const providerOf = (wire: 'openai' | 'anthropic', m: ModelServer): ProviderConfig =>
  wire === 'openai' ? { provider: 'openai', model: 'gpt-test', baseURL: m.baseURL, apiKey: 'sk-test' } : { provider: 'anthropic', model: 'claude-test', baseURL: m.baseURL, apiKey: 'sk-ant-test' };

/** An MCP service that only has to exist: the tool's definition is what is tested (its list counts as seen). */
const quietMcp = { toolsUnseen: () => false, callTool: async () => ({ content: [{ type: 'text', text: 'fine' }], isError: false }) } as unknown as McpService;

describe.each(['openai', 'anthropic'] as const)('no request holds a canary (%s wire)', (wire) => {
  it('every source reaches the request as its placeholder, never as its value', async () => {
    const c = canaries();
    const dataDir = tempDir('deskhand-canary-data-');
    const work = tempDir('deskhand-canary-work-');
    const nested = join(work, 'pkg', 'api');
    mkdirSync(nested, { recursive: true });
    // Instruction files at every level: workspace root, a nested folder down to the current directory, the personal file.
    writeFileSync(join(work, 'AGENTS.md'), `Root rule: the staging box answers to ${c.ROOT}.\n`);
    writeFileSync(join(work, 'pkg', 'AGENTS.md'), `Package rule: sign with ${c.NESTED}.\n`);
    writeFileSync(join(dataDir, 'AGENTS.md'), `Personal rule: my badge is ${c.PERSONAL}.\n`);
    // A skill of the person's, and a file the model reads.
    mkdirSync(join(dataDir, 'skills', 'deploy'), { recursive: true });
    writeFileSync(join(dataDir, 'skills', 'deploy', 'SKILL.md'), `---\nname: deploy\ndescription: How to deploy\n---\n# Deploy\nLog in with ${c.SKILL} first.\n`);
    writeFileSync(join(work, 'notes.txt'), `the runner uses ${c.FILE}\n`);

    const redactor = new SecretRedactor({ env: {} });
    runtime = makeRuntime(dataDir, { redactor });
    const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
    runtime.setFamilies(conv.id, ['memory', 'mcp'], true);
    // The current directory is the nested folder; the plan the person approved is pinned.
    const state = JSON.parse(runtime.store.getConversation(conv.id)!.state || '{}') as Record<string, unknown>;
    runtime.store.updateConversation(conv.id, {
      state: JSON.stringify({ ...state, cwd: nested, slots: { ...((state.slots as object) ?? {}), [PINNED_PLAN_SLOT]: { planFile: join(work, 'PLAN.md'), text: `Step 1: rotate ${c.PLAN}.`, approvedAt: 1 } } }),
    });
    runtime.memory.add({ scope: 'user', topic: 'deploy credentials', body: `The deploy password is ${c.MEMORY}.`, quote: null }, { folder: work, actor: 'person (test)' });
    runtime.memory.updateScratchpad(work, () => `Remember ${c.SCRATCHPAD} for the deploy.`, { tainted: false, replaces: true });
    runtime.goals.create(conv.id, { objective: `Deploy with ${c.GOAL}`, criteria: ['deploy is green'], budget: { turns: 5 } });
    // An MCP server's tool whose description, nested parameter description and enum carry canaries.
    const config = { name: 'ops', transport: 'stdio', command: 'true', args: [], tier: 'read-only' } as unknown as McpServerConfig;
    const info: McpToolInfo = {
      name: 'status',
      description: `Checks the deploy with ${c.MCP_DESC}.`,
      inputSchema: {
        type: 'object',
        properties: {
          target: { type: 'object', properties: { region: { type: 'string', description: `Region; the key is ${c.MCP_PARAM}.`, enum: ['eu', c.MCP_ENUM] } } },
        },
      },
    };
    runtime.registry.add([createMcpTool(quietMcp, config, info, false)]);
    // A comment the person left in the composition viewer, waiting in the conversation for the next turn.
    runtime.store.addMessage(conv.id, null, 'user', reviewMessage({ composition: 'cmp_canary', title: 'Deploy deck', version: 1, action: 'comment', text: `Use ${c.REVIEW} on slide 2.` }));

    // The redactor learns every canary only now: each was planted past the per-source checks of its moment.
    for (const s of SOURCES) redactor.addSecret(`CANARY_${s}`, c[s]);

    model.enqueue(reply().tool('load_skill', { name: 'deploy' }), reply().tool('read_file', { path: join(work, 'notes.txt') }), reply().text('done'));
    const before = model.requests.length;
    const out = await runtime.sendMessage(conv.id, `Deploy now. Why does the deploy need ${c.MESSAGE}?`, {
      provider: providerOf(wire, model),
      interactive: false,
      attachments: [{ name: 'creds.txt', mediaType: 'text/plain', data: Buffer.from(`attached: ${c.ATTACHMENT}\n`).toString('base64') }],
    });
    expect(out.status, out.error).toBe('finished');
    const sent = model.requests.slice(before).map((r) => JSON.stringify(r.body));
    expect(sent.length).toBe(3);
    const all = sent.join('\n');
    for (const s of SOURCES) {
      const v = c[s];
      for (const form of [v, Buffer.from(v).toString('base64').slice(0, 16), Buffer.from(v).toString('hex'), [...v].reverse().join('')]) expect(all, `${s} leaked`).not.toContain(form);
    }
    // Positive control: every planted source reached the requests, as its placeholder.
    for (const s of SOURCES) {
      expect(all, `${s} never reached a request`).toContain(`[redacted:CANARY_${s}]`);
    }
    // The tool results (skill body, file) reached the requests after their calls.
    expect(sent[1]).toContain('[redacted:CANARY_SKILL]');
    expect(sent[2]).toContain('[redacted:CANARY_FILE]');
  }, 60_000);
});
