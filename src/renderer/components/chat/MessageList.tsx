/** The conversation's messages in a virtualized list: user and assistant text, tool cards, errors. */
import { memo, useCallback, useMemo, useState } from 'react';
import type { MessageItem } from '../../../shared/contract';
import { forDisplay } from '../../../shared/untrusted-display';
import { useMessages } from '../../state/messages';
import { useUi } from '../../state/ui';
import { api, errorText } from '../../api/client';
import { Markdown } from '../common/Markdown';
import { ToolCard } from './ToolCard';
import { AssistantTools, Attachments, UserTools } from './MessageTools';
import { Transcript } from './Transcript';
import { TurnChangeList } from './TurnChanges';
import { useChanges } from '../../state/changes';
import { useSearch } from '../../state/search';
import { EmptyConversation } from './EmptyConversation';
import { useCompositions } from '../../state/compositions';
import { reviewHeadline } from '../../../shared/review-words';
import { fireReason, parseScheduledFire, type ScheduledFireView } from '../../../shared/scheduled-fire';

/** Estimates by item object (items are immutable: a streamed message is a new object per token). */
const estimates = new WeakMap<MessageItem, number>();

/** A row's height before it is measured; the virtualizer asks for every row whenever the list changes, so it is cached. */
function estimate(item: MessageItem): number {
  let h = estimates.get(item);
  if (h === undefined) estimates.set(item, (h = guess(item)));
  return h;
}

function guess(item: MessageItem): number {
  switch (item.kind) {
    case 'user':
      return 76 + Math.ceil(item.text.length / 100) * 21 + (item.attachments?.length ? 72 : 0);
    case 'assistant': {
      const lines = item.text.split('\n').length;
      return 60 + Math.ceil(item.text.length / 110) * 22 + lines * 4;
    }
    case 'tool':
      return 40;
    case 'error':
      return 48;
    case 'wake':
      return 30 + item.tasks.length * 34;
    case 'review':
      return 64 + Math.ceil(item.text.length / 100) * 21;
    case 'compaction':
      return 72;
    case 'hook':
      return 56 + Math.ceil(item.text.length / 100) * 21;
  }
}

type WakeItem = Extract<MessageItem, { kind: 'wake' }>;
type HookItem = Extract<MessageItem, { kind: 'hook' }>;

/**
 * What a lifecycle hook said: a Stop hook's reason that sent the agent back to work (the agent read it), or a hook's
 * note (a message, a hook that failed) that only the person sees. Never shown as the person's words.
 */
export function HookMessage({ item }: { item: HookItem }) {
  // A project's hook's reason reached the agent inside the untrusted envelope: shown without its markup, said so.
  const shown = forDisplay(item.text);
  const project = shown.sources.length ? " · a project's hook: the agent read it as untrusted content" : '';
  const who = item.toModel ? `From the ${item.event} hook · sent the agent back to work${project}` : `From the ${item.event} hooks · a note for you (the agent did not read it)`;
  return (
    <article className={`msg msg-hook${item.toModel ? ' hook-to-model' : ''}`} aria-label={`From the ${item.event} hook`}>
      <div className="msg-who">{who}</div>
      <div className="hook-text">{shown.text}</div>
    </article>
  );
}
type ReviewItem = Extract<MessageItem, { kind: 'review' }>;

/** A review the person gave in the composition viewer: what they did and their words (never the model's instructions). */
function ReviewEvent({ item }: { item: ReviewItem }) {
  const headline = reviewHeadline(item);
  return (
    <article className={`msg msg-review review-${item.action}`} aria-label={`Review: ${headline}`}>
      <div className="review-head">
        <span className="review-icon" aria-hidden="true">
          {item.action === 'approve' ? '✓' : item.action === 'changes' ? '✎' : '💬'}
        </span>
        <strong>{headline}</strong>
        <button type="button" className="link-button small" onClick={() => void useCompositions.getState().show(item.composition)}>
          Open
        </button>
      </div>
      {item.text && <div className="review-text">{item.text}</div>}
      {item.action === 'comment' && <p className="muted small">A comment does not start a run; the agent reads it with your next message.</p>}
    </article>
  );
}

/** A turn Deskhand started because background work ended: what ended, its title, the output on request. */
function WakeMessage({ item }: { item: WakeItem }) {
  const label = item.tasks.length === 1 ? `${item.tasks[0]!.headline}: ${item.tasks[0]!.title}` : 'Background work ended';
  return (
    <article className="msg msg-wake" aria-label={label}>
      <div className="msg-who" aria-hidden="true">
        Deskhand · background work ended
      </div>
      {item.tasks.map((t) => (
        <WakeTask key={t.id} task={t} />
      ))}
    </article>
  );
}

function WakeTask({ task }: { task: WakeItem['tasks'][number] }) {
  const [open, setOpen] = useState(false);
  return (
    <div className={`wake-task wake-${task.kind}`}>
      <button type="button" className="wake-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="wake-icon" aria-hidden="true">
          {task.kind === 'wait_for' ? '◷' : task.kind === 'job_batch' ? '≡' : task.kind === 'question' ? '?' : '⚙'}
        </span>
        <strong className="wake-headline">{task.headline}</strong>
        <span className="wake-title">{task.title}</span>
        <span className="wake-id">{task.id}</span>
        <span className="chev" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
      </button>
      {task.notice && <p className="wake-notice">{task.notice}</p>}
      {open && (
        <pre className="tool-output wake-output" aria-label={`Output of ${task.title}`}>
          {task.output}
        </pre>
      )}
    </div>
  );
}

/** The way out of a failed run: send the last message again, or fix the provider first. */
function RunFailedActions({ text }: { text: string }) {
  const conversationId = useMessages((s) => s.conversationId);
  const running = useMessages((s) => s.activeRun !== null);
  const provider = /model API|model server|Settings|provider|key/i.test(text);
  async function retry() {
    if (!conversationId) return;
    try {
      const { runId } = await api().regenerate({ conversationId });
      useMessages.getState().setActiveRun({ runId, status: 'running' });
      await useMessages.getState().reload();
      useMessages.getState().markSent();
    } catch (err) {
      useUi.getState().notify(errorText(err));
    }
  }
  return (
    <span className="msg-error-actions">
      <button type="button" className="btn small" disabled={running} onClick={() => void retry()} title="Send your last message again">
        Retry
      </button>
      {provider && (
        <button type="button" className="btn small" onClick={() => useUi.getState().setView('settings')}>
          Open Settings
        </button>
      )}
    </span>
  );
}

/** Lines of a user message shown before "Show all": an old message holding a long paste is not a wall. */
const USER_TEXT_LINES = 40;

function UserText({ text }: { text: string }) {
  const [all, setAll] = useState(false);
  const lines = useMemo(() => text.split('\n').length, [text]);
  const long = lines > USER_TEXT_LINES || text.length > 8000;
  if (!long || all) return <div className="msg-user-text">{text}</div>;
  // Only the start is in the DOM: a 2,000-line message costs as much as a 40-line one until it is opened.
  const start = text.slice(0, 8000).split('\n').slice(0, USER_TEXT_LINES).join('\n');
  return (
    <>
      <div className="msg-user-text clamped">{start}</div>
      <button type="button" className="link-button" onClick={() => setAll(true)}>
        Show all {lines.toLocaleString()} lines
      </button>
    </>
  );
}

/** A scheduled prompt that woke the conversation: an event (what fired, when, why), not the person's words. */
export function ScheduledFireEvent({ fire }: { fire: ScheduledFireView }) {
  return (
    <article className="msg msg-wake msg-scheduled" aria-label={`Scheduled prompt fired: ${fire.prompt.slice(0, 80)}`}>
      <div className="msg-who" aria-hidden="true">
        Deskhand · scheduled prompt fired at {fire.firedAt}
      </div>
      <div className="msg-user-text">{fire.prompt}</div>
      <p className="muted small">{fireReason(fire)}</p>
    </article>
  );
}

const Item = memo(function Item({ item, last, turnEnd }: { item: MessageItem; last: boolean; turnEnd: string | null }) {
  if (!turnEnd) return <ItemBody item={item} last={last} />;
  // The last item of a turn: what the turn changed on disk follows it.
  return (
    <>
      <ItemBody item={item} last={last} />
      <TurnChangeList messageId={turnEnd} />
    </>
  );
});

function ItemBody({ item, last }: { item: MessageItem; last: boolean }) {
  switch (item.kind) {
    case 'user': {
      const fire = item.from ? null : parseScheduledFire(item.text);
      if (fire) return <ScheduledFireEvent fire={fire} />;
      return (
        <article className="msg msg-user" aria-label={item.from ? `From ${item.from}` : 'You'}>
          <div className="msg-who" aria-hidden="true">
            {item.from ? `From ${item.from}` : 'You'}
          </div>
          {item.text && <UserText text={item.text} />}
          {item.attachments?.length ? <Attachments list={item.attachments} /> : null}
          <UserTools item={item} />
        </article>
      );
    }
    case 'assistant':
      return (
        <article className="msg msg-assistant" aria-label="Deskhand">
          {item.thinking ? (
            <details className="msg-thinking">
              <summary>Thinking</summary>
              <div className="msg-thinking-text">{item.thinking}</div>
            </details>
          ) : null}
          {item.text ? <Markdown text={item.text} /> : null}
          <AssistantTools item={item} last={last} />
        </article>
      );
    case 'tool':
      return (
        <div className="msg msg-tool">
          <ToolCard item={item} />
        </div>
      );
    case 'error':
      return (
        <div className={`msg msg-${item.severity}`} role={item.severity === 'error' ? 'alert' : 'status'}>
          <strong>{item.severity === 'error' ? 'The run failed: ' : ''}</strong>
          {item.text}
          {item.severity === 'error' && last && <RunFailedActions text={item.text} />}
        </div>
      );
    case 'wake':
      return <WakeMessage item={item} />;
    case 'review':
      return <ReviewEvent item={item} />;
    case 'compaction':
      return <CompactionRecord item={item} />;
    case 'hook':
      return <HookMessage item={item} />;
  }
}

/** Item id → the person's message whose turn it ends, for the turns that changed files. */
function turnEnds(items: readonly MessageItem[], changed: Readonly<Record<string, unknown>>): Map<string, string> {
  const ends = new Map<string, string>();
  let turn: string | null = null;
  let lastId: string | null = null;
  const close = () => {
    if (turn && lastId && changed[turn]) ends.set(lastId, turn);
  };
  for (const i of items) {
    if (i.kind === 'user') {
      close();
      turn = i.id;
    }
    lastId = i.id;
  }
  close();
  return ends;
}

const COMPACTION_REASON: Record<string, string> = {
  auto: 'the context reached its threshold',
  tool: 'Deskhand asked for it (summarize_context)',
  refused: 'the provider refused the request as too long',
};

/** A compaction: what the model no longer sees verbatim (with sizes), and the summary that stands for it. */
function CompactionRecord({ item }: { item: Extract<MessageItem, { kind: 'compaction' }> }) {
  const chars = item.dropped.reduce((n, d) => n + d.chars, 0);
  return (
    <article className="msg msg-notice msg-compaction" aria-label="Context compacted">
      <strong>Context compacted</strong> because {COMPACTION_REASON[item.reason] ?? item.reason}: {item.dropped.length} earlier messages ({chars.toLocaleString('en-US')} characters) were replaced by a summary in
      what the model sees; about {item.tokensBefore.toLocaleString('en-US')} tokens became {item.tokensAfter.toLocaleString('en-US')}. This transcript keeps every message; your own messages, the plan, todos and work state stay pinned.
      <details>
        <summary>What was dropped</summary>
        <ul aria-label="Dropped messages">
          {item.dropped.map((d, i) => (
            <li key={i}>
              {d.role === 'user' ? 'A message to Deskhand' : d.role === 'assistant' ? 'A reply' : d.role === 'tool' ? 'Tool results' : d.role}, {d.chars.toLocaleString('en-US')} characters
              {d.tools.length ? ` (calls: ${d.tools.join(', ')})` : ''}
            </li>
          ))}
        </ul>
      </details>
      {item.kept && (
        <details>
          <summary>What was kept word for word</summary>
          <ul aria-label="Kept messages">
            <li>
              The last {item.kept.messages} messages ({item.kept.chars.toLocaleString('en-US')} characters)
            </li>
            <li>
              Your own messages before it, pinned: {item.kept.instructions.length}
              {item.kept.instructions.some((i) => i.cut) ? ' (the longest keep their start; Deskhand can read the rest back by id)' : ''}
            </li>
            {item.kept.state.length > 0 && <li>Pinned: {item.kept.state.join(', ')}</li>}
          </ul>
        </details>
      )}
      <details>
        <summary>The summary the model sees instead</summary>
        <p className="compaction-summary">{item.summary}</p>
      </details>
    </article>
  );
}

export function MessageList() {
  const items = useMessages((s) => s.items);
  const generation = useMessages((s) => s.generation);
  // The newest reply offers "Regenerate" (only when it ends the conversation).
  // A failed run's error, when it ends the conversation, offers Retry and Open Settings.
  const lastReply = useMessages((s) => (s.items.at(-1)?.kind === 'assistant' || s.items.at(-1)?.kind === 'error' ? s.items.at(-1)!.id : null));
  const changed = useChanges((s) => s.byMessage);
  // Stable while tokens stream (the items change, the turns' ends do not): rows are not all rendered again per token.
  const endsKey = useMemo(() => JSON.stringify([...turnEnds(items, changed)]), [items, changed]);
  const ends = useMemo(() => new Map(JSON.parse(endsKey) as [string, string][]), [endsKey]);
  const render = useCallback((item: MessageItem) => <Item item={item} last={item.id === lastReply} turnEnd={ends.get(item.id) ?? null} />, [lastReply, ends]);
  const conversationId = useMessages((s) => s.conversationId);
  const focus = useSearch((s) => (s.focus && s.focus.conversationId === conversationId ? s.focus : null));
  const loading = useMessages((s) => s.loading);
  const sent = useMessages((s) => s.sent);
  if (!items.length && !loading && conversationId) return <EmptyConversation />;
  return <Transcript key={generation} items={items} estimate={estimate} render={render} generation={generation} label="Messages" focus={focus} sent={sent} />;
}
