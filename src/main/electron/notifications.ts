/**
 * A native notification when an approval starts waiting and the window is not focused. It says what needs the person
 * (never file contents, secrets or output); clicking it opens that approval. A request that is safe to answer without
 * seeing its card (`answerableFromNotification`) also gets Approve and Deny buttons where the OS shows them (macOS).
 */
import { Notification, type BrowserWindow } from 'electron';
import type { PendingApproval } from '../../shared/contract';
import { approvalHeadline } from '../host/app/projections';

/**
 * Approve/Deny in the notification itself: only for an approval (not a question or a secret) that is not high-risk,
 * does not name a secret and is not a subagent's (whose card says which child asks). Everything else opens the card.
 */
export function answerableFromNotification(a: Pick<PendingApproval, 'kind' | 'risk' | 'secret' | 'subagent'>): boolean {
  return a.kind === 'approval' && (a.risk === 'low-risk' || a.risk === 'read-only') && !a.secret && !a.subagent;
}

export class ApprovalNotifier {
  private seen = new Set<string>();
  private primed = false;

  constructor(
    private readonly window: () => BrowserWindow | null,
    private readonly open: (approval: PendingApproval) => void,
    private readonly decide: ((approval: PendingApproval, decision: 'approve' | 'deny') => void) | null = null,
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
        const buttons = this.decide && answerableFromNotification(a) ? (['approve', 'deny'] as const) : [];
        const n = new Notification({
          title: approvalHeadline(a),
          body: `${a.conversationTitle} — ${a.risk}`,
          silent: false,
          actions: buttons.map((b) => ({ type: 'button' as const, text: b === 'approve' ? 'Approve' : 'Deny' })),
        });
        n.on('click', () => this.open(a));
        n.on('action', (_event, index: number) => {
          const decision = buttons[index];
          if (decision) this.decide?.(a, decision);
        });
        n.show();
      }
    }
    this.seen = current;
  }
}
