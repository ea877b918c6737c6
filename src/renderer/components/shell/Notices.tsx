import { useConversations } from '../../state/conversations';
import { useUi } from '../../state/ui';

/**
 * Toasts. Inside a conversation they sit at the top of the transcript (ConversationView places them there), elsewhere
 * under the top bar: never over the composer's Send/Stop or an approval card's Deny. Info notices fade on their own
 * (ui.ts); errors stay until dismissed. Both regions exist before a notice arrives, so screen readers announce it.
 */
export function Notices({ inConversation = false }: { inConversation?: boolean }) {
  const all = useUi((s) => s.notices);
  const selectedId = useConversations((s) => s.selectedId);
  const notices = all.filter((n) => n.conversationId === null || n.conversationId === selectedId);
  const shown = (kind: 'error' | 'info') =>
    notices
      .filter((n) => n.kind === kind)
      .map((n) => (
        <div key={n.id} className={`notice notice-${n.kind}`}>
          <span>{n.text}</span>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => useUi.getState().dismiss(n.id)}>
            ✕
          </button>
        </div>
      ));
  return (
    <div className={`notices ${inConversation ? 'in-conversation' : ''}`} aria-label="Notices">
      {/* An alert is announced as it appears; the status region is always there so polite notices are heard too. */}
      {notices.some((n) => n.kind === 'error') && (
        <div role="alert" className="notice-group">
          {shown('error')}
        </div>
      )}
      <div role="status" aria-live="polite" className="notice-group">
        {shown('info')}
      </div>
    </div>
  );
}
