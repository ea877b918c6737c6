/**
 * Notifications to the person, for any family (reminders, scheduled prompts, approvals, goals, the browser…). A
 * notification says what needs them in plain words; it never carries file contents, tool output or secrets: callers
 * pass `redact` text through the runtime's redactor, and `private` content goes in `privateBody`, which is shown only
 * where the platform keeps it off the lock screen (else left out). Hosts pick the implementation: freedesktop
 * notifications over D-Bus (dbus-notifier.ts), Electron's Notification in the shell, the OS command when the app is
 * closed and D-Bus cannot be reached (command-notifier.ts).
 */

export type NotifyUrgency = 'low' | 'normal' | 'critical';

/** What a click or action opens in Deskhand. */
export type NotifyTarget = { kind: 'conversation' | 'approval' | 'schedule'; id: string };

export interface NotifyAction {
  /** Stable key returned when pressed: `open`, `snooze`, `dismiss`… */
  id: string;
  label: string;
}

export interface NotificationSpec {
  /** Short, public: "Reminder", "Scheduled prompt needs your approval". */
  title: string;
  /** Public text (already redacted): safe on a lock screen. */
  body: string;
  /** Private detail: shown only where the platform hides it on the lock screen; otherwise left out. */
  privateBody?: string;
  urgency?: NotifyUrgency;
  /** freedesktop category, e.g. `deskhand.reminder`, `deskhand.approval`. */
  category?: string;
  actions?: NotifyAction[];
  target?: NotifyTarget;
  /** Replaces an earlier notification with the same tag (when the backend can). */
  tag?: string;
  /** Milliseconds on screen; 0 = until dismissed; undefined = the server's default. */
  timeoutMs?: number;
}

export interface NotifyResult {
  /** Which backend showed it: `dbus`, `electron`, `notify-send`, `osascript`, `powershell`. */
  via: string;
  /** The backend's id (the D-Bus notification id), when it gives one. */
  id: string | null;
  /** True when this backend reports the person's actions and the notification's close (D-Bus, while connected). */
  actionable?: boolean;
}

export interface Notifier {
  notify(spec: NotificationSpec): Promise<NotifyResult>;
  /** Called with the action key and the notification's target when the person presses one (while listening). */
  onAction(listener: (action: string, spec: NotificationSpec) => void): () => void;
  /** Called when a shown notification went away (closed by the person or the server); backends that cannot tell omit it. */
  onClosed?(listener: (spec: NotificationSpec) => void): () => void;
  close(): Promise<void>;
}

/** Cuts to one line of at most `max` characters (notification servers show a line or two). */
export function notificationLine(text: string, max = 180): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
