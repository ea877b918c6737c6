/**
 * Which waiting requests may be answered from the notification itself (Approve/Deny buttons): an approval that is
 * not high-risk, names no secret and is not a subagent's. Every other request only opens its card.
 */
import { describe, expect, it } from 'vitest';
import { answerableFromNotification } from '../../src/main/electron/notifications';

const secret = { name: 'GITHUB_TOKEN', description: 'token', prompt: null };
const subagent = { id: 'sub_1', type: 'explore', description: 'look', conversationId: 'conv_1' };

describe('answerableFromNotification', () => {
  it.each([
    [{ kind: 'approval', risk: 'low-risk', secret: null, subagent: null }, true],
    [{ kind: 'approval', risk: 'read-only', secret: null }, true],
    [{ kind: 'approval', risk: 'high-risk', secret: null, subagent: null }, false],
    [{ kind: 'approval', risk: 'low-risk', secret, subagent: null }, false],
    [{ kind: 'approval', risk: 'low-risk', secret: null, subagent }, false],
    [{ kind: 'secret', risk: 'low-risk', secret, subagent: null }, false],
    [{ kind: 'question', risk: 'low-risk', secret: null, subagent: null }, false],
    [{ kind: 'file_pick', risk: 'read-only', secret: null, subagent: null }, false],
    [{ kind: 'approval', risk: 'High-Risk', secret: null, subagent: null }, false],
    [{ kind: 'approval', risk: '', secret: null, subagent: null }, false],
    [{ kind: 'Approval', risk: 'low-risk', secret: null, subagent: null }, false],
    [{ kind: 'approval ', risk: 'low-risk', secret: null, subagent: null }, false],
  ] as const)('%j → %s', (a, expected) => {
    expect(answerableFromNotification(a as Parameters<typeof answerableFromNotification>[0])).toBe(expected);
  });
});
