/**
 * The usage ledger end to end through the built CLI: a scripted run with a subagent, a compaction and memory
 * extraction, whose every reply reports known usage; `deskhand usage --json` and `runs show --json` must both equal the
 * sum of what the server reported, call by call attributed to its cause, and so must the Usage page's contract methods. And a conversation budget that parks a run
 * before a model call (none is made after it), raised from another process, after which the run finishes.
 */
import { recordsOf } from '../../src/main/runtime/records';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/model-server';
import { useCliWorld } from '../support/cli';
import { Store } from '../../src/main/services/store/store';
import { usageGroup } from '../../src/main/host/app/groups/usage';

const world = useCliWorld('usage', { policy: 'high-risk', env: { DESKHAND_MEMORY_EXTRACTION: 'on' } });

interface Totals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd: number | null;
  unpricedModels: string[];
}
interface Entry extends Totals {
  key: string;
}

describe('deskhand usage', () => {
  it('counts every model call of a run (turn, subagent, compaction, memory) as the server reported it', async () => {
    const { server, dataDir } = world;
    // What each request is answered with, and the usage it reports.
    const script = [
      { cause: 'turn', r: reply().tool('spawn_subagent', { prompt: 'Say hello.', description: 'greeter' }), usage: { input: 1000, output: 50, cacheRead: 400 } },
      { cause: 'subagent', r: reply().text('hello from the child'), usage: { input: 300, output: 20 } },
      // Memory extraction runs after the child's turn too (its prompt is a person-side message).
      { cause: 'memory', r: reply().text('{"records": []}'), usage: { input: 150, output: 3 } },
      { cause: 'turn', r: reply().tool('summarize_context', { focus: 'the greeting' }), usage: { input: 1400, output: 30, cacheRead: 1000 } },
      { cause: 'compaction', r: reply().text('The person asked for a greeting; a child said hello.'), usage: { input: 700, output: 40 } },
      { cause: 'turn', r: reply().text('All done.'), usage: { input: 600, output: 10 } },
      { cause: 'memory', r: reply().text('{"records": []}'), usage: { input: 200, output: 5 } },
    ];
    // Every call in the ledger counts toward the person's turn, so all of them are counted below.
    for (const s of script) server.enqueue(s.r.usage(s.usage));
    const r = await world.run(`Greet me through a child. ${'Background for the task. '.repeat(300)}`);
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.length).toBe(script.length);
    const runId = String(r.events.find((e) => e.type === 'run.started')!.runId);

    const input = script.reduce((n, s) => n + s.usage.input, 0);
    const output = script.reduce((n, s) => n + s.usage.output, 0);
    const cacheRead = script.reduce((n, s) => n + (s.usage.cacheRead ?? 0), 0);

    const usage = await world.cli(['usage', '--data-dir', dataDir, '--json']);
    expect(usage.code, usage.stderr).toBe(0);
    const report = JSON.parse(usage.stdout) as { total: Totals; byCause: Entry[]; byModel: Entry[]; byConversation: Entry[]; byDay: Entry[] };
    expect(report.total).toMatchObject({ calls: script.length, inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead });
    // The scripted model "m" has no price: the cost is unknown, never zero.
    expect(report.total.costUsd).toBeNull();
    expect(report.total.unpricedModels).toEqual(['m']);
    for (const cause of ['turn', 'subagent', 'compaction', 'memory']) {
      const mine = script.filter((s) => s.cause === cause);
      const entry = report.byCause.find((e) => e.key === cause);
      expect(entry, cause).toMatchObject({ calls: mine.length, inputTokens: mine.reduce((n, s) => n + s.usage.input, 0), outputTokens: mine.reduce((n, s) => n + s.usage.output, 0) });
    }
    // Everything counts toward the person's one conversation (the child's calls included).
    expect(report.byConversation).toHaveLength(1);
    expect(report.byConversation[0]).toMatchObject({ key: String(r.events.find((e) => e.type === 'run.started')!.conversationId), inputTokens: input });

    const show = await world.cli(['runs', 'show', runId, '--data-dir', dataDir, '--json']);
    const shown = JSON.parse(show.stdout) as { usage: Totals & { byCause: Record<string, Totals> } };
    expect(shown.usage).toMatchObject({ calls: script.length, inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, costUsd: null });
    expect(Object.keys(shown.usage.byCause).sort()).toEqual(['compaction', 'memory', 'subagent', 'turn']);

    // The Usage page's numbers (its contract methods, getUsage and the header's getConversationUsage) are the same.
    const pageStore = new Store(dataDir);
    try {
      const page = usageGroup({ answerHold: async () => false })({ runtime: { store: pageStore, records: recordsOf(pageStore) } } as unknown as Parameters<ReturnType<typeof usageGroup>>[0]);
      const shownOnPage = await page.getUsage({});
      expect(shownOnPage.report.total).toMatchObject({ calls: script.length, inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, costUsd: null });
      expect(shownOnPage.report.total).toEqual(report.total);
      expect(shownOnPage.report.byCause).toEqual(report.byCause);
      const header = await page.getConversationUsage({ conversationId: String(r.events.find((e) => e.type === 'run.started')!.conversationId) });
      expect(header.total).toMatchObject({ inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead });
    } finally {
      pageStore.close();
    }

    // A price the person sets makes the cost known, for the history too: (input - cached) + cached + output.
    const set = await world.cli(['usage', 'prices', 'set', 'm', '--input', '2', '--output', '10', '--cache-read', '0.5', '--data-dir', dataDir]);
    expect(set.code, set.stderr).toBe(0);
    const priced = JSON.parse((await world.cli(['usage', '--data-dir', dataDir, '--json'])).stdout) as { total: Totals };
    expect(priced.total.costUsd).toBeCloseTo(((input - cacheRead) * 2 + cacheRead * 0.5 + output * 10) / 1e6, 12);
    const text = await world.cli(['usage', '--data-dir', dataDir, '--by', 'cause']);
    expect(text.stdout).toMatch(/Subagents\s+1 calls\s+320 tokens/);
    expect(text.stdout).toMatch(/Compaction\s+1 calls\s+740 tokens/);

    // The compaction's record is in the transcript: what was dropped and the summary that stands for it.
    const conversationId = String(r.events.find((e) => e.type === 'run.started')!.conversationId);
    const file = join(world.work, 'export.md');
    const exported = await world.cli(['conversations', 'export', conversationId, '--out', file, '--data-dir', dataDir]);
    expect(exported.code, exported.stderr).toBe(0);
    const markdown = readFileSync(file, 'utf8');
    expect(markdown).toContain('## Deskhand (context compacted)');
    expect(markdown).toMatch(/1 earlier messages were replaced by this summary/);
    expect(markdown).toContain('The person asked for a greeting; a child said hello.');
  }, 60_000);

  it('refuses a bad --since and --by with what to type instead', async () => {
    const bad = await world.cli(['usage', '--data-dir', world.dataDir, '--since', 'yesterday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/YYYY-MM-DD.*7d/);
    const by = await world.cli(['usage', '--data-dir', world.dataDir, '--by', 'week']);
    expect(by.code).toBe(2);
    expect(by.stderr).toMatch(/--by must be one of day, conversation, model, provider, cause/);
  });

  it('parks a run at a conversation budget before the call that would cross it, and a raise from another process finishes it', async () => {
    const { server, dataDir } = world;
    server.enqueue(reply().text('First answer.').usage({ input: 1000, output: 100 }));
    const first = await world.run('First question.', { env: { DESKHAND_MEMORY_EXTRACTION: 'off' } });
    expect(first.code, first.stderr).toBe(0);
    const conversationId = String(first.events.find((e) => e.type === 'run.started')!.conversationId);
    // 1,100 spent; the next call is estimated at the last one's size: 2,200 would cross 2,000.
    const set = await world.cli(['usage', 'budget', 'set', '--conversation', conversationId, '--tokens', '2000', '--data-dir', dataDir]);
    expect(set.code, set.stderr).toBe(0);

    const before = server.requests.length;
    server.enqueue(reply().tool('get_time', {}).usage({ input: 1000, output: 100 }));
    server.enqueue(reply().text('Second answer.').usage({ input: 1000, output: 100 }));
    const parked = await world.run('Second question.', { flags: ['--conversation', conversationId], env: { DESKHAND_MEMORY_EXTRACTION: 'off' } });
    expect(parked.code, parked.stderr).toBe(3);
    expect(server.requests.length).toBe(before);
    const event = parked.events.find((e) => e.type === 'run.parked') as { budget?: { holdId: string; message: string }; runId: string } | undefined;
    expect(event?.budget?.message).toBe("Budget reached: 1,100 tokens spent of 2,000 tokens (this conversation's budget) — raise it, or stop.");
    const holdId = event!.budget!.holdId;

    const listed = await world.cli(['runs', 'list', '--data-dir', dataDir]);
    expect(listed.stdout).toContain(`waiting: ${holdId}  budget`);

    const tooLow = await world.cli(['runs', 'answer', holdId, '--value', '{"tokens": 1000}', '--data-dir', dataDir, '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--json']);
    expect(tooLow.code).toBe(2);
    expect(tooLow.stderr).toMatch(/not above what was spent/);

    // Raised to 5,000: the run goes on from where it stood, its two calls (3,300 in all) fit.
    const raised = await world.cli(['runs', 'answer', holdId, '--value', '{"tokens": 5000}', '--data-dir', dataDir, '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--json'], { env: { DESKHAND_MEMORY_EXTRACTION: 'off' } });
    expect(raised.code, raised.stderr).toBe(0);
    expect(server.requests.length).toBe(before + 2);
    expect(raised.events.find((e) => e.type === 'run.finished')).toMatchObject({ runId: event!.runId, status: 'finished' });
    // The resumed request carries the person's second question (the run continued its own turn).
    expect(JSON.stringify(server.requests[before]!.body)).toContain('Second question.');
    const again = await world.cli(['runs', 'answer', holdId, '--value', '{"stop": true}', '--data-dir', dataDir]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/answered already/);
  }, 60_000);
});
