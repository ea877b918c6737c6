/**
 * An MCP server's request for input during a call (elicitation). Form: one labelled field per property of the
 * server's flat schema (text, number, yes/no, a choice, several choices); Submit sends `{action: "accept", content}`,
 * Decline sends `{action: "decline"}` (the server hears it and goes on). URL: the server's message, the full address
 * and its host (never opened by Deskhand on its own), Open (a new tab or the system browser), Done (accept), Decline.
 * The server's text is shown as text; the answer goes to the server, not to the model.
 */
import { useState } from 'react';
import { api } from '../../api/client';
import { RequestFrame, useSubmit, type RequestCardProps } from './shared';

type Field = Record<string, unknown>;
type Value = string | number | boolean | string[];

interface ElicitData {
  mode: 'form' | 'url';
  server: string;
  message: string;
  url?: string;
  host?: string;
  warning?: string | null;
  schema?: { properties?: Record<string, Field>; required?: string[] };
}

function optionsOf(p: Field): { value: string; label: string }[] | null {
  const node = (p.type === 'array' ? p.items : p) as Field | undefined;
  if (!node) return null;
  if (Array.isArray(node.enum)) {
    const names = Array.isArray(node.enumNames) ? (node.enumNames as unknown[]) : [];
    return (node.enum as unknown[]).map((v, i) => ({ value: String(v), label: String(names[i] ?? v) }));
  }
  const alts = (node.oneOf ?? node.anyOf) as Field[] | undefined;
  return Array.isArray(alts) ? alts.map((a) => ({ value: String(a.const), label: String(a.title ?? a.const) })) : null;
}

function initial(props: Record<string, Field>): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [name, p] of Object.entries(props)) {
    if (p.default !== undefined) out[name] = p.default as Value;
    else if (p.type === 'boolean') out[name] = false;
  }
  return out;
}

export function ElicitationCard({ approval, showConversation }: RequestCardProps) {
  const data = (approval.data ?? {}) as ElicitData;
  const props = data.schema?.properties ?? {};
  const required = new Set(data.schema?.required ?? []);
  const [values, setValues] = useState<Record<string, Value>>(() => initial(props));
  const { busy, error, run } = useSubmit();
  const answer = (value: Record<string, unknown>) => void run(() => api().answerRequest({ requestId: approval.approvalId, value: { ...value, by: 'the app' } }));
  const set = (name: string, v: Value | undefined) =>
    setValues((all) => {
      const next = { ...all };
      if (v === undefined || v === '') delete next[name];
      else next[name] = v;
      return next;
    });

  return (
    <RequestFrame
      approval={approval}
      showConversation={showConversation}
      className="elicitation-card"
      chips={<span className="chip">asked by MCP server {data.server}</span>}
      parked="answering resumes it"
      description={<p className="approval-desc">{data.message}</p>}
      error={error}
    >
      {data.mode === 'url' ? (
        <div className="elicitation-url">
          <p className="muted small">
            It asks you to open a page on <strong>{data.host}</strong>:
          </p>
          <pre className="preview-text" aria-label="Address to open">
            {data.url}
          </pre>
          {data.warning && <p className="warning small">{data.warning}</p>}
          <div className="actions approval-actions">
            <a className="btn" href={data.url} target="_blank" rel="noopener noreferrer">
              Open
            </a>
            <button type="button" className="btn primary" disabled={busy} onClick={() => answer({ action: 'accept' })}>
              Done
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => answer({ action: 'decline' })}>
              Decline
            </button>
          </div>
        </div>
      ) : (
        <form
          className="elicitation-form"
          aria-label={`Form of MCP server ${data.server}`}
          onSubmit={(e) => {
            e.preventDefault();
            answer({ action: 'accept', content: values });
          }}
        >
          {Object.entries(props).map(([name, p]) => (
            <FormField key={name} name={name} field={p} required={required.has(name)} value={values[name]} disabled={busy} onChange={(v) => set(name, v)} />
          ))}
          <div className="actions approval-actions">
            <button type="submit" className="btn primary" disabled={busy}>
              Submit
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => answer({ action: 'decline' })}>
              Decline
            </button>
          </div>
        </form>
      )}
    </RequestFrame>
  );
}

function FormField(props: { name: string; field: Field; required: boolean; value: Value | undefined; disabled: boolean; onChange: (v: Value | undefined) => void }) {
  const { name, field: p, required, value, disabled, onChange } = props;
  const label = `${String(p.title ?? name)}${required ? ' (required)' : ''}`;
  const hint = typeof p.description === 'string' ? <span className="muted small"> {p.description}</span> : null;
  const options = optionsOf(p);
  if (p.type === 'boolean') {
    return (
      <label className="elicitation-field">
        <input type="checkbox" checked={value === true} disabled={disabled} onChange={(e) => onChange(e.currentTarget.checked)} /> {label}
        {hint}
      </label>
    );
  }
  if (p.type === 'array' && options) {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="elicitation-field" disabled={disabled}>
        <legend>
          {label}
          {hint}
        </legend>
        {options.map((o) => (
          <label key={o.value}>
            <input type="checkbox" checked={chosen.includes(o.value)} onChange={(e) => onChange(e.currentTarget.checked ? [...chosen, o.value] : chosen.filter((c) => c !== o.value))} /> {o.label}
          </label>
        ))}
      </fieldset>
    );
  }
  if (options) {
    return (
      <label className="elicitation-field">
        {label}
        {hint}
        <select value={typeof value === 'string' ? value : ''} disabled={disabled} onChange={(e) => onChange(e.currentTarget.value || undefined)}>
          <option value="">—</option>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
    );
  }
  const numeric = p.type === 'number' || p.type === 'integer';
  const type = numeric ? 'number' : p.format === 'email' ? 'email' : p.format === 'date' ? 'date' : p.format === 'uri' ? 'url' : 'text';
  return (
    <label className="elicitation-field">
      {label}
      {hint}
      <input
        type={type}
        value={value === undefined ? '' : String(value)}
        disabled={disabled}
        {...(numeric && p.type === 'integer' ? { step: 1 } : {})}
        onChange={(e) => {
          const raw = e.currentTarget.value;
          onChange(raw === '' ? undefined : numeric ? Number(raw) : raw);
        }}
      />
    </label>
  );
}
