/**
 * The open conversation's browser session: the current tab's title and URL, a live strip of the latest screenshots,
 * and Stop (closes the session). Shown only while a session is open.
 */
import { useEffect } from 'react';
import { useBrowser } from '../../state/browser';
import { useConversations } from '../../state/conversations';

export function BrowserPanel() {
  const selectedId = useConversations((s) => s.selectedId);
  const session = useBrowser((s) => s.session);
  const strip = useBrowser((s) => s.strip);
  const error = useBrowser((s) => s.error);

  useEffect(() => {
    void useBrowser.getState().load(selectedId);
  }, [selectedId]);

  if (!session) return null;
  return (
    <aside className="panel browser-panel" aria-label="Browser">
      <h2 className="panel-title">
        Browser <span className="count">{session.tabs > 1 ? `${session.tabs} tabs` : ''}</span>
      </h2>
      <p className="browser-page">
        <strong className="browser-title">{session.title || '(no title)'}</strong>
        <br />
        <span className="muted small browser-url">{session.url}</span>
      </p>
      {strip.length > 0 && (
        <div className="browser-strip" aria-label="Latest screenshots">
          {strip.map((src, i) => (
            <img key={i} src={src} alt={i === strip.length - 1 ? `The page now: ${session.title}` : 'An earlier view of the page'} className={i === strip.length - 1 ? 'current' : ''} />
          ))}
        </div>
      )}
      {error && (
        <p role="alert" className="error-text small">
          {error}
        </p>
      )}
      <button type="button" className="btn danger" onClick={() => void useBrowser.getState().stop()}>
        Stop browsing
      </button>
    </aside>
  );
}
