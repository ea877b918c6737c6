/**
 * Keeps the slices in step with main: loads the lists at start, applies pushed events, and reloads everything after a
 * reconnect. Run events are applied once per animation frame, so a fast stream costs one render per frame.
 */
import type { RunEvent } from '../../shared/events';
import { api, errorText, onConnection } from '../api/client';
import { useApprovals } from './approvals';
import { useConversations } from './conversations';
import { useMessages } from './messages';
import { useSettings } from './settings';
import { useTasks } from './tasks';
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
    const [host, conversations, approvals, settings] = await Promise.all([a.getHostInfo({}), a.listConversations({}), a.listPendingApprovals({}), a.getSettings({})]);
    useUi.getState().setHost(host);
    useConversations.getState().setList(conversations.conversations);
    useApprovals.getState().set(approvals.approvals);
    useSettings.getState().set(settings);
    const selected = useConversations.getState().selectedId;
    if (selected) await Promise.all([useMessages.getState().reload(), useTasks.getState().load(selected)]);
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
    a.on('conversationsChanged', ({ conversations }) => useConversations.getState().setList(conversations)),
    a.on('approvalsChanged', ({ approvals }) => useApprovals.getState().set(approvals)),
    a.on('openApproval', ({ approvalId, conversationId }) => openApproval(conversationId, approvalId)),
    a.on('newConversation', () => useUi.getState().openDialog({ kind: 'new' })),
    a.on('backgroundTasksChanged', ({ conversationId }) => {
      if (conversationId === useTasks.getState().conversationId) void useTasks.getState().load(conversationId);
    }),
  ];
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

export function selectConversation(id: string | null): void {
  useConversations.getState().select(id);
  useUi.getState().setView('chat');
  void useMessages.getState().open(id);
}

export function openApproval(conversationId: string, approvalId: string): void {
  if (useConversations.getState().selectedId !== conversationId) selectConversation(conversationId);
  useUi.getState().setView('chat');
  useApprovals.getState().focus(approvalId);
}
