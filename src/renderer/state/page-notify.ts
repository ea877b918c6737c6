/**
 * `deskhand web` in a browser tab: when the tab is hidden and a request starts waiting (an approval, a question, a
 * secret), the browser's Notification says what waits — the tool's title and the conversation, never arguments,
 * content or a secret — once the person allowed notifications (the button in the Approvals panel). A click brings the
 * tab forward on that request. The tab's title and, where the browser has one, its badge count what waits. The desktop
 * app announces approvals from its main process instead (electron/notifications.ts), so this stays off there.
 */
import type { PendingApproval } from '../../shared/contract';
import { useApprovals } from './approvals';

const BASE_TITLE = typeof document !== 'undefined' ? document.title || 'Deskhand' : 'Deskhand';

/** Whether this page can show browser notifications at all (a web page, not the desktop app's window). */
export function pageNotificationsAvailable(): boolean {
  return typeof window !== 'undefined' && !window.deskhand && typeof Notification !== 'undefined';
}

/** The notification for a request: what waits, in words. */
export function requestNotice(a: Pick<PendingApproval, 'kind' | 'title' | 'conversationTitle' | 'risk'>): { title: string; body: string } {
  const title = a.kind === 'approval' ? `Approval needed: ${a.title}` : a.kind === 'secret' ? 'Deskhand asks for a secret' : 'Deskhand asks you';
  return { title, body: a.kind === 'approval' ? `${a.conversationTitle} — ${a.risk}` : a.conversationTitle };
}

/** Starts announcing; `open` shows a request (the click). Returns the stop function. */
export function startPageNotifications(open: (conversationId: string, approvalId: string) => void): () => void {
  if (!pageNotificationsAvailable()) return () => undefined;
  let seen: Set<string> | null = null;
  const off = useApprovals.subscribe((s) => {
    const current = new Set(s.list.map((a) => a.approvalId));
    document.title = s.list.length ? `(${s.list.length}) ${BASE_TITLE}` : BASE_TITLE;
    const badge = navigator as Navigator & { setAppBadge?(n: number): Promise<void>; clearAppBadge?(): Promise<void> };
    void (s.list.length ? badge.setAppBadge?.(s.list.length) : badge.clearAppBadge?.())?.catch(() => undefined);
    // Requests already waiting when the page loaded are on screen, not announced one by one.
    const before = seen;
    seen = current;
    if (!before || document.visibilityState !== 'hidden' || Notification.permission !== 'granted') return;
    for (const a of s.list) {
      if (before.has(a.approvalId)) continue;
      const { title, body } = requestNotice(a);
      const n = new Notification(title, { body, tag: a.approvalId });
      n.onclick = () => {
        window.focus();
        open(a.conversationId, a.approvalId);
        n.close();
      };
    }
  });
  return off;
}
