/**
 * "How to add a hold" touches one folder (issue 44): a family declares its holds (`holds`, a factory over the
 * HoldContext with an order) and the assembly registers every declared one with no line naming it. A test family's
 * hold, given to the host like a family's hold module, is registered at its order, offered as its filter says, and
 * judged by the run and by `policy explain` (runtime.explain: the same decision book) alike; the families' own holds
 * are found in their folders in the order their inspectors always ran.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Hold, HoldModule } from '../../src/main/runtime/decision/hold';
import { declaredHolds, HOLD_MODULES } from '../../src/main/host/assembly/holds';
import { reply } from '../support/model-server';
import { openSubHarness, toolNames, type SubHarness } from '../subagents/harness';

let h: SubHarness;
afterEach(async () => {
  await h?.close();
});

const REASON = 'the sealed hold keeps this conversation from writing';

/** A test family's hold: a conversation titled "sealed" (read from the records in the context) writes nothing. */
const sealedFamily: HoldModule = {
  holds: [
    {
      order: 25,
      make: ({ records }): Hold<{ title: string }> => ({
        name: 'sealed',
        stateOf: ({ conversationId }) => {
          const conv = records.getConversation(conversationId);
          return conv?.title === 'sealed' ? { title: conv.title } : null;
        },
        offer: (turn) => (records.getConversation(turn.conversationId)?.title === 'sealed' ? (tool) => (tool.name === 'edit_file' ? 'sealed' : null) : null),
        inspect: ({ tool }, _facts, state) =>
          state && tool.name === 'write_file' ? { inspector: 'sealed', verdict: 'deny', reasons: [REASON] } : { inspector: 'sealed', verdict: 'pass', reasons: [] },
      }),
    },
  ],
};

describe('a hold declared by a family', () => {
  it('the families declare plan mode, mission scope, the peer ceiling and the subagent ceiling, in that order', () => {
    const names = declaredHolds(HOLD_MODULES).map((d) => d.make({ records: {} as never, tower: { scopeOf: () => null }, subagents: { byConversation: () => undefined } }).name);
    expect(names).toEqual(['plan-mode', 'mission-scope', 'peer-ceiling', 'subagent-ceiling']);
  });

  it('is registered at its order, offered as it says and judged by the run and by explain, with no assembly line', async () => {
    h = await openSubHarness({ holdModules: [sealedFamily] });
    expect(h.runtime.inspectors().map((i) => i.name)).toEqual(['classifier', 'containment', 'plan-mode', 'mission-scope', 'sealed', 'peer-ceiling', 'secrets', 'url-guard', 'taint', 'app-grants', 'confined', 'policy', 'saved-rules', 'hooks']);

    // A sealed conversation: the write is refused by the hold (the file is never written), edit_file is not offered.
    const sealed = h.runtime.createConversation({ folder: h.work, policy: 'high-risk', title: 'sealed' });
    const target = join(h.work, 'sealed.txt');
    h.server.enqueue(reply().tool('write_file', { path: target, content: 'x' }), reply().text('done'));
    await h.runtime.sendMessage(sealed.id, 'write it', { provider: h.provider(), interactive: false });
    expect(existsSync(target)).toBe(false);
    const asked = h.server.requests.slice(-2);
    expect(JSON.stringify(asked[1]!.body)).toContain(REASON);
    expect(toolNames(asked[0]!)).toContain('write_file');
    expect(toolNames(asked[0]!)).not.toContain('edit_file');
    const explained = await h.runtime.explain('write_file', { path: target, content: 'x' }, 'high-risk', h.work, undefined, { conversationId: sealed.id });
    expect(explained.inspectors.find((r) => r.inspector === 'sealed')).toMatchObject({ verdict: 'deny', reasons: [REASON] });

    // Any other conversation: the hold does not hold it; the same call runs.
    const open = h.runtime.createConversation({ folder: h.work, policy: 'high-risk', title: 'open' });
    const other = join(h.work, 'open.txt');
    h.server.enqueue(reply().tool('write_file', { path: other, content: 'y' }), reply().text('done'));
    await h.runtime.sendMessage(open.id, 'write it', { provider: h.provider(), interactive: false });
    expect(readFileSync(other, 'utf8')).toBe('y');
    expect(toolNames(h.server.requests.at(-2)!)).toContain('edit_file');
    const explainedOpen = await h.runtime.explain('write_file', { path: other, content: 'y' }, 'high-risk', h.work, undefined, { conversationId: open.id });
    expect(explainedOpen.inspectors.find((r) => r.inspector === 'sealed')?.verdict).toBe('pass');
  });
});
