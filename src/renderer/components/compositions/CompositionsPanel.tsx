/** The right panel's compositions: what the agent made in the open conversation, each opened in the viewer. */
import { useEffect } from 'react';
import type { CompositionSummaryView } from '../../../shared/contract';
import { useCompositions } from '../../state/compositions';
import { useConversations } from '../../state/conversations';

const KIND: Record<CompositionSummaryView['kind'], string> = { html: 'Page', svg: 'SVG', image: 'Image', markdown: 'Document' };

export function CompositionsPanel() {
  const selectedId = useConversations((s) => s.selectedId);
  const list = useCompositions((s) => s.list);
  const error = useCompositions((s) => s.error);
  const openId = useCompositions((s) => s.open?.id ?? null);

  useEffect(() => {
    void useCompositions.getState().load(selectedId);
  }, [selectedId]);

  return (
    <aside className={`panel ${list.length === 0 && !error ? 'panel-empty' : ''}`} aria-label="Compositions">
      <h2 className="panel-title">
        Compositions <span className="count">{list.length}</span>
      </h2>
      {error && (
        <p role="alert" className="error-text small">
          {error}
        </p>
      )}
      {!selectedId ? (
        <p className="muted small panel-empty-note">Open a conversation to see its compositions.</p>
      ) : list.length === 0 ? (
        <p className="muted small panel-empty-note">Pages, charts, images and documents the agent makes for you to review appear here.</p>
      ) : (
        <ul className="panel-list">
          {list.map((c) => (
            <li key={c.id}>
              <button
                type="button"
                className={`panel-item ${openId === c.id ? 'here' : ''}`}
                aria-label={`Open composition ${c.title}`}
                onClick={() => void useCompositions.getState().show(c.id)}
              >
                <span className="panel-item-top">
                  <strong>{c.title}</strong>
                </span>
                <span className="panel-item-conv">
                  {KIND[c.kind]} · version {c.latestVersion}
                  {c.approvedVersion !== null ? ` · approved v${c.approvedVersion}` : ''}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
