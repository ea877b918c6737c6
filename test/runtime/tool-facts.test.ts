/**
 * Facts on the tool (issue 44): what a tool reaches of the person's own (secrets, memory, other conversations) is
 * declared on its definition (`facts.reaches`), not kept in a list of names elsewhere. Every private read-only builtin
 * must say it — `[]` for nothing — so a new one that reads memory cannot be granted to a peer because nobody edited a
 * list; and one that says nothing is refused by every tier anyway (fail safe).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { peerCeilingCheck } from '../../src/main/runtime/peer-ceiling';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { PEER_TIERS } from '../../src/shared/peers';
import { builtinTools } from '../support/tools';
import { createSubagentFamily } from '../../src/main/tools/subagents';
import type { Subagents } from '../../src/main/services/subagents/index';
import { tempDir } from '../support/tool-context';

// Every family's definitions (the subagent family's too: the shared set is built without its service).
const tools = [...builtinTools({ dataDir: tempDir('deskhand-facts-') }), ...createSubagentFamily({ subagents: {} as Subagents }).tools];

describe('tool facts', () => {
  const privateReads = tools.filter((t) => t.disclosure === 'private' && t.risk === 'read-only');

  it('the table is not empty (sanity)', () => {
    expect(privateReads.length).toBeGreaterThan(20);
  });

  it.each(privateReads.map((t) => [t.name, t] as const))('%s (private, read-only) declares what of the person\'s own it reaches', (_name, tool) => {
    expect(Array.isArray(tool.facts?.reaches) || tool.facts?.bookkeeping === true, `${tool.name}: declare facts.reaches ([] for nothing) on the tool`).toBe(true);
  });

  it('what reaches secrets, memory or other conversations says which', () => {
    const reach = (name: string) => tools.find((t) => t.name === name)?.facts?.reaches;
    expect(reach('use_saved_secret')).toEqual(['secrets']);
    expect(reach('view_memory')).toEqual(['memory']);
    expect(reach('read_blackboard')).toEqual(['conversations']);
    expect(reach('read_file')).toEqual([]);
  });

  it('a private read-only tool that declares nothing is refused by every tier; declaring `[]` lets its tier decide', () => {
    const undeclared = defineTool({ name: 'read_diary', description: 'x', params: z.object({}), risk: 'read-only', disclosure: 'private', execute: async () => ({ output: '' }) }) as ToolDefinition;
    for (const tier of PEER_TIERS) expect(peerCeilingCheck(undeclared, { peer: 'alice', tier, allow: [] })).toMatch(/does not declare what of the person's own it reaches/);
    const declared = { ...undeclared, facts: { reaches: [] } };
    expect(peerCeilingCheck(declared, { peer: 'alice', tier: 'private', allow: [] })).toBeNull();
    const memory = { ...undeclared, facts: { reaches: ['memory' as const] } };
    expect(peerCeilingCheck(memory, { peer: 'alice', tier: 'private', allow: [] })).toMatch(/reaches the person's/);
    // The allow list still grants it by name.
    expect(peerCeilingCheck(undeclared, { peer: 'alice', tier: 'public', allow: ['read_diary'] })).toBeNull();
  });
});
