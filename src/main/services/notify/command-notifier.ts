/**
 * Notifications through the OS command, for when neither the app nor a D-Bus session is there: `notify-send`
 * (libnotify) on Linux, `osascript` on macOS, a PowerShell toast on Windows. No actions: a click cannot reach a
 * process that has exited. The commands are built here and tested on their arguments.
 */
import { runHostProgram } from '../processes/launcher';
import type { NotificationSpec, Notifier, NotifyResult } from './index';
import { notificationLine } from './index';

export interface NotifyCommand {
  file: string;
  args: string[];
}

const psQuote = (s: string) => `'${s.replace(/'/g, "''")}'`;
const asQuote = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** The command that shows `spec` on `platform`. */
export function notifyCommand(spec: NotificationSpec, platform: NodeJS.Platform = process.platform): NotifyCommand {
  const title = notificationLine(spec.title, 80);
  const body = notificationLine(spec.body);
  if (platform === 'darwin') {
    return { file: 'osascript', args: ['-e', `display notification ${asQuote(body)} with title "Deskhand" subtitle ${asQuote(title)}`] };
  }
  if (platform === 'win32') {
    const script = [
      '[Windows.UI.Notifications.ToastNotificationManager, Windows.UI.Notifications, ContentType = WindowsRuntime] | Out-Null',
      '$t = [Windows.UI.Notifications.ToastNotificationManager]::GetTemplateContent([Windows.UI.Notifications.ToastTemplateType]::ToastText02)',
      '$x = $t.GetElementsByTagName("text")',
      `$x.Item(0).AppendChild($t.CreateTextNode(${psQuote(title)})) | Out-Null`,
      `$x.Item(1).AppendChild($t.CreateTextNode(${psQuote(body)})) | Out-Null`,
      "[Windows.UI.Notifications.ToastNotificationManager]::CreateToastNotifier('Deskhand').Show([Windows.UI.Notifications.ToastNotification]::new($t))",
    ].join('; ');
    return { file: 'powershell.exe', args: ['-NoProfile', '-NonInteractive', '-Command', script] };
  }
  const args = ['--app-name=Deskhand', `--urgency=${spec.urgency ?? 'normal'}`];
  if (spec.category) args.push(`--category=${spec.category}`);
  if (spec.timeoutMs !== undefined) args.push(`--expire-time=${spec.timeoutMs}`);
  args.push('--', title, body);
  return { file: 'notify-send', args };
}

export class CommandNotifier implements Notifier {
  constructor(private readonly platform: NodeJS.Platform = process.platform) {}

  async notify(spec: NotificationSpec): Promise<NotifyResult> {
    const cmd = notifyCommand(spec, this.platform);
    const r = await runHostProgram({ program: cmd.file, args: cmd.args, timeoutMs: 15_000 });
    if (r.code === 0) return { via: cmd.file, id: null };
    const why = r.error?.message ?? (r.stoppedBy === 'timeout' ? 'it did not finish within 15 s' : r.signal ? `it was stopped by ${r.signal}` : `exit code ${r.code}`);
    throw new Error(`${cmd.file} could not show the notification: ${r.stderr.trim() || why}`);
  }

  onAction(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {}
}
