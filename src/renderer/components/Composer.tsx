/** The composer: multi-line; Enter sends, Shift+Enter adds a line; Stop (or Esc) while a run works. */
import { useEffect, useRef, useState } from 'react';
import { api, errorText } from '../api/client';
import { useConversations } from '../state/conversations';
import { useMessages } from '../state/messages';
import { useUi } from '../state/ui';

export function Composer() {
  const conversationId = useConversations((s) => s.selectedId);
  const activeRun = useMessages((s) => s.activeRun);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const running = activeRun?.status === 'running';

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
    if (!conversationId || !value || running || sending) return;
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
        placeholder={running ? 'Deskhand is working… (Esc stops)' : activeRun?.status === 'parked' ? 'A new message closes the paused run' : 'Ask Deskhand to do something in this folder'}
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
        <button type="button" className="btn danger" onClick={() => void stop()} aria-keyshortcuts="Escape">
          Stop
        </button>
      ) : (
        <button type="submit" className="btn primary" disabled={!conversationId || !text.trim() || sending}>
          Send
        </button>
      )}
    </form>
  );
}
