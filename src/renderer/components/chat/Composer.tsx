/**
 * The composer: multi-line; Enter sends, Shift+Enter adds a line; Stop (or Esc) while a run works. While Deskhand is
 * working (a run the person started, or a turn it started itself when background work ended), Enter queues the
 * message (with the files attached to it): it is shown as queued and sent when the conversation is idle again.
 * `/tools` alone opens the tools panel instead of being sent. Typing `/` opens the command menu (CommandMenu.tsx).
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { api, errorText } from '../../api/client';
import { useConversations } from '../../state/conversations';
import { useMessages } from '../../state/messages';
import { useQueue } from '../../state/queue';
import { drainQueue } from '../../state/sync';
import { useUi } from '../../state/ui';
import { useChat } from '../../state/chat';
import { isLongText } from '../../../shared/attachments';
import { ComposerExtras } from './ComposerExtras';
import { CommandMenu, useCommandMenu } from './CommandMenu';
import { isToolsCommand, useConversationTools } from '../../state/conversation-tools';

export function Composer() {
  const conversationId = useConversations((s) => s.selectedId);
  const activeRun = useMessages((s) => s.activeRun);
  const busyInMain = useConversations((s) => s.list.find((c) => c.id === s.selectedId)?.activity === 'running');
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  // Disconnected: no Stop for a run whose state is unknown, and nothing to send to until the connection is back.
  const offline = useUi((s) => s.connection !== 'open');
  const running = !offline && (activeRun?.status === 'running' || busyInMain);
  const editing = useChat((s) => s.editing);
  const attachments = useChat((s) => s.attachments);
  const file = useRef<HTMLInputElement>(null);
  const menu = useCommandMenu(conversationId, text, setText);

  // Edit: the message's text comes into the box; sending replaces the turn from that message on.
  useEffect(() => {
    if (!editing) return;
    setText(editing.text);
    box.current?.focus();
  }, [editing]);
  useEffect(() => () => useChat.getState().cancelEdit(), [conversationId]);

  // Opening a conversation puts the cursor here, unless the person asked to see an approval (its card has focus).
  useEffect(() => {
    if (!document.activeElement?.closest('.approval-card')) box.current?.focus();
  }, [conversationId]);

  const placeholder = offline
    ? 'Not connected to Deskhand; reconnecting…'
    : running
      ? 'Working… Enter queues a message for after; Esc stops'
      : activeRun?.status === 'parked'
        ? 'A new message closes the paused run'
        : 'Ask Deskhand to do something in this folder';

  // Grow with the text (or the placeholder, on a narrow window) up to a limit, then scroll: never a one-line box with
  // scroll arrows around a wrapped placeholder. Before paint, so no frame shows the old height.
  useLayoutEffect(() => {
    const el = box.current;
    if (el) fitBox(el);
  }, [text, placeholder]);
  // And when its width changes (a narrower window wraps the placeholder or the text onto more lines).
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let width = el.clientWidth;
    const ro = new ResizeObserver(() => {
      if (el.clientWidth === width) return;
      width = el.clientWidth;
      fitBox(el);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  async function send() {
    let value = text.trim();
    let chat = useChat.getState();
    if (!conversationId || (!value && !chat.attachments.length) || sending || offline) return;
    // Typed (or dropped) past the limit: it goes as pasted text too, the box keeps nothing.
    if (isLongText(value)) {
      if (!chat.addText(value)) return;
      setText('');
      value = '';
      chat = useChat.getState();
    }
    // `/tools` opens the tools panel; it is not a message to the model.
    if (isToolsCommand(value) && !chat.attachments.length && !chat.editing) {
      setText('');
      useConversationTools.getState().openPanel(true);
      return;
    }
    if (chat.editing) {
      if (running) return useUi.getState().notify('Deskhand is working: wait for it to finish (or stop it) to send this edit.');
      return sendRich(conversationId, value);
    }
    if (running) {
      // Not lost, not a second run: it waits, shown as queued (with its files), and goes out when this turn ends.
      useQueue.getState().add(conversationId, value, chat.attachments);
      chat.clear();
      setText('');
      drainQueue();
      return;
    }
    if (chat.attachments.length) return sendRich(conversationId, value);
    setSending(true);
    setText('');
    const localId = useMessages.getState().addLocalUser(value);
    try {
      const { runId, messageId } = await api().sendMessage({ conversationId, text: value });
      if (messageId) useMessages.getState().settleLocalUser(localId, messageId, runId);
      const current = useMessages.getState().activeRun;
      if (!current || current.runId === runId) useMessages.getState().setActiveRun({ runId, status: 'running' });
    } catch (err) {
      useMessages.getState().removeItem(localId);
      setText(value);
      useUi.getState().notify(errorText(err));
    } finally {
      setSending(false);
    }
  }

  /** An edit, or a message with attachments: sent as is, then the transcript is loaded again from the store. */
  async function sendRich(conversationId: string, value: string) {
    const chat = useChat.getState();
    setSending(true);
    try {
      const { runId } = await api().sendMessage({
        conversationId,
        text: value,
        ...(chat.attachments.length ? { attachments: chat.attachments.map(({ name, mediaType, data }) => ({ name, mediaType, data })) } : {}),
        ...(chat.editing ? { replaceFrom: chat.editing.messageId } : {}),
      });
      setText('');
      chat.clear();
      chat.cancelEdit();
      useMessages.getState().setActiveRun({ runId, status: 'running' });
      await useMessages.getState().reload();
      useMessages.getState().markSent();
    } catch (err) {
      useUi.getState().notify(errorText(err));
    } finally {
      setSending(false);
    }
  }

  function takeFiles(list: FileList | null | undefined): boolean {
    const files = list ? Array.from(list) : [];
    if (!files.length) return false;
    void useChat.getState().addFiles(files);
    return true;
  }

  async function stop() {
    if (!conversationId) return;
    try {
      await api().stopRun({ conversationId });
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('Files')) e.preventDefault();
      }}
      onDrop={(e) => {
        if (takeFiles(e.dataTransfer.files)) e.preventDefault();
      }}
    >
      <ComposerExtras
        onCancelEdit={() => {
          useChat.getState().cancelEdit();
          setText('');
        }}
      />
      <input ref={file} type="file" multiple hidden aria-label="Attach files" onChange={(e) => {
        takeFiles(e.target.files);
        e.target.value = '';
      }} />
      <button type="button" className="btn attach-button" aria-label="Attach a file or image" title="Attach files or images (or drop or paste them here)" disabled={!conversationId} onClick={() => file.current?.click()}>
        Attach
      </button>
      <CommandMenu items={menu.items} selected={menu.selected} pick={(c) => {
        menu.pick(c);
        box.current?.focus();
      }} />
      <textarea
        ref={box}
        aria-label="Message"
        aria-expanded={menu.items.length > 0}
        aria-controls={menu.items.length ? 'command-menu' : undefined}
        aria-activedescendant={menu.items.length ? `command-${menu.selected}` : undefined}
        placeholder={placeholder}
        rows={1}
        value={text}
        disabled={!conversationId}
        onChange={(e) => setText(e.target.value)}
        onPaste={(e) => {
          if (takeFiles(e.clipboardData.files)) return e.preventDefault();
          // A long paste becomes a "pasted text" chip: sent whole as a file, never a wall of text in the box.
          const pasted = e.clipboardData.getData('text/plain');
          if (pasted && isLongText(pasted)) {
            e.preventDefault();
            useChat.getState().addText(pasted);
          }
        }}
        onKeyDown={(e) => {
          if (menu.onKey(e)) return;
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void send();
          } else if (e.key === 'Escape' && running) {
            e.preventDefault();
            void stop();
          }
        }}
      />
      {running ? (
        <>
          {(text.trim() || attachments.length > 0) && (
            <button type="submit" className="btn" aria-label="Queue message" title="Sent when Deskhand finishes this turn">
              Queue
            </button>
          )}
          <button type="button" className="btn danger" onClick={() => void stop()} aria-keyshortcuts="Escape">
            Stop
          </button>
        </>
      ) : (
        <button type="submit" className="btn primary" disabled={offline || !conversationId || (!text.trim() && !attachments.length) || sending} title={offline ? 'Not connected to Deskhand' : undefined}>
          {editing ? 'Send edit' : 'Send'}
        </button>
      )}
    </form>
  );
}

/** The message box's height: its text's (or its placeholder's), up to 240 px; only then does it scroll. */
function fitBox(el: HTMLTextAreaElement): void {
  el.style.height = 'auto';
  el.style.height = `${Math.min(el.scrollHeight + el.offsetHeight - el.clientHeight, 240)}px`;
  el.style.overflowY = el.scrollHeight > el.clientHeight + 1 ? 'auto' : 'hidden';
}
