/**
 * A run a budget paused before a model call: "Budget reached: N spent of M — raise it, or stop." Raise sets the new
 * limit and the run continues from where it stood; Stop ends it (usage-budget.ts in main).
 */
import { useEffect, useState } from 'react';
import type { BudgetHoldView } from '../../../shared/contract/usage';
import { api, errorText } from '../../api/client';
import { useUi } from '../../state/ui';

/** The pending hold of a parked run, or null (a run parked for approvals has none). */
export function useBudgetHold(conversationId: string, runId: string): BudgetHoldView | null {
  const [hold, setHold] = useState<BudgetHoldView | null>(null);
  useEffect(() => {
    let live = true;
    void api()
      .getConversationUsage({ conversationId })
      .then((r) => live && setHold(r.holds.find((h) => h.runId === runId) ?? null))
      .catch(() => live && setHold(null));
    return () => {
      live = false;
    };
  }, [conversationId, runId]);
  return hold;
}

export function BudgetHoldCard({ hold }: { hold: BudgetHoldView }) {
  const [value, setValue] = useState(() => suggest(hold));
  const [busy, setBusy] = useState(false);
  const unitLabel = hold.unit === 'usd' ? 'New limit (US dollars)' : 'New limit (tokens)';
  async function answer(v: { usd: number } | { tokens: number } | { stop: true }) {
    setBusy(true);
    try {
      await api().answerBudgetHold({ holdId: hold.id, value: v });
    } catch (err) {
      useUi.getState().notify(errorText(err));
      setBusy(false);
    }
  }
  const n = Number(value);
  const valid = Number.isFinite(n) && n > hold.spent && (hold.unit === 'usd' || Number.isInteger(n));
  return (
    <section className="parked-bar budget-hold" role="group" aria-label="Budget reached">
      <span>{hold.message}</span>
      <label>
        {unitLabel}{' '}
        <input type="number" min={0} step={hold.unit === 'usd' ? 0.01 : 1000} value={value} onChange={(e) => setValue(e.target.value)} aria-invalid={!valid} />
      </label>
      <button type="button" className="btn primary" disabled={busy || !valid} onClick={() => void answer(hold.unit === 'usd' ? { usd: n } : { tokens: n })}>
        Raise and continue
      </button>
      <button type="button" className="btn danger" disabled={busy} onClick={() => void answer({ stop: true })}>
        Stop run
      </button>
    </section>
  );
}

/** Twice the old limit, a starting point the person edits. */
function suggest(h: BudgetHoldView): string {
  const next = Math.max(h.limit, h.spent) * 2;
  return h.unit === 'usd' ? next.toFixed(2) : String(Math.ceil(next));
}
