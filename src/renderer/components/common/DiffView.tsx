/** A unified diff with old and new line numbers and word-level marks inside changed lines; anything else is shown as exact text. */
import { memo, useMemo } from 'react';
import { looksLikeUnifiedDiff, parseUnifiedDiff } from '../../../shared/unified-diff';
import { wordChanges } from '../../../shared/word-diff';
import { VisibleText } from './VisibleText';

const MAX_ROWS = 4000;

export const DiffView = memo(function DiffView({ text, label }: { text: string; label: string }) {
  const { rows, words } = useMemo(() => {
    const parsed = looksLikeUnifiedDiff(text) ? parseUnifiedDiff(text) : null;
    return { rows: parsed, words: parsed ? wordChanges(parsed.slice(0, MAX_ROWS)) : new Map<number, never>() };
  }, [text]);
  if (!rows) {
    return (
      <pre className="preview-text" aria-label={label}>
        <VisibleText text={text} mode="content" />
      </pre>
    );
  }
  const shown = rows.slice(0, MAX_ROWS);
  const added = rows.filter((r) => r.kind === 'add').length;
  const removed = rows.filter((r) => r.kind === 'del').length;
  return (
    <div className="diff" role="table" aria-label={`${label}: ${added} lines added, ${removed} removed`}>
      {shown.map((r, i) => (
        <div key={i} role="row" className={`diff-row diff-${r.kind}`}>
          <span role="cell" className="diff-num" aria-label={r.oldLine === null ? undefined : `old line ${r.oldLine}`}>
            {r.oldLine ?? ''}
          </span>
          <span role="cell" className="diff-num" aria-label={r.newLine === null ? undefined : `new line ${r.newLine}`}>
            {r.newLine ?? ''}
          </span>
          <span role="cell" className="diff-sign" aria-hidden="true">
            {r.kind === 'add' ? '+' : r.kind === 'del' ? '−' : ' '}
          </span>
          <span role="cell" className="diff-text">
            {words.has(i) ? (
              words.get(i)!.map((seg, j) =>
                seg.changed ? (
                  <span key={j} className={r.kind === 'add' ? 'diff-word-add' : 'diff-word-del'}>
                    <VisibleText text={seg.text} mode="content" showNewlines={false} />
                  </span>
                ) : (
                  <VisibleText key={j} text={seg.text} mode="content" showNewlines={false} />
                ),
              )
            ) : (
              <VisibleText text={r.text} mode="content" showNewlines={false} />
            )}
          </span>
        </div>
      ))}
      {rows.length > MAX_ROWS && <div className="diff-row diff-note">… {rows.length - MAX_ROWS} more lines not shown</div>}
    </div>
  );
});
