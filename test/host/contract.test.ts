/** The contract's request parsing: the gate every IPC and WebSocket request passes before any handler runs. */
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, MAX_PAYLOAD_BYTES, METHOD_NAMES, contract, parseRequest, runEventSchema } from '../../src/shared/contract';
import type { RunEvent } from '../../src/shared/events';

const APR = 'apr_123e4567-e89b-42d3-a456-426614174000';

describe('parseRequest', () => {
  it('accepts a valid request and fills defaults', () => {
    expect(parseRequest('decideApproval', { approvalId: APR, decision: 'deny', reason: 'no' }, 80)).toEqual({
      ok: true,
      method: 'decideApproval',
      params: { approvalId: APR, decision: 'deny', reason: 'no' },
    });
    const page = parseRequest('getToolOutput', { conversationId: 'conv_a', runId: 'run_b', callId: 'c' }, 50);
    expect(page).toMatchObject({ ok: true, params: { offset: 0, limit: 50_000 } });
    expect(parseRequest('listConversations', undefined, 2)).toMatchObject({ ok: true });
  });

  it('rejects unknown methods, including inherited property names', () => {
    for (const name of ['launchMissiles', 'toString', '__proto__', 'constructor', 'hasOwnProperty', 42, null, undefined]) {
      expect(parseRequest(name, {}, 10)).toMatchObject({ ok: false, error: { code: 'unknown_method' } });
    }
  });

  it('rejects oversized payloads before looking at them', () => {
    expect(parseRequest('sendMessage', { conversationId: 'conv_a', text: 'x' }, MAX_PAYLOAD_BYTES + 1)).toMatchObject({ ok: false, error: { code: 'too_large' } });
    expect(parseRequest('launchMissiles', {}, MAX_PAYLOAD_BYTES + 1)).toMatchObject({ ok: false, error: { code: 'too_large' } });
  });

  it('rejects malformed params: wrong types, unknown keys, out-of-range values', () => {
    const bad: [string, unknown][] = [
      ['sendMessage', { conversationId: 'conv_a' }],
      ['sendMessage', { conversationId: 'conv_a', text: '   ' }],
      ['sendMessage', { conversationId: 'conv_a', text: 'hi', extra: true }],
      ['sendMessage', 'conv_a hi'],
      ['sendMessage', [1, 2]],
      ['createConversation', { folder: '/tmp', policy: 'yolo' }],
      ['setPolicy', { conversationId: '../../etc', policy: 'none' }],
      ['setApiKey', { provider: 'anthropic', key: '' }],
      ['saveSettings', { activeProvider: 'anthropic' }],
      ['getToolOutput', { conversationId: 'conv_a', runId: 'run_b', callId: 'c', limit: 10_000_000 }],
    ];
    for (const [method, params] of bad) {
      const r = parseRequest(method, params, 100);
      expect(r, `${method} ${JSON.stringify(params)}`).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    }
  });

  it('rejects forged approval ids by shape before anything is looked up', () => {
    for (const approvalId of ['apr_1', 'run_123e4567-e89b-42d3-a456-426614174000', `${APR} `, `${APR}\u0000`, 'apr_123E4567-E89B-42D3-A456-426614174000', '', 7]) {
      expect(parseRequest('decideApproval', { approvalId, decision: 'approve' }, 100)).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    }
  });
});

describe('the contract', () => {
  it('names exactly the methods and events the zod-free lists name', () => {
    expect(Object.keys(contract.methods).sort()).toEqual([...METHOD_NAMES].sort());
    expect(Object.keys(contract.events).sort()).toEqual([...EVENT_NAMES].sort());
  });

  it('describes every run event the runtime emits', () => {
    const samples: RunEvent[] = [
      { type: 'run.started', conversationId: 'c', runId: 'r', resumed: false },
      { type: 'text', runId: 'r', delta: 'hi' },
      { type: 'tool.call', runId: 'r', callId: 'k', tool: 'write_file', args: { path: 'a' } },
      { type: 'tool.decision', runId: 'r', callId: 'k', tool: 'write_file', risk: 'high-risk', decision: 'ask', reasons: ['x'] },
      { type: 'approval.requested', runId: 'r', conversationId: 'c', approvalId: APR, callId: 'k', tool: 'write_file', args: {}, risk: 'high-risk', reasons: [], description: 'd', preview: null, alwaysPattern: null },
      { type: 'approval.decided', runId: 'r', approvalId: APR, decision: 'denied', always: false, reason: 'no' },
      { type: 'tool.output', runId: 'r', callId: 'k', stream: 'stdout', chunk: 'x' },
      { type: 'tool.result', runId: 'r', callId: 'k', tool: 't', status: 'ok', output: 'o', durationMs: 3 },
      { type: 'usage', runId: 'r', step: 1, usage: { inputTokens: 1, outputTokens: 2 } },
      { type: 'run.retry', runId: 'r', attempt: 1, delayMs: 10, reason: 'x' },
      { type: 'run.parked', runId: 'r', conversationId: 'c', approvalIds: [APR] },
      { type: 'hook.note', runId: 'r', conversationId: 'c', event: 'Stop', text: 'run the tests too', toModel: true },
      { type: 'run.finished', runId: 'r', conversationId: 'c', status: 'failed', error: 'e', usage: { inputTokens: 0, outputTokens: 0 }, steps: 0 },
    ];
    for (const e of samples) expect(runEventSchema.parse(e)).toEqual(e);
    expect(runEventSchema.safeParse({ type: 'text', runId: 'r' }).success).toBe(false);
  });
});
