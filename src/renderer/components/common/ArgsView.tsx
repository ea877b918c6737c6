/** The exact arguments of a tool call: each field, its full text, with hidden characters made visible. */
import { memo } from 'react';
import { VisibleText } from './VisibleText';

export const ArgsView = memo(function ArgsView({ args, label = 'Arguments' }: { args: unknown; label?: string }) {
  if (!args || typeof args !== 'object' || Array.isArray(args)) {
    return (
      <pre className="args-raw" aria-label={label}>
        <VisibleText text={JSON.stringify(args, null, 2) ?? String(args)} />
      </pre>
    );
  }
  const entries = Object.entries(args as Record<string, unknown>);
  if (entries.length === 0) return <p className="muted">No arguments.</p>;
  return (
    <dl className="args" aria-label={label}>
      {entries.map(([key, value]) => (
        <div key={key} className="arg">
          <dt>{key}</dt>
          <dd>
            <pre className={typeof value === 'string' ? 'arg-string' : 'arg-json'}>
              <VisibleText text={typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value))} />
            </pre>
          </dd>
        </div>
      ))}
    </dl>
  );
});
