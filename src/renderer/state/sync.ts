/**
 * Keeps the slices in step with main: loads the lists at start, applies pushed events, and reloads everything after a
 * reconnect. Run events are applied once per animation frame, so a fast stream costs one render per frame.
 */
import { startPageNotifications } from './page-notify';
import type { RunEvent } from '../../shared/events';
import type { ConversationSummary } from '../../shared/contract';
import { api, errorText, onConnection } from '../api/client';
import { useApprovals } from './approvals';
import { useCompositions } from './compositions';
import { useConversations } from './conversations';
import { useMessages } from './messages';
import { useQueue, type QueuedMessage } from './queue';
import { useSettings } from './settings';
import { useTasks } from './tasks';
import { useTodos } from './todos';
import { useBrowser } from './browser';
import { useTools } from './tools';
import { useUi } from './ui';

let queue: RunEvent[] = [];
let scheduled = false;

function flush(): void {
  scheduled = false;
  const batch = queue;
  queue = [];
  if (batch.length) useMessages.getState().apply(batch);
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  // Hidden pages get no animation frames; a timer keeps them current.
  if (document.visibilityState === 'visible') requestAnimationFrame(flush);
  else setTimeout(flush, 50);
}

export async function refreshAll(): Promise<void> {
  const a = api();
  try {
    const [host, conversations, approvals, settings] = await Promise.all([
      a.getHostInfo({}),
      a.listConversations({}),
      a.listPendingApprovals({}),
      a.getSettings({}),
      useTools.getState().load(),
    ]);
    useUi.getState().setHost(host);
    const firstLoad = !useConversations.getState().loaded;
    useConversations.getState().setList(conversations.conversations);
    useApprovals.getState().set(approvals.approvals);
    useSettings.getState().set(settings);
    // A new window (or tab) opens the conversation in its address, else the last one opened, else the newest.
    const fromAddress = firstLoad && !useConversations.getState().selectedId ? firstConversation(conversations.conversations) : null;
    if (fromAddress) {
      selectConversation(fromAddress);
      await Promise.all([useTasks.getState().load(fromAddress), useTodos.getState().load(fromAddress)]);
      return;
    }
    const selected = useConversations.getState().selectedId;
    if (selected) await Promise.all([useMessages.getState().reload(), useTasks.getState().load(selected), useTodos.getState().load(selected), useBrowser.getState().load(selected)]);
  } catch (err) {
    useUi.getState().notify(`Could not load from Deskhand: ${errorText(err)}`);
  }
}

export function startSync(): () => void {
  const a = api();
  const offs = [
    a.on('run', (e) => {
      queue.push(e);
      schedule();
    }),
    a.on('conversationsChanged', ({ conversations, changedElsewhere }) => {
      useConversations.getState().setList(conversations);
      // Another process continued the open conversation (a reminder fired, `deskhand run --conversation`): load it again.
      // Main names only conversations with no run of this host, so nothing streaming here is reloaded under the reader;
      // a run shown as active after such a load is the other process's, and its next stored step loads again too.
      const messages = useMessages.getState();
      if (messages.conversationId && changedElsewhere?.includes(messages.conversationId)) {
        const id = messages.conversationId;
        void Promise.all([messages.reload(), useTasks.getState().load(id), useTodos.getState().load(id)]).catch((err: unknown) => useUi.getState().notify(`Could not load the conversation again: ${errorText(err)}`));
      }
    }),
    a.on('approvalsChanged', ({ approvals }) => useApprovals.getState().set(approvals)),
    a.on('openApproval', ({ approvalId, conversationId }) => openApproval(conversationId, approvalId)),
    a.on('openConversation', ({ conversationId }) => selectConversation(conversationId)),
    a.on('newConversation', () => useUi.getState().openDialog({ kind: 'new' })),
    a.on('backgroundTasksChanged', ({ conversationId }) => {
      if (conversationId === useTasks.getState().conversationId) void useTasks.getState().load(conversationId);
    }),
    a.on('compositionsChanged', ({ conversationId }) => {
      const c = useCompositions.getState();
      void c.load(c.conversationId);
      void c.refreshOpen();
      // A review is an event of its conversation's transcript: show it there (a run it started streams as usual).
      const m = useMessages.getState();
      if (conversationId && conversationId === m.conversationId && !m.activeRun) void m.reload();
    }),
    a.on('todosChanged', ({ conversationId, todos }) => useTodos.getState().set(conversationId, todos)),
    a.on('browserChanged', ({ conversationId, session }) => useBrowser.getState().set(conversationId, session)),
    a.on('toolsChanged', () => void useTools.getState().load().catch((err: unknown) => useUi.getState().notify(`Could not load the tool list: ${errorText(err)}`))),
    // Queued messages go out when their conversation is idle again.
    useConversations.subscribe(drainQueue),
    useMessages.subscribe((s, prev) => {
      if (s.activeRun !== prev.activeRun) drainQueue();
    }),
  ];
  offs.push(startPageNotifications(openApproval));
  let first = true;
  offs.push(
    onConnection((state) => {
      useUi.getState().setConnection(state);
      if (state === 'open') {
        // After a reconnect, events may have been missed: load everything again.
        if (!first) void refreshAll();
        first = false;
      }
    }),
  );
  void refreshAll();
  return () => offs.forEach((off) => off());
}

let retry: ReturnType<typeof setTimeout> | null = null;

/**
 * Sends the first queued message whose conversation is idle (no run working, nothing waiting for the person), one at
 * a time. A conversation that turned busy again meanwhile (another wake-up) answers "conflict": tried again shortly.
 */
export function drainQueue(): void {
  const queue = useQueue.getState();
  if (queue.sending) return;
  const conversations = useConversations.getState();
  const messages = useMessages.getState();
  for (const item of queue.items) {
    if (item.error) continue;
    const conv = conversations.list.find((c) => c.id === item.conversationId);
    if (!conv) {
      if (conversations.loaded) queue.remove(item.id); // the conversation was deleted
      continue;
    }
    if (conv.activity !== 'idle' || (messages.conversationId === conv.id && messages.activeRun)) continue;
    void sendQueued(item);
    return;
  }
}

async function sendQueued(item: QueuedMessage): Promise<void> {
  useQueue.getState().setSending(item.id);
  const open = () => useMessages.getState().conversationId === item.conversationId;
  const files = item.attachments.map(({ name, mediaType, data }) => ({ name, mediaType, data }));
  // With files, the message is shown as the store has it (with its attachments) once sent; without, at once.
  const localId = open() && !files.length ? useMessages.getState().addLocalUser(item.text) : null;
  try {
    const { runId, messageId } = await api().sendMessage({ conversationId: item.conversationId, text: item.text, ...(files.length ? { attachments: files } : {}) });
    useQueue.getState().remove(item.id);
    if (localId && messageId) useMessages.getState().settleLocalUser(localId, messageId, runId);
    if (open()) {
      const current = useMessages.getState().activeRun;
      if (!current || current.runId === runId) useMessages.getState().setActiveRun({ runId, status: 'running' });
      if (files.length) await useMessages.getState().reload();
    }
  } catch (err) {
    if (localId) useMessages.getState().removeItem(localId);
    if ((err as { code?: unknown }).code === 'conflict') {
      if (retry) clearTimeout(retry);
      retry = setTimeout(() => {
        retry = null;
        drainQueue();
      }, 1000);
    } else {
      useQueue.getState().fail(item.id, errorText(err));
    }
  } finally {
    useQueue.getState().setSending(null);
  }
}

const LAST_OPENED = 'deskhand.lastConversation';

/** The conversation a new window starts in: its address's, else the last one opened here, else the newest. */
export function firstConversation(list: readonly ConversationSummary[], hash: string = window.location.hash): string | null {
  const has = (id: string | null | undefined): id is string => !!id && list.some((c) => c.id === id);
  const fromAddress = conversationFromAddress(hash);
  if (has(fromAddress)) return fromAddress;
  let last: string | null = null;
  try {
    last = globalThis.localStorage?.getItem(LAST_OPENED) ?? null;
  } catch {
    // storage refused (private mode): the newest conversation it is
  }
  if (has(last)) return last;
  const top = list.filter((c) => !c.subagentOf);
  return top.length ? top.reduce((a, b) => (b.updatedAt > a.updatedAt ? b : a)).id : null;
}

function rememberOpened(id: string | null): void {
  if (!id) return;
  try {
    globalThis.localStorage?.setItem(LAST_OPENED, id);
  } catch {
    // not kept: a new window then opens the newest conversation
  }
}

/** The open conversation as it appears in the page address (`#c=ID`), so a reload or a bookmark reopens it. */
export function conversationFromAddress(hash: string = window.location.hash): string | null {
  const m = /(?:^#|&)c=([A-Za-z0-9_-]+)/.exec(hash);
  return m ? m[1]! : null;
}

function writeAddress(id: string | null): void {
  const next = id ? `#c=${id}` : '';
  if (window.location.hash === next || (!id && !window.location.hash)) return;
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}${next}`);
}

export function selectConversation(id: string | null): void {
  useConversations.getState().select(id);
  useUi.getState().leaveConversation(id);
  rememberOpened(id);
  writeAddress(id);
  useUi.getState().setView('chat');
  void useMessages.getState().open(id);
}

export function openApproval(conversationId: string, approvalId: string): void {
  if (useConversations.getState().selectedId !== conversationId) selectConversation(conversationId);
  useUi.getState().setView('chat');
  useApprovals.getState().focus(approvalId);
}
