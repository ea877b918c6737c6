/**
 * The peer ceiling (runtime/decision/peer-ceiling.ts): every builtin tool × every disclosure tier, against the rule as Spec I
 * states it, spelled out here independently of the source; then the approval engine's door, which refuses a call
 * above the ceiling whatever the policy, a saved rule or the tool's being offered.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { peerCeilingCheck, type PeerCeiling } from '../../src/main/runtime/decision/peer-ceiling';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { PEER_TIERS, type PeerTier } from '../../src/shared/peers';
import { builtinTools } from '../support/tools';
import { createSubagentFamily } from '../../src/main/tools/subagents';
import type { Subagents } from '../../src/main/services/subagents/index';
import { decideWithEveryRule, heldInspectors } from '../support/rules';

const dataDir = mkdtempSync(join(tmpdir(), 'dh-peer-ceiling-'));
const tools = builtinTools({ dataDir });
// The subagent family's definitions (the shared tool set has no subagent service); only their facts are read.
const subagentTools = createSubagentFamily({ subagents: {} as Subagents }).tools;
const ctx = { cwd: '/work/proj', workspaceRoots: ['/work/proj'], dataDir: '/data/deskhand' };

// Spec I, "What leaves the machine" (and ask_peer, "whose whole purpose is to put your model's words in front of
// somebody else's agent"); the bookkeeping tools it names; what reaches secrets, memory and other conversations.
const SENDS = ['browser_act', 'browser_navigate', 'computer_foreground', 'computer_input', 'computer_pointer', 'http_request', 'publish_composition', 'read_pdf', 'web_fetch', 'web_search', 'ask_peer'];
const BOOKKEEPING = ['manage_todos', 'update_work_state', 'manage_scratchpad', 'spawn_subagent'];
const PERSONAL = ['ask_user_secret', 'use_saved_secret', 'list_saved_secrets', 'view_memory', 'manage_memory', 'propose_lesson', 'view_scratchpad', 'read_blackboard', 'post_to_blackboard', 'list_subagents', 'map_subagents', 'steer_subagent', 'wait_subagents', 'retrieve_tool_result'];
const LEVEL: Record<string, number> = { public: 0, internal: 1, private: 2 };

function grantedBySpec(tool: ToolDefinition, tier: PeerTier): boolean {
  if (tool.name === 'request_clarification') return true;
  if (SENDS.includes(tool.name) || BOOKKEEPING.includes(tool.name) || PERSONAL.includes(tool.name)) return false;
  if (tool.risk !== 'read-only') return false;
  return LEVEL[tool.disclosure]! <= LEVEL[tier]!;
}

const ceiling = (tier: PeerTier, allow: string[] = []): PeerCeiling => ({ peer: 'alice', tier, allow });

describe('peer ceiling: every tool × every tier', () => {
  it('covers the whole builtin tool set (sanity: the table is not empty)', () => {
    expect(tools.length).toBeGreaterThan(60);
    for (const name of ['read_file', 'write_file', 'get_time', 'web_fetch', 'execute_command', 'manage_todos', 'ask_peer', 'request_clarification']) {
      expect(tools.map((t) => t.name)).toContain(name);
    }
  });

  const cases = tools.flatMap((tool) => PEER_TIERS.map((tier) => [tool.name, tier, tool] as const));
  it.each(cases)('%s at tier %s', (_name, tier, tool) => {
    const refused = peerCeilingCheck(tool, ceiling(tier));
    expect(refused === null).toBe(grantedBySpec(tool, tier));
    if (refused) expect(refused).toMatch(new RegExp(`deskhand peers allow alice ${tool.name}`));
    // The allow list grants it at every tier, whatever it is.
    expect(peerCeilingCheck(tool, ceiling(tier, [tool.name]))).toBeNull();
  });

  it.each([
    ['get_time', 'public', false],
    ['get_time', 'internal', true],
    ['ls', 'internal', true],
    ['read_file', 'internal', false],
    ['read_file', 'private', true],
    ['grep', 'private', true],
    ['write_file', 'private', false],
    ['edit_file', 'private', false],
    ['execute_command', 'private', false],
    ['web_fetch', 'private', false],
    ['web_search', 'public', false],
    ['http_request', 'private', false],
    ['manage_todos', 'private', false],
    ['view_memory', 'private', false],
    ['use_saved_secret', 'private', false],
    ['ask_peer', 'private', false],
    ['request_clarification', 'public', true],
  ] as const)('%s at %s → granted %s', (name, tier, granted) => {
    const tool = tools.find((t) => t.name === name)!;
    expect(peerCeilingCheck(tool, ceiling(tier)) === null).toBe(granted);
  });

  it.each([...BOOKKEEPING, ...PERSONAL, 'ask_peer'])('%s is refused for what it declares (facts), even as a read-only public tool', (name) => {
    const t = { ...[...tools, ...subagentTools].find((x) => x.name === name)!, risk: 'read-only', disclosure: 'public' } as const;
    for (const tier of PEER_TIERS) expect(peerCeilingCheck(t, ceiling(tier))).toMatch(/never grants it/);
  });

  it('an MCP or custom tool is granted by no tier, only by name', () => {
    for (const kind of ['mcp', 'custom'] as const) {
      const t = { name: 'mcp__srv__lookup', risk: 'read-only', disclosure: 'public', kind } as const;
      for (const tier of PEER_TIERS) expect(peerCeilingCheck(t, ceiling(tier))).toMatch(/never grants it/);
      expect(peerCeilingCheck(t, ceiling('public', ['mcp__srv__lookup']))).toBeNull();
    }
  });

  it('an alias in the allow list grants the tool it names, another tool\'s name does not', () => {
    const find = tools.find((t) => t.aliases?.length)!;
    expect(find).toBeTruthy();
    const other = tools.find((t) => t.name === 'write_file')!;
    expect(peerCeilingCheck(other, ceiling('private', [find.aliases![0]!]))).not.toBeNull();
    expect(peerCeilingCheck(other, ceiling('private', ['Write_File', 'write_file ', 'write-file']))).not.toBeNull();
  });
});

describe('peer ceiling: the approval engine refuses above it', () => {
  const write = tools.find((t) => t.name === 'write_file')!;
  const read = tools.find((t) => t.name === 'read_file')!;

  it('denies a write under the most permissive policy and every rule that could match, unless allow names it', async () => {
    const input = { tool: write, args: { path: 'a.txt', content: 'x' }, policy: 'high-risk' as const, tainted: false, ctx };
    const refused = await decideWithEveryRule({ ...input, held: { 'peer-ceiling': ceiling('private') } });
    expect(refused.decision).toBe('deny');
    expect(refused.reasons.join(' ')).toMatch(/peer alice/);
    const allowed = await decideWithEveryRule({ ...input, held: { 'peer-ceiling': ceiling('private', ['write_file']) } });
    expect(allowed.decision).not.toBe('deny');
    const own = await decideWithEveryRule(input);
    expect(own.decision).toBe('allow');
  });

  it.each(PEER_TIERS)('read_file at tier %s: denied below private, decided as usual at private', async (tier) => {
    const d = await decideCall({ tool: read, args: { path: 'notes.txt' }, policy: 'high-risk', tainted: false, ctx, held: { 'peer-ceiling': ceiling(tier) } }, heldInspectors());
    expect(d.decision).toBe(tier === 'private' ? 'allow' : 'deny');
  });

  it('denies a call whose effects reach the network, whatever the tool says of itself', async () => {
    const sneaky = defineTool({
      name: 'get_weather',
      description: 'x',
      params: z.object({ url: z.string() }),
      risk: 'read-only',
      disclosure: 'public',
      effects: (a: { url: string }) => ({ urls: [a.url], network: true }),
      execute: async () => ({ output: '' }),
    }) as ToolDefinition;
    const d = await decideCall({ tool: sneaky, args: { url: 'https://example.com/' }, policy: 'high-risk', tainted: false, ctx, held: { 'peer-ceiling': ceiling('private') } }, heldInspectors());
    expect(d.decision).toBe('deny');
    expect(d.reasons.join(' ')).toMatch(/reach the network/);
    const named = await decideCall({ tool: sneaky, args: { url: 'https://example.com/' }, policy: 'high-risk', tainted: false, ctx, held: { 'peer-ceiling': ceiling('public', ['get_weather']) } }, heldInspectors());
    expect(named.decision).not.toBe('deny');
  });
});
