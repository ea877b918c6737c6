/** The right panel's compositions: what the agent made in the open conversation, each opened in the viewer. */
import { useEffect } from 'react';
import type { CompositionSummaryView } from '../../../shared/contract';
import { useCompositions } from '../../state/compositions';
import { useConversations } from '../../state/conversations';
import { ConversationPanel } from '../common/ConversationPanel';

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
    <ConversationPanel
      label="Compositions"
      count={list.length}
      error={error}
      conversationOpen={!!selectedId}
      empty={list.length === 0}
      noConversationNote="compositions"
      emptyNote="Pages, charts, images and documents the agent makes for you to review appear here."
    >
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
    </ConversationPanel>
  );
}
