/**
 * The frame every right-panel list of the open conversation shares (background tasks, todos, compositions): a
 * titled aside with a count, the load error, a note when no conversation is open or the list is empty, else the list.
 */
import type { ReactNode } from 'react';

export function ConversationPanel(props: {
  /** The panel's name: its title and its accessible label. */
  label: string;
  count: ReactNode;
  error: string | null;
  conversationOpen: boolean;
  empty: boolean;
  /** What the panel shows once a conversation is open (the noun in "Open a conversation to see its …"). */
  noConversationNote: string;
  emptyNote: string;
  children: ReactNode;
}) {
  const { label, count, error, conversationOpen, empty } = props;
  return (
    <aside className={`panel ${empty && !error ? 'panel-empty' : ''}`} aria-label={label}>
      <h2 className="panel-title">
        {label} <span className="count">{count}</span>
      </h2>
      {error && (
        <p role="alert" className="error-text small">
          {error}
        </p>
      )}
      {!conversationOpen ? (
        <p className="muted small panel-empty-note">Open a conversation to see its {props.noConversationNote}.</p>
      ) : empty ? (
        <p className="muted small panel-empty-note">{props.emptyNote}</p>
      ) : (
        props.children
      )}
    </aside>
  );
}
