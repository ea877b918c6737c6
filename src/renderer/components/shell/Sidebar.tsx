/** Conversations grouped by working folder, with search, new, rename and delete. */
import { useState } from 'react';
import type { ConversationSummary } from '../../../shared/contract';
import { api, errorText } from '../../api/client';
import { groupByFolder, useConversations } from '../../state/conversations';
import { selectConversation } from '../../state/sync';
import { useUi } from '../../state/ui';
import { useSearch } from '../../state/search';

export function Sidebar() {
  const list = useConversations((s) => s.list);
  const search = useConversations((s) => s.search);
  const groups = groupByFolder(list, search);

  return (
    <nav className="sidebar" aria-label="Conversations">
      <div className="sidebar-top">
        <button type="button" className="btn primary wide" onClick={() => useUi.getState().openDialog({ kind: 'new' })} aria-keyshortcuts="Alt+N Control+N Meta+N" title="New conversation (Alt+N)">
          New conversation
        </button>
        <input
          type="search"
          className="search"
          aria-label="Search conversations"
          aria-keyshortcuts="Control+K Meta+K /"
          placeholder="Search titles and messages"
          value={search}
          onChange={(e) => {
            useConversations.getState().setSearch(e.target.value);
            useSearch.getState().run(e.target.value);
          }}
        />
      </div>
      <div className="groups">
        {groups.length === 0 && <p className="muted small pad">{list.length ? 'No conversation title matches.' : 'No conversations yet.'}</p>}
        <MessageMatches />
        {groups.map((g) => (
          <section key={g.folder} className="group" aria-label={`Folder ${g.name}`}>
            {/* A folder with one conversation needs no heading of its own: its folder is in the entry's tooltip. */}
            {g.conversations.length > 1 && (
              <h2 className="group-name" title={g.folder}>
                {g.name}
              </h2>
            )}
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

  // Disconnected: what main last said may be over; a run's state is unknown until the connection is back.
  const offline = useUi((u) => u.connection !== 'open');
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
  const dot = c.activity === 'idle' ? null : offline ? 'state unknown while disconnected' : c.activity === 'waiting' ? 'waiting for approval' : 'running';
  return (
    <li className={`conv-entry ${selected ? 'selected' : ''}`}>
      <button type="button" className="conv-button" aria-current={selected ? 'page' : undefined} onClick={() => selectConversation(c.id)}
        title={`${c.title}\n${c.folder}`}
        aria-label={dot ? `${c.title}, ${dot}` : c.title}
      >
        {dot && <span className={`dot dot-${offline ? 'unknown' : c.activity}`} aria-hidden="true" />}
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

/** Messages whose text matches the search, newest first; a click opens the conversation at the message. */
function MessageMatches() {
  const { query, matches, searching, error } = useSearch();
  if (query.trim().length < 2) return null;
  return (
    <section className="group message-matches" aria-label="Messages matching the search">
      <h2 className="group-name">Messages</h2>
      {searching && matches.length === 0 && <p className="muted small pad">Searching…</p>}
      {!searching && !error && matches.length === 0 && <p className="muted small pad">No message matches.</p>}
      {error && (
        <p role="alert" className="error-text small pad">
          {error}
        </p>
      )}
      <ul>
        {matches.map((m) => (
          <li key={m.itemId}>
            <button type="button" className="match" onClick={() => useSearch.getState().jump(m)} aria-label={`${m.conversationTitle}: ${plain(m.snippet)}`}>
              <span className="match-title">{m.conversationTitle}</span>
              <span className="match-snippet">
                <Snippet text={m.snippet} />
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

const plain = (snippet: string) => snippet.replace(/[\u0002\u0003]/g, '');

/** The snippet with matched words marked (main marks them with \u0002 … \u0003; nothing is parsed as HTML). */
function Snippet({ text }: { text: string }) {
  const parts = text.split(/([\u0002][^\u0003]*[\u0003])/);
  return (
    <>
      {parts.map((p, i) => (p.startsWith('\u0002') ? <mark key={i}>{p.slice(1, -1)}</mark> : <span key={i}>{p}</span>))}
    </>
  );
}

