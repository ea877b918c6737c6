/**
 * A question request (ask_user_question): each question with its header, its options as radio buttons (checkboxes
 * when several may be chosen) with what each means, and an "Other" choice that takes the person's own words. Submit
 * sends `{answers: {question: label | own words | [..]}}` (answerRequest); Decline denies with an optional reason.
 */
import { useId, useState } from 'react';
import { api } from '../../api/client';
import { DenyGroup, RequestFrame, deny, useSubmit, type RequestCardProps } from './shared';

export interface Question {
  question: string;
  header: string | null;
  options: { label: string; description: string }[];
  multiSelect: boolean;
}

/** The questions of a request's data, or null when it does not hold any (the fallback card shows it then). */
export function questionsOf(data: unknown): Question[] | null {
  const qs = (data as { questions?: unknown } | null)?.questions;
  if (!Array.isArray(qs) || qs.length === 0) return null;
  const out: Question[] = [];
  for (const q of qs as Record<string, unknown>[]) {
    if (!q || typeof q.question !== 'string' || !Array.isArray(q.options)) return null;
    const options = (q.options as Record<string, unknown>[]).filter((o) => o && typeof o.label === 'string');
    out.push({
      question: q.question,
      header: typeof q.header === 'string' && q.header ? q.header : null,
      options: options.map((o) => ({ label: o.label as string, description: typeof o.description === 'string' ? o.description : '' })),
      multiSelect: q.multiSelect === true,
    });
  }
  return out;
}

interface Choice {
  chosen: string[];
  other: boolean;
  text: string;
}

const EMPTY: Choice = { chosen: [], other: false, text: '' };

export function QuestionCard({ approval, showConversation }: RequestCardProps) {
  const questions = questionsOf(approval.data) ?? [];
  const { busy, error, setError, run } = useSubmit();
  const [choices, setChoices] = useState<Choice[]>(() => questions.map(() => EMPTY));
  const [reason, setReason] = useState('');
  const formId = useId();

  const update = (i: number, change: (c: Choice) => Choice) => {
    setError(null);
    setChoices((all) => all.map((c, k) => (k === i ? change(c) : c)));
  };

  function submit() {
    const answers: Record<string, string | string[]> = {};
    for (const [i, q] of questions.entries()) {
      const c = choices[i] ?? EMPTY;
      const own = c.text.trim();
      if (c.other && !own) return setError(`Write your own answer to “${q.question}”, or choose one of its options.`);
      const picked = [...(q.multiSelect || !c.other ? c.chosen : []), ...(c.other ? [own] : [])];
      if (picked.length === 0) return setError(`Answer “${q.question}”: choose an option, or choose Other and write your own answer.`);
      answers[q.question] = q.multiSelect ? picked : picked[0]!;
    }
    void run(() => api().answerRequest({ requestId: approval.approvalId, value: { answers } }));
  }

  return (
    <RequestFrame
      approval={approval}
      showConversation={showConversation}
      className="question-card"
      description={<p className="approval-desc">{approval.description}</p>}
      error={error}
    >
      <form
        className="question-form"
        aria-label="Your answers"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        {questions.map((q, i) => (
          <QuestionField key={q.question} id={`${formId}-${i}`} question={q} choice={choices[i] ?? EMPTY} disabled={busy} onChange={(change) => update(i, change)} />
        ))}
        <div className="actions approval-actions">
          <button type="submit" className="btn primary" disabled={busy}>
            Submit answers
          </button>
          <DenyGroup reason={reason} setReason={setReason} busy={busy} onDeny={() => void run(() => deny(approval.approvalId, reason))} verb="Decline" />
        </div>
      </form>
    </RequestFrame>
  );
}

function QuestionField(props: { id: string; question: Question; choice: Choice; disabled: boolean; onChange: (change: (c: Choice) => Choice) => void }) {
  const { id, question: q, choice, disabled, onChange } = props;
  const type = q.multiSelect ? 'checkbox' : 'radio';
  const pick = (label: string, on: boolean) =>
    onChange((c) => (q.multiSelect ? { ...c, chosen: on ? [...c.chosen.filter((l) => l !== label), label] : c.chosen.filter((l) => l !== label) } : { ...c, chosen: [label], other: false }));
  return (
    <fieldset className="question" aria-labelledby={`${id}-q`} disabled={disabled}>
      <legend>
        {q.header && <span className="chip question-header">{q.header}</span>}
        <span id={`${id}-q`} className="question-text">
          {q.question}
        </span>
        {q.multiSelect && <span className="muted small"> (choose any)</span>}
      </legend>
      <ul className="question-options">
        {q.options.map((o, k) => (
          <li key={o.label}>
            <label className="question-option">
              <input
                type={type}
                name={id}
                checked={choice.chosen.includes(o.label) && (q.multiSelect || !choice.other)}
                onChange={(e) => pick(o.label, e.currentTarget.checked)}
                aria-describedby={o.description ? `${id}-d${k}` : undefined}
              />
              <span>{o.label}</span>
            </label>
            {o.description && (
              <span id={`${id}-d${k}`} className="question-desc muted small">
                {o.description}
              </span>
            )}
          </li>
        ))}
        <li className="question-other">
          <label className="question-option">
            <input
              type={type}
              name={id}
              checked={choice.other}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                onChange((c) => ({ ...c, other: on, chosen: q.multiSelect ? c.chosen : [] }));
              }}
            />
            <span>Other</span>
          </label>
          <input
            type="text"
            className="question-own"
            aria-label="Your own answer"
            placeholder="Your own answer"
            maxLength={2000}
            value={choice.text}
            onChange={(e) => {
              const text = e.currentTarget.value;
              onChange((c) => ({ ...c, text, other: text.trim() ? true : c.other, chosen: q.multiSelect || !text.trim() ? c.chosen : [] }));
            }}
          />
        </li>
      </ul>
    </fieldset>
  );
}
