/**
 * The tray icon and its menu: Open, New conversation, the schedule (upcoming reminders with snooze/dismiss, scheduled
 * prompts with run now/pause; schedule-shell.ts), N approvals waiting (opens the first), Stop all runs, Stop computer
 * use, Quit.
 */
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from 'electron';
import type { PendingApproval } from '../../shared/contract';

// A 32×32 monochrome mark (a rounded square with a check), so the tray needs no file on disk.
const ICON =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAYAAABzenr0AAAAb0lEQVR42u2WUQ7AIAhD3/0vvd1gG9hQsrSJf6Y8FQGIFusSrwBYgpZhfgeAC+DNdxyASQCcN4AToOJZBkAYvAzQPZGkDtDMaGkhetqLE+AkkXVJ0/xFLQNlJ5W/3Wg3tAN8LU4ZSNbNhxnLo526Af5hEgtfOZdMAAAAAElFTkSuQmCC';

export interface TrayActions {
  open(): void;
  newConversation(): void;
  openApproval(approval: PendingApproval): void;
  /** The computer-use kill switch. */
  stopComputerUse(): void;
  quit(): void;
  /** The schedule's items (reminders, scheduled prompts), rebuilt on every refresh. */
  schedule?(): MenuItemConstructorOptions[];
  stopAllRuns?(): void;
}

/** The kill switch's global shortcut (also shown on the tray item). */
export const STOP_COMPUTER_USE_SHORTCUT = 'CommandOrControl+Alt+Shift+X';

export class AppTray {
  private readonly tray: Tray;
  private approvals: PendingApproval[] = [];

  constructor(private readonly actions: TrayActions) {
    const image = nativeImage.createFromDataURL(ICON);
    image.setTemplateImage(true);
    this.tray = new Tray(image);
    this.tray.setToolTip('Deskhand');
    this.tray.on('click', () => actions.open());
    this.update([]);
  }

  private usingApps: string[] = [];

  /** Rebuilds the menu (the schedule changed). */
  refresh(): void {
    this.update(this.approvals);
  }

  /** Apps Deskhand is using now (computer use): the Stop item names them. */
  setComputerUse(apps: string[]): void {
    this.usingApps = apps;
    this.update(this.approvals);
  }

  update(approvals: PendingApproval[]): void {
    this.approvals = approvals;
    const n = approvals.length;
    const schedule = this.actions.schedule ? [...this.actions.schedule(), { type: 'separator' as const }] : [];
    const stop = this.actions.stopAllRuns ? [{ label: 'Stop all runs', click: () => this.actions.stopAllRuns?.() }] : [];
    const first = approvals[0];
    const menu = Menu.buildFromTemplate([
      { label: 'Open Deskhand', click: () => this.actions.open() },
      { label: 'New conversation', accelerator: 'CommandOrControl+N', click: () => this.actions.newConversation() },
      { type: 'separator' },
      ...schedule,
      {
        label: n === 0 ? 'No approvals waiting' : `${n} approval${n === 1 ? '' : 's'} waiting`,
        enabled: !!first,
        click: () => first && this.actions.openApproval(first),
      },
      ...stop,
      {
        label: this.usingApps.length ? `Stop computer use (${this.usingApps.join(', ')})` : 'Stop computer use',
        accelerator: STOP_COMPUTER_USE_SHORTCUT,
        click: () => this.actions.stopComputerUse(),
      },
      { type: 'separator' },
      { label: 'Quit Deskhand', accelerator: 'CommandOrControl+Q', click: () => this.actions.quit() },
    ]);
    this.tray.setContextMenu(menu);
    this.tray.setToolTip(n ? `Deskhand — ${n} waiting for you` : 'Deskhand');
  }

  destroy(): void {
    this.tray.destroy();
  }
}
