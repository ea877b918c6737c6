/**
 * The system prompt's catalog of tools not loaded by themselves (`ToolRegistry.catalogText`) is kept per registry
 * version and set of enabled families (issue 54: it was rebuilt on every step). What is kept must still follow every
 * change it depends on: a family enabled by the conversation or by an enabler, a tool added or removed, the load plan.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry, type TurnContext } from '../../src/main/runtime/registry';
import { defineTool } from '../../src/main/runtime/tool';

const tool = (name: string) =>
  defineTool({ name, description: `The ${name} tool of a test.`, params: z.object({}).strict(), risk: 'read-only', disclosure: 'public', execute: async () => ({ output: '' }) });

const turn = (enabled: string[] = []): TurnContext => ({ conversationId: 'c', policy: 'read-only', revealed: [], enabled }) as TurnContext;

describe('the catalog of tools not loaded', () => {
  it('is the same text step after step, and follows enabled families, enablers, added and removed tools and the plan', () => {
    const registry = new ToolRegistry([tool('core_one')]);
    registry.add([tool('web_one'), tool('web_two')], { family: 'web' });
    registry.add([tool('media_one')], { family: 'media' });
    registry.loadOnDemand({ defaults: new Set(['core']), off: new Set(['media']) });

    const first = registry.catalogText(turn());
    expect(first).toMatch(/^- media \(off until loaded\): .*Tools: media_one\.$/m);
    expect(first).toMatch(/^- web: .*Tools: web_one, web_two\.$/m);
    // Asked again: the same text (kept), and revealing a tool does not change it (the prompt stays stable).
    expect(registry.catalogText({ ...turn(), revealed: ['web_one'] })).toBe(first);

    // The conversation enables a family: its line goes; disabled again, it is back.
    expect(registry.catalogText(turn(['web']))).not.toMatch(/- web:/);
    expect(registry.catalogText(turn())).toBe(first);

    // An enabler (an agent profile) enables one for every turn; removed, the line is back.
    const removeEnabler = registry.addEnabler('profile', () => ['media']);
    expect(registry.catalogText(turn())).not.toMatch(/- media/);
    removeEnabler();
    expect(registry.catalogText(turn())).toBe(first);

    // A tool added to a family shows; removed, it is gone again.
    const removeTool = registry.add([tool('web_three')], { family: 'web' });
    expect(registry.catalogText(turn())).toMatch(/Tools: web_one, web_two, web_three\./);
    removeTool();
    expect(registry.catalogText(turn())).toBe(first);

    // Another plan: web loads by itself, so it is not in the catalog.
    registry.loadOnDemand({ defaults: new Set(['core', 'web']), off: new Set(['media']) });
    const planned = registry.catalogText(turn());
    expect(planned).not.toMatch(/- web:/);
    expect(planned).toMatch(/- media \(off until loaded\)/);
  });
});
