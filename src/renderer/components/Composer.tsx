/**
 * The composer: multi-line; Enter sends, Shift+Enter adds a line; Stop (or Esc) while a run works. While Deskhand is
 * working (a run the person started, or a turn it started itself when background work ended), Enter queues the
 * message: it is shown as queued and sent when the conversation is idle again.
 */
import { useEffect, useRef, useState } from 'react';
import { api, errorText } from '../api/client';
import { useConversations } from '../state/conversations';
import { useMessages } from '../state/messages';
import { useQueue } from '../state/queue';
import { drainQueue } from '../state/sync';
import { useUi } from '../state/ui';

export function Composer() {
  const conversationId = useConversations((s) => s.selectedId);
  const activeRun = useMessages((s) => s.activeRun);
  const busyInMain = useConversations((s) => s.list.find((c) => c.id === s.selectedId)?.activity === 'running');
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const running = activeRun?.status === 'running' || busyInMain;

  // Opening a conversation puts the cursor here, unless the person asked to see an approval (its card has focus).
  useEffect(() => {
    if (!document.activeElement?.closest('.approval-card')) box.current?.focus();
  }, [conversationId]);

  // Grow with the text up to a limit, then scroll.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 240)}px`;
  }, [text]);

  async function send() {
    const value = text.trim();
    if (!conversationId || !value || sending) return;
    if (running) {
      // Not lost, not a second run: it waits, shown as queued, and goes out when this turn ends.
      useQueue.getState().add(conversationId, value);
      setText('');
      drainQueue();
      return;
    }
    setSending(true);
    setText('');
    const localId = useMessages.getState().addLocalUser(value);
    try {
      const { runId } = await api().sendMessage({ conversationId, text: value });
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
    >
      <textarea
        ref={box}
        aria-label="Message"
        placeholder={
          running
            ? 'Deskhand is working… Enter queues a message for when it is done; Esc stops'
            : activeRun?.status === 'parked'
              ? 'A new message closes the paused run'
              : 'Ask Deskhand to do something in this folder'
        }
        rows={1}
        value={text}
        disabled={!conversationId}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
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
          {text.trim() && (
            <button type="submit" className="btn" aria-label="Queue message" title="Sent when Deskhand finishes this turn">
              Queue
            </button>
          )}
          <button type="button" className="btn danger" onClick={() => void stop()} aria-keyshortcuts="Escape">
            Stop
          </button>
        </>
      ) : (
        <button type="submit" className="btn primary" disabled={!conversationId || !text.trim() || sending}>
          Send
        </button>
      )}
    </form>
  );
}
