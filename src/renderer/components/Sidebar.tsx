/** Conversations grouped by working folder, with search, new, rename and delete. */
import { useState } from 'react';
import type { ConversationSummary } from '../../shared/contract';
import { api, errorText } from '../api/client';
import { groupByFolder, useConversations } from '../state/conversations';
import { selectConversation } from '../state/sync';
import { useUi } from '../state/ui';

export function Sidebar() {
  const list = useConversations((s) => s.list);
  const search = useConversations((s) => s.search);
  const groups = groupByFolder(list, search);

  return (
    <nav className="sidebar" aria-label="Conversations">
      <div className="sidebar-top">
        <button type="button" className="btn primary wide" onClick={() => useUi.getState().openDialog({ kind: 'new' })} aria-keyshortcuts="Control+N Meta+N">
          New conversation
        </button>
        <input
          type="search"
          className="search"
          aria-label="Search conversations"
          placeholder="Search by title"
          value={search}
          onChange={(e) => useConversations.getState().setSearch(e.target.value)}
        />
      </div>
      <div className="groups">
        {groups.length === 0 && <p className="muted small pad">{list.length ? 'No conversation matches.' : 'No conversations yet.'}</p>}
        {groups.map((g) => (
          <section key={g.folder} className="group" aria-label={`Folder ${g.name}`}>
            <h2 className="group-name" title={g.folder}>
              {g.name}
            </h2>
            <ul>
              {g.conversations.map((c) => (
                <ConversationEntry key={c.id} conversation={c} />
              ))}
            </ul>
          </section>
        ))}
      </div>
    </nav>
  );
}

function ConversationEntry({ conversation: c }: { conversation: ConversationSummary }) {
  const selected = useConversations((s) => s.selectedId === c.id);
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState(c.title);

  async function rename() {
    const next = title.trim();
    setRenaming(false);
    if (!next || next === c.title) return;
    try {
      await api().renameConversation({ conversationId: c.id, title: next });
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }

  if (renaming) {
    return (
      <li className="conv-entry renaming">
        <input
          autoFocus
          aria-label={`New title for ${c.title}`}
          value={title}
          maxLength={200}
          onChange={(e) => setTitle(e.target.value)}
          onBlur={() => void rename()}
          onKeyDown={(e) => {
            if (e.key === 'Enter') void rename();
            if (e.key === 'Escape') {
              setTitle(c.title);
              setRenaming(false);
            }
          }}
        />
      </li>
    );
  }
  const dot = c.activity === 'waiting' ? 'waiting for approval' : c.activity === 'running' ? 'running' : null;
  return (
    <li className={`conv-entry ${selected ? 'selected' : ''}`}>
      <button type="button" className="conv-button" aria-current={selected ? 'page' : undefined} onClick={() => selectConversation(c.id)}
        title={`${c.title}\n${c.folder}`}
        aria-label={dot ? `${c.title}, ${dot}` : c.title}
      >
        {dot && <span className={`dot dot-${c.activity}`} aria-hidden="true" />}
        <span className="conv-name">{c.title}</span>
      </button>
      <span className="conv-actions">
        <button
          type="button"
          className="icon-button"
          aria-label={`Rename “${c.title}”`}
          title="Rename"
          onClick={() => {
            setTitle(c.title);
            setRenaming(true);
          }}
        >
          ✎
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={`Delete “${c.title}”`}
          title="Delete"
          onClick={() => useUi.getState().openDialog({ kind: 'delete', conversationId: c.id, title: c.title })}
        >
          ✕
        </button>
      </span>
    </li>
  );
}
