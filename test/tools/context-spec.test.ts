/** context_info and get_time against Spec I's table. */
import { describe, expect, it } from 'vitest';
import { contextInfo } from '../../src/main/tools/context/context-info';
import { createGetTime, getTime } from '../../src/main/tools/context/get-time';
import { makeContext, tempDir } from '../support/tool-context';

describe('context_info (Spec I: usage and the compaction threshold)', () => {
  it('reports the window, the estimated use of the next request and the compaction threshold', async () => {
    const figures = () => ({ contextTokens: 150_000, contextWindow: 200_000, compactAtTokens: 160_000, compactions: 2 });
    const ctx = { ...makeContext(tempDir()), usage: { inputTokens: 9_000_000, outputTokens: 20, contextWindow: 200_000, messages: 9, figures } };
    const info = JSON.parse((await contextInfo.execute({}, ctx)).output) as Record<string, unknown>;
    expect(info).toMatchObject({ contextTokens: 150_000, contextWindow: 200_000, percentUsed: 75, compactAtTokens: 160_000, compactions: 2, messages: 9, runInputTokens: 9_000_000 });
    expect(contextInfo.description).toMatch(/compact/);
  });
});

describe('get_time (Spec I: workMinutesLeft only with a time budget)', () => {
  it('reports no workMinutesLeft without a time budget', async () => {
    const t = JSON.parse((await getTime.execute({}, makeContext(tempDir()))).output) as Record<string, unknown>;
    expect(t).not.toHaveProperty('workMinutesLeft');
    expect(typeof t.utc).toBe('string');
  });

  it('reports workMinutesLeft where a budget exists (a subagent\'s minutes limit)', async () => {
    const seen: string[] = [];
    const timed = createGetTime((conv) => (seen.push(conv), 12.5));
    const ctx = makeContext(tempDir());
    const t = JSON.parse((await timed.execute({}, ctx)).output) as Record<string, unknown>;
    expect(t.workMinutesLeft).toBe(12.5);
    expect(seen).toEqual([ctx.conversationId]);
  });
});
