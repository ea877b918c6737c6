/** Text with control, invisible and look-alike characters shown as labelled marks (see shared/visible-text). */
import { memo, useMemo } from 'react';
import { visibleSegments, type VisibleMode } from '../../../shared/visible-text';

const NAMES: Record<string, string> = {
  control: 'control character',
  invisible: 'invisible character',
  lookalike: 'look-alike character',
  nonascii: 'non-ASCII character',
};

export const VisibleText = memo(function VisibleText({ text, mode = 'strict', showNewlines = true }: { text: string; mode?: VisibleMode; showNewlines?: boolean }) {
  const segments = useMemo(() => visibleSegments(text, mode), [text, mode]);
  return (
    <>
      {segments.map((s, i) => {
        switch (s.kind) {
          case 'plain':
            return s.text;
          case 'newline':
            return showNewlines ? (
              <span key={i}>
                <span className="vis-nl" aria-hidden="true">
                  ↵
                </span>
                {'\n'}
              </span>
            ) : (
              '\n'
            );
          case 'tab':
            return (
              <span key={i} className="vis-tab" title="tab">
                {'⇥\t'}
              </span>
            );
          case 'nonascii':
          case 'lookalike':
            return (
              <span key={i} className={`vis-mark vis-${s.kind}`} title={`${NAMES[s.kind]} ${s.label}`}>
                {s.text}
                <span className="vis-label">{s.label}</span>
              </span>
            );
          default:
            return (
              <span key={i} className={`vis-mark vis-${s.kind}`} title={`${NAMES[s.kind]} ${s.label}`}>
                <span className="vis-label">{s.label}</span>
              </span>
            );
        }
      })}
    </>
  );
});
