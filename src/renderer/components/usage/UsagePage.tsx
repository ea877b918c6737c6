/**
 * The Usage page: what every model call cost, by day, conversation, model and kind of work (turns, subagents,
 * compaction, memory extraction, the media companion), from the usage ledger; the daily budget; and runs a budget
 * paused. A cost is "unknown" when a model has no price, never zero.
 */
import { useEffect, useState } from 'react';
import type { MethodResult } from '../../../shared/contract';
import { CAUSE_LABELS, formatTotalCost, type UsageEntry } from '../../../shared/usage';
import { api, errorText } from '../../api/client';
import { useUi } from '../../state/ui';
import { useConversations } from '../../state/conversations';
import { BudgetHoldCard } from './BudgetHold';

type Data = MethodResult<'getUsage'>;
const RANGES = [
  { label: 'Today', since: '1d' },
  { label: 'Last 7 days', since: '7d' },
  { label: 'Last 30 days', since: '30d' },
  { label: 'Everything', since: undefined },
] as const;

export function UsagePage() {
  const [range, setRange] = useState<(typeof RANGES)[number]['label']>('Last 30 days');
  const [data, setData] = useState<Data | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let live = true;
    const since = RANGES.find((r) => r.label === range)!.since;
    api()
      .getUsage(since ? { since } : {})
      .then((d) => live && (setData(d), setError(null)))
      .catch((err: unknown) => live && setError(errorText(err)));
    const off = api().on('run', (e) => {
      if (e.type === 'run.finished' || e.type === 'run.parked') setTick((t) => t + 1);
    });
    return () => {
      live = false;
      off();
    };
  }, [range, tick]);

  const t = data?.report.total;
  const selected = useConversations((s) => s.list.find((c) => c.id === s.selectedId) ?? null);
  return (
    <main className="settings usage-page" aria-label="Usage">
      <div className="settings-body">
        <header className="settings-head">
          <h1>Usage</h1>
          <button type="button" className="btn" onClick={() => useUi.getState().setView('chat')}>
            Back to conversations
          </button>
        </header>
        <div role="group" aria-label="Period" className="usage-ranges">
          {RANGES.map((r) => (
            <button key={r.label} type="button" className="btn" aria-pressed={range === r.label} onClick={() => setRange(r.label)}>
              {r.label}
            </button>
          ))}
        </div>
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        {!data && !error && <p className="center-note">Loading usage…</p>}
        {data && t && (
          <>
            {data.holds.length > 0 && (
              <section aria-label="Runs paused by a budget">
                <h2>Paused by a budget</h2>
                {data.holds.map((h) => (
                  <BudgetHoldCard key={h.id} hold={h} />
                ))}
              </section>
            )}
            <section aria-label="Total">
              <h2>Total</h2>
              <p>
                <strong aria-label="Total cost">{formatTotalCost(t)}</strong> · <span aria-label="Total model calls">{t.calls} model calls</span> ·{' '}
                <span aria-label="Total tokens">
                  {t.inputTokens.toLocaleString('en-US')} in ({t.cacheReadTokens.toLocaleString('en-US')} from cache) / {t.outputTokens.toLocaleString('en-US')} out
                </span>
                {t.reasoningTokens > 0 && ` (${t.reasoningTokens.toLocaleString('en-US')} reasoning)`}
              </p>
              {t.calls === 0 && <p className="muted">No model calls in this period. Each call any conversation, subagent, compaction or memory extraction makes appears here.</p>}
            </section>
            <UsageTable title="By kind of work" entries={data.report.byCause} name={(e) => CAUSE_LABELS[e.key] ?? e.key} />
            <UsageTable title="By day" entries={data.report.byDay} name={(e) => e.key} />
            <UsageTable title="By conversation" entries={data.report.byConversation} name={(e) => e.label ?? 'A deleted conversation'} />
            <UsageTable title="By model" entries={data.report.byModel} name={(e) => e.key} />
            {selected && <BudgetForm key={selected.id} budgets={data.budgets} scope={{ conversationId: selected.id, title: selected.title }} onSaved={() => setTick((n) => n + 1)} />}
            <BudgetForm budgets={data.budgets} scope="day" onSaved={() => setTick((n) => n + 1)} />
          </>
        )}
      </div>
    </main>
  );
}

function UsageTable({ title, entries, name }: { title: string; entries: UsageEntry[]; name: (e: UsageEntry) => string }) {
  if (entries.length === 0) return null;
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      <table className="usage-table">
        <thead>
          <tr>
            <th scope="col">{title.replace(/^By /, '').replace(/^kind of work$/, 'Work')}</th>
            <th scope="col">Calls</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Output tokens</th>
            <th scope="col">Share</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr key={e.key}>
              <th scope="row">{name(e)}</th>
              <td>{e.calls}</td>
              <td>{e.inputTokens.toLocaleString('en-US')}</td>
              <td>{e.outputTokens.toLocaleString('en-US')}</td>
              <td>{Math.round(e.share * 100)}%</td>
              <td>{formatTotalCost(e)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function BudgetForm({ budgets, scope, onSaved }: { budgets: Data['budgets']; scope: 'day' | { conversationId: string; title: string }; onSaved: () => void }) {
  const conversationId = scope === 'day' ? null : scope.conversationId;
  const current = budgets.find((b) => (scope === 'day' ? b.scope === 'day' : b.conversationId === conversationId));
  const [usd, setUsd] = useState(current?.usd?.toString() ?? '');
  const [tokens, setTokens] = useState(current?.tokens?.toString() ?? '');
  const what = scope === 'day' ? 'Daily budget' : `Budget for “${scope.title}”`;
  async function save() {
    try {
      const limits = { usd: usd.trim() ? Number(usd) : null, tokens: tokens.trim() ? Number(tokens) : null };
      await api().setBudget(conversationId ? { scope: 'conversation', conversationId, ...limits } : { scope: 'day', ...limits });
      useUi.getState().notify(`${what} saved.`, 'info');
      onSaved();
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }
  return (
    <section aria-label={what}>
      <h2>{what}</h2>
      <p className="muted small">
        Before a model call that would cross it, a run pauses and asks you to raise it or stop. {scope === 'day' ? 'Counted per calendar day.' : 'Counts the conversation\'s subagents too.'} Empty: no limit.
      </p>
      <label>
        {scope === 'day' ? 'US dollars per day' : 'US dollars'} <input type="number" min={0} step={0.01} value={usd} onChange={(e) => setUsd(e.target.value)} />
      </label>{' '}
      <label>
        {scope === 'day' ? 'Tokens per day' : 'Tokens'} <input type="number" min={0} step={1000} value={tokens} onChange={(e) => setTokens(e.target.value)} />
      </label>{' '}
      <button type="button" className="btn" onClick={() => void save()}>
        Save {scope === 'day' ? 'daily budget' : 'conversation budget'}
      </button>
    </section>
  );
}
