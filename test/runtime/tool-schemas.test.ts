/** Snapshot of what the model sees: every tool's name, description and JSON Schema. Drift fails here. */
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/main/runtime/registry';
import { builtinTools as assembled } from '../support/tools';
import { TOOL_NAME } from '../support/provider-validation';
import { tempDir } from '../support/tool-context';

describe('model-facing tool list', () => {
  const builtinTools = assembled({ dataDir: tempDir('deskhand-data-') });
  const registry = new ToolRegistry(builtinTools);
  const specs = registry.modelTools();

  it('matches the snapshot', async () => {
    await expect(JSON.stringify(specs, null, 2)).toMatchFileSnapshot('__snapshots__/tool-schemas.json');
  });

  it('never offers a hidden execute_* half and offers find as glob too', () => {
    const names = specs.map((s) => s.name);
    expect(names.filter((n) => n.startsWith('execute_') && n !== 'execute_command')).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['find', 'glob', 'read_file', 'write_file', 'edit_file', 'execute_command']));
    for (const tool of builtinTools) {
      if (tool.pair) expect(() => registry.resolve(tool.pair!.executeName)).toThrow(/Unknown tool/);
    }
  });

  it('offers every tool, deferred families included, under a name and a root schema both providers take', () => {
    // Anthropic and OpenAI refuse a request with a tool name outside ^[a-zA-Z0-9_-]{1,64}$ or a schema whose root is
    // not an object (test/support/provider-validation.ts); the scripted server only sees the families a test loads.
    for (const spec of registry.modelTools()) {
      expect(spec.name).toMatch(TOOL_NAME);
      expect(spec.inputSchema.type, spec.name).toBe('object');
    }
  });

  it('describes every parameter for the model', () => {
    for (const spec of specs) {
      expect(spec.description.length, spec.name).toBeGreaterThan(20);
      const props = (spec.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      for (const [param, schema] of Object.entries(props)) expect(schema.description, `${spec.name}.${param}`).toBeTruthy();
    }
  });

  it('has the risk tiers of the reference catalog', () => {
    const tier = Object.fromEntries(builtinTools.map((t) => [t.name, t.risk]));
    expect(tier).toMatchObject({
      read_file: 'read-only', ls: 'read-only', stat: 'read-only', find: 'read-only', grep: 'read-only', pwd: 'read-only', cd: 'read-only',
      write_file: 'high-risk', edit_file: 'high-risk', rm: 'high-risk', cp: 'high-risk', mv: 'high-risk', mkdir: 'low-risk',
      execute_command: 'unknown', get_time: 'read-only', context_info: 'read-only', list_todos: 'read-only', manage_todos: 'read-only', update_work_state: 'read-only',
      workflow: 'high-risk', tower_init: 'low-risk', tower_plan: 'high-risk', tower_spawn: 'low-risk', tower_merge: 'high-risk', tower_teardown: 'low-risk',
      tower_send: 'read-only', tower_inbox: 'read-only', tower_finding: 'read-only', tower_review: 'read-only', tower_mission: 'read-only', tower_status: 'read-only',
    });
  });
});
