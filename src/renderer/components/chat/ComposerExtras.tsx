/** Above the message box: the message being edited (with Cancel), the files attached to the next message, problems. */
import { formatBytes } from '../../../shared/attachments';
import { useChat } from '../../state/chat';

export function ComposerExtras({ onCancelEdit }: { onCancelEdit: () => void }) {
  const editing = useChat((s) => s.editing);
  const attachments = useChat((s) => s.attachments);
  const problem = useChat((s) => s.problem);
  if (!editing && !attachments.length && !problem) return null;
  return (
    <div className="composer-extras">
      {editing && (
        <div className="editing-bar" role="status">
          Editing your message: sending replaces it and every reply after it (the old replies are kept aside, not shown).
          <button type="button" className="link-button" onClick={onCancelEdit}>
            Cancel edit
          </button>
        </div>
      )}
      {attachments.length > 0 && (
        <ul className="attachments pending" aria-label="Files to send">
          {attachments.map((a) => (
            <li key={a.id} className={`attachment attachment-${a.kind}`}>
              {a.kind === 'image' ? <img src={`data:${a.mediaType};base64,${a.data}`} alt={a.name} className="attachment-thumb" /> : <span className="attachment-icon" aria-hidden="true">{a.name.split('.').pop()?.slice(0, 4) || 'file'}</span>}
              <span className="attachment-name">{a.name}</span>
              <span className="muted small">{formatBytes(a.bytes)}</span>
              <button type="button" className="link-button" aria-label={`Remove ${a.name}`} onClick={() => useChat.getState().remove(a.id)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {problem && (
        <p role="alert" className="error-text small">
          {problem}
        </p>
      )}
    </div>
  );
}
