/** Above the message box: the message being edited (with Cancel), the files attached to the next message, problems. */
import { formatBytes } from '../../../shared/attachments';
import { useChat, type PendingAttachment } from '../../state/chat';

/** A file waiting to be sent: its thumbnail (images) or extension, and its name. */
export function AttachmentFace({ file }: { file: PendingAttachment }) {
  return (
    <>
      {file.kind === 'image' ? (
        <img src={`data:${file.mediaType};base64,${file.data}`} alt={file.name} className="attachment-thumb" />
      ) : (
        <span className="attachment-icon" aria-hidden="true">
          {file.name.split('.').pop()?.slice(0, 4) || 'file'}
        </span>
      )}
      <span className="attachment-name">{file.name.startsWith('pasted-text-') ? `Pasted text (${file.name})` : file.name}</span>
    </>
  );
}

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
              <AttachmentFace file={a} />
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
