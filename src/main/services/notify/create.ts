/** The notifier a process without Electron uses: D-Bus when a notification server answers, else the OS command. */
import { CommandNotifier } from './command-notifier';
import { DbusNotifier } from './dbus-notifier';
import type { NotificationSpec, Notifier, NotifyResult } from './index';

/** Tries each notifier in turn; the first that shows the notification wins. */
export class FallbackNotifier implements Notifier {
  constructor(private readonly chain: Notifier[]) {}

  async notify(spec: NotificationSpec): Promise<NotifyResult> {
    const errors: string[] = [];
    for (const n of this.chain) {
      try {
        return await n.notify(spec);
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
    throw new Error(`No notification could be shown: ${errors.join('; ')}`);
  }

  onAction(listener: (action: string, spec: NotificationSpec) => void): () => void {
    const offs = this.chain.map((n) => n.onAction(listener));
    return () => offs.forEach((off) => off());
  }

  onClosed(listener: (spec: NotificationSpec) => void): () => void {
    const offs = this.chain.map((n) => n.onClosed?.(listener) ?? (() => undefined));
    return () => offs.forEach((off) => off());
  }

  async close(): Promise<void> {
    await Promise.all(this.chain.map((n) => n.close()));
  }
}

/** `DESKHAND_NOTIFY=command` skips D-Bus; `off` shows nothing (and says so by throwing). */
export function createNotifier(env: NodeJS.ProcessEnv = process.env): Notifier {
  if (env.DESKHAND_NOTIFY === 'off') return new FallbackNotifier([]);
  const chain: Notifier[] = [];
  if (process.platform === 'linux' && env.DESKHAND_NOTIFY !== 'command') chain.push(new DbusNotifier());
  chain.push(new CommandNotifier());
  return new FallbackNotifier(chain);
}
