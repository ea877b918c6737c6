/**
 * What a person does with a message: copy it or one of its code blocks, edit and resend their own, regenerate the
 * last reply; attachments as chips and thumbnails; tokens and cost per turn and for the conversation; export.
 */
import { useState } from 'react';
import type { MessageItem } from '../../../shared/contract';
import type { AttachmentView, TurnUsage } from '../../../shared/contract/chat';
import { formatBytes } from '../../../shared/attachments';
import { formatUsage } from '../../../shared/prices';
import { api, errorText } from '../../api/client';
import { useChat } from '../../state/chat';
import { useChanges } from '../../state/changes';
import { useConversations } from '../../state/conversations';
import { useMessages } from '../../state/messages';
import { useUi } from '../../state/ui';
import './chat.css';

type UserItem = Extract<MessageItem, { kind: 'user' }>;
type AssistantItem = Extract<MessageItem, { kind: 'assistant' }>;

/** Fenced code blocks of a Markdown text, in order (what "Copy code" offers). */
export function codeBlocks(markdown: string): { lang: string; code: string }[] {
  const out: { lang: string; code: string }[] = [];
  const re = /^(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n([\s\S]*?)\n?^\1[ \t]*$/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) out.push({ lang: m[2] ?? '', code: m[3] ?? '' });
  return out;
}

export function CopyButton({ text, label, title }: { text: string; label: string; title?: string }) {
  const [done, setDone] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      setTimeout(() => setDone(false), 1500);
    } catch (err) {
      useUi.getState().notify(`Could not copy: ${errorText(err)}`);
    }
  }
  return (
    <button type="button" className="link-button msg-action" aria-label={label} title={title ?? label} onClick={() => void copy()}>
      {done ? 'Copied' : title ?? 'Copy'}
    </button>
  );
}

function busy(): boolean {
  const conv = useConversations.getState().list.find((c) => c.id === useConversations.getState().selectedId);
  return !!useMessages.getState().activeRun || conv?.activity === 'running';
}

/** A subagent's transcript is read-only: its parent agent runs it (main refuses a turn started from a UI). */
function useChildTranscript(): boolean {
  return useConversations((s) => !!s.list.find((c) => c.id === s.selectedId)?.subagentOf);
}

/** "Fork": a new conversation with the history up to this message, and nothing after; it opens at once. */
function ForkButton({ itemId }: { itemId: string }) {
  async function fork() {
    const conversationId = useConversations.getState().selectedId;
    if (!conversationId) return;
    try {
      const forked = await api().forkConversation({ conversationId, messageId: itemId });
      useConversations.getState().select(forked.conversationId);
      useUi.getState().notify(`Forked into “${forked.title}”.`);
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }
  return (
    <button type="button" className="link-button msg-action" onClick={() => void fork()} title="Start a new conversation with the history up to this message (this one stays as it is)">
      Fork
    </button>
  );
}

export function UserTools({ item }: { item: UserItem }) {
  const running = useMessages((s) => s.activeRun?.status === 'running');
  const childTranscript = useChildTranscript();
  const stored = /^m\d+$/.test(item.id) && !childTranscript;
  return (
    <div className="msg-actions" role="group" aria-label="Message actions">
      <CopyButton text={item.text} label="Copy message" />
      {stored && (
        <button
          type="button"
          className="link-button msg-action"
          disabled={running}
          title={running ? 'Wait for Deskhand to finish, or stop it, to edit' : 'Edit this message and send it again; the replies after it are replaced'}
          onClick={() => useChat.getState().startEdit(item.id, item.text)}
        >
          Edit
        </button>
      )}
      {stored && (
        <button
          type="button"
          className="link-button msg-action"
          disabled={running}
          title={running ? 'Wait for Deskhand to finish, or stop it, to rewind' : 'Rewind to before this message: its files, the conversation or both (you see what will change first)'}
          onClick={() => useChanges.getState().startRewind(item.id)}
        >
          Rewind
        </button>
      )}
      {stored && <ForkButton itemId={item.id} />}
    </div>
  );
}

export function AssistantTools({ item, last }: { item: AssistantItem; last: boolean }) {
  const running = useMessages((s) => s.activeRun?.status === 'running');
  const child = useChildTranscript();
  const blocks = codeBlocks(item.text);
  async function regenerate() {
    const conversationId = useConversations.getState().selectedId;
    if (!conversationId || busy()) return;
    try {
      const { runId } = await api().regenerate({ conversationId });
      useMessages.getState().setActiveRun({ runId, status: 'running' });
      await useMessages.getState().reload();
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }
  return (
    <div className="msg-actions" role="group" aria-label="Reply actions">
      <CopyButton text={item.text} label="Copy reply" />
      {blocks.map((b, i) => (
        <CopyButton key={i} text={b.code} label={`Copy code block ${i + 1}${b.lang ? ` (${b.lang})` : ''}`} title={blocks.length > 1 ? `Copy code ${i + 1}` : 'Copy code'} />
      ))}
      {last && !running && !child && (
        <button type="button" className="link-button msg-action" onClick={() => void regenerate()} title="Send your last message again for a new reply">
          Regenerate
        </button>
      )}
      {/^m\d+(\.\d+)?$/.test(item.id) && !child && <ForkButton itemId={item.id} />}
      {item.usage && <UsageNote usage={item.usage} label="This turn" />}
    </div>
  );
}

export function UsageNote({ usage, label }: { usage: TurnUsage; label: string }) {
  const text = formatUsage(usage);
  const unknown = usage.costUsd === null && usage.inputTokens + usage.outputTokens > 0;
  return (
    <span className="usage muted small" aria-label={`${label}: ${text}`} title={unknown ? `No price is known for ${usage.models.join(', ')}: tokens only.` : usage.models.join(', ')}>
      {text}
    </span>
  );
}

export function Attachments({ list }: { list: readonly AttachmentView[] }) {
  return (
    <ul className="attachments" aria-label="Attachments">
      {list.map((a, i) => (
        <li key={i} className={`attachment attachment-${a.kind}`} title={`${a.name} (${formatBytes(a.bytes)})`}>
          {a.dataUrl ? <img src={a.dataUrl} alt={a.name} className="attachment-thumb" /> : <span className="attachment-icon" aria-hidden="true">{a.name.split('.').pop()?.slice(0, 4) || 'file'}</span>}
          <span className="attachment-name">{a.name.startsWith('pasted-text-') ? `Pasted text (${a.name})` : a.name}</span>
          <span className="muted small">{formatBytes(a.bytes)}</span>
          {a.preview !== undefined && <TextPreview name={a.name} text={a.preview} bytes={a.bytes} />}
        </li>
      ))}
    </ul>
  );
}

/** A text attachment, collapsed to its chip; "Show" opens its first lines (the model got the whole text). */
function TextPreview({ name, text, bytes }: { name: string; text: string; bytes: number }) {
  const [open, setOpen] = useState(false);
  const whole = new TextEncoder().encode(text).length >= bytes;
  return (
    <>
      <button type="button" className="link-button" aria-expanded={open} aria-label={`${open ? 'Hide' : 'Show'} ${name}`} onClick={() => setOpen(!open)}>
        {open ? 'Hide' : 'Show'}
      </button>
      {open && (
        <div className="attachment-preview">
          <pre aria-label={`Text of ${name}`}>{text}</pre>
          {!whole && <p className="muted small">The beginning is shown here; Deskhand received all of it.</p>}
        </div>
      )}
    </>
  );
}

/** The conversation's tokens and cost, for the header. */
export function ConversationUsage() {
  const usage = useMessages((s) => s.usage);
  if (!usage || usage.inputTokens + usage.outputTokens === 0) return null;
  return <UsageNote usage={usage} label="This conversation" />;
}

/** Export → a Markdown file (a download, in the browser and in the app). */
export function ExportButton({ conversationId }: { conversationId: string }) {
  async function run() {
    try {
      const { markdown, fileName } = await api().exportConversation({ conversationId });
      const url = URL.createObjectURL(new Blob([markdown], { type: 'text/markdown' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = fileName;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }
  return (
    <button type="button" className="btn small" onClick={() => void run()} title="Save this conversation as a Markdown file">
      Export
    </button>
  );
}
