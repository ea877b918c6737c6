/**
 * A native notification when an approval starts waiting and the window is not focused. It says what needs the person
 * (never file contents, secrets or output); clicking it opens that approval.
 */
import { Notification, type BrowserWindow } from 'electron';
import type { PendingApproval } from '../../shared/contract';
import { approvalHeadline } from '../host/app/projections';

export class ApprovalNotifier {
  private seen = new Set<string>();
  private primed = false;

  constructor(
    private readonly window: () => BrowserWindow | null,
    private readonly open: (approval: PendingApproval) => void,
  ) {}

  update(approvals: PendingApproval[]): void {
    const current = new Set(approvals.map((a) => a.approvalId));
    // Approvals already waiting at launch are shown by the window and the tray, not announced one by one.
    if (!this.primed) {
      this.primed = true;
      this.seen = current;
      return;
    }
    const win = this.window();
    const focused = !!win && !win.isDestroyed() && win.isFocused();
    for (const a of approvals) {
      if (this.seen.has(a.approvalId)) continue;
      if (!focused && Notification.isSupported()) {
        const n = new Notification({ title: approvalHeadline(a), body: `${a.conversationTitle} — ${a.risk}`, silent: false });
        n.on('click', () => this.open(a));
        n.show();
      }
    }
    this.seen = current;
  }
}
