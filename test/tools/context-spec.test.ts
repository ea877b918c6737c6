/** context_info and get_time against Spec I's table. */
import { describe, expect, it } from 'vitest';
import { contextInfo } from '../../src/main/tools/context/context-info';
import { getTime } from '../../src/main/tools/context/get-time';
import { makeContext, tempDir } from '../support/tool-context';

describe('context_info (Spec I: usage and the compaction threshold)', () => {
  it('reports the window and that no compaction threshold exists while history is never compacted', async () => {
    const ctx = { ...makeContext(tempDir()), usage: { inputTokens: 150_000, outputTokens: 20, contextWindow: 200_000, messages: 9 } };
    const info = JSON.parse((await contextInfo.execute({}, ctx)).output) as Record<string, unknown>;
    expect(info).toMatchObject({ contextWindow: 200_000, percentUsed: 75, messages: 9 });
    expect(info).toHaveProperty('compactAtTokens', null);
    expect(String(info.compaction)).toMatch(/not compacted/);
    expect(contextInfo.description).toMatch(/compact/);
  });
});

describe('get_time (Spec I: workMinutesLeft only with a time budget)', () => {
  it('reports no workMinutesLeft: no run has a time budget yet', async () => {
    const t = JSON.parse((await getTime.execute({}, makeContext(tempDir()))).output) as Record<string, unknown>;
    expect(t).not.toHaveProperty('workMinutesLeft');
    expect(typeof t.utc).toBe('string');
  });
});
