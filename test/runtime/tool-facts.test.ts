/**
 * Facts on the tool (issue 44): what a tool reaches of the person's own (secrets, memory, other conversations) is
 * declared on its definition (`facts.reaches`), not kept in a list of names elsewhere. Every private read-only builtin
 * must say it — `[]` for nothing — so a new one that reads memory cannot be granted to a peer because nobody edited a
 * list; and one that says nothing is refused by every tier anyway (fail safe).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { peerCeilingCheck } from '../../src/main/runtime/decision/peer-ceiling';
import { defineTool, type ToolDefinition } from '../../src/main/runtime/tool';
import { PEER_TIERS } from '../../src/shared/peers';
import { builtinRegistry, builtinTools } from '../support/tools';
import { missionScopeHold } from '../../src/main/tools/tower/hold';
import { planModeFilter } from '../../src/main/tools/plan/hold';
import { createSubagentFamily } from '../../src/main/tools/subagents';
import type { Subagents } from '../../src/main/services/subagents/index';
import { tempDir } from '../support/tool-context';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FAMILY_SUMMARIES } from '../../src/main/runtime/prompt/tool-families';

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

  it('Tower offers its tools by the role each declares (facts.roles), not by a list of names', () => {
    const hold = missionScopeHold({ scopeOf: () => null, roles: { isAgent: (id) => id === 'worker', isSubagent: () => false, hasSession: (id) => id !== 'plain' } });
    const check = (id: string) => hold.offer!({ conversationId: id, policy: 'high-risk', revealed: [] } as never)!;
    const tool = (name: string) => tools.find((t) => t.name === name)!;
    expect(tool('tower_spawn').facts?.roles).toEqual(['tower-coordinator']);
    expect(check('worker')(tool('tower_spawn'))).toMatch(/only the coordinating conversation/);
    expect(check('tower')(tool('tower_spawn'))).toBeNull();
    expect(check('worker')(tool('tower_send'))).toBeNull();
    expect(check('plain')(tool('tower_send'))).toMatch(/no Tower session here/);
    expect(check('plain')(tool('tower_init'))).toBeNull();
    // Undeclared, a tool is no Tower tool: offered everywhere as before.
    expect(check('worker')(tool('read_file'))).toBeNull();
  });

  it('plan mode keeps offering the tools that declare they edit a file (the plan file), and no other writer', () => {
    const inPlan = planModeFilter({ conversationId: 'c', policy: 'high-risk', revealed: [], slots: { plan_mode: { planFile: '/p/plan.md', enteredAt: 1 } } } as never)!;
    const offered = tools.filter((t) => t.risk !== 'read-only' && t.risk !== 'unknown' && inPlan(t) === null).map((t) => t.name).sort();
    expect(offered).toEqual(['edit_file', 'exit_plan_mode', 'write_file'].filter((n) => tools.find((t) => t.name === n && t.risk !== 'read-only')).sort());
  });

  it('every loading family a tool declares (facts.loadsWith) is a family the prompt lists', () => {
    const declared = tools.filter((t) => t.facts?.loadsWith).map((t) => [t.name, t.facts!.loadsWith!] as const);
    expect(declared.length).toBeGreaterThan(20);
    for (const [name, family] of declared) expect(Object.keys(FAMILY_SUMMARIES), `${name}: loadsWith '${family}' is no family in tool-families.ts`).toContain(family);
  });

  it('the assembly files a tool under the family it declares: a tool of files that forgets `loadsWith` loads with files', () => {
    const registry = builtinRegistry({ dataDir: tempDir('deskhand-facts-asm-') });
    for (const [name, family] of [['mkdir', 'fileops'], ['read_pdf', 'pdf'], ['list_mcp_servers', 'mcp'], ['http_request', 'http'], ['read_file', 'files'], ['find_skills', 'skills']] as const) {
      if (registry.lookup(name)) expect(registry.familyOf(name), name).toBe(family);
    }
  });

  it('a child is never offered what declares parentOnly; presence counts what declares writes', () => {
    const parentOnly = tools.filter((t) => t.facts?.parentOnly).map((t) => t.name).sort();
    expect(parentOnly).toEqual(expect.arrayContaining(['spawn_subagent', 'steer_subagent', 'wait_subagents']));
    for (const t of tools.filter((x) => x.facts?.writes)) expect(t.risk, `${t.name} writes but says it is read-only`).not.toBe('read-only');
  });

  it('no tool name is kept in a list outside the tools (runtime/, host/, services/, electron/)', () => {
    const names = new Set(tools.flatMap((t) => [t.name, ...(t.aliases ?? [])]));
    // Quoted names that are not lists of tools, each with why. A new one fails: declare a fact on the tool instead.
    const ALLOWED: Record<string, string> = {
      'src/main/runtime/loop/call-execution.ts:retrieve_tool_result': 'the offload notice reveals the tool that pages a stored result',
      'src/main/host/app/groups/compositions.ts:create_composition': 'the panel refreshes when that tool made a composition',
      'src/main/host/app/groups/media.ts:generate_media': 'the media viewer opens that tool\'s output',
      'src/main/host/app/projections.ts:use_saved_secret': 'the approval card describes the saved secret asked for',
      'src/main/services/goals/index.ts:report_goal_cycle': 'a goal report is not evidence of itself',
      'src/main/services/tower/tower-service.ts:grep': 'a command word, not the tool',
      'src/main/runtime/context/redaction.ts:pwd': 'a word credential names contain, not the tool',
      wait_for: 'a background task kind (tasks table), not the tool',
      workflow: 'a background task kind and the workflow service, not the tool',
      rm: 'a CLI verb (`deskhand … rm`), not the tool',
    };
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts')) files.push(p);
      }
    };
    for (const dir of ['src/main/runtime', 'src/main/host', 'src/main/services', 'src/main/electron']) walk(dir);
    const found = files.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/'([a-z][a-z0-9_]*)'/g)].map((m) => m[1]!).filter((n) => names.has(n)).map((n) => `${f.replaceAll('\\', '/')}:${n}`));
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((hit) => !(hit in ALLOWED) && !(hit.split(':')[1]! in ALLOWED))).toEqual([]);
  });
});
