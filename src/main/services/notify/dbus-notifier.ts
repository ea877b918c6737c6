/**
 * freedesktop notifications over the D-Bus session bus (org.freedesktop.Notifications.Notify) with actions,
 * urgency and category hints. Works with any notification server (GNOME Shell, KDE, dunst, mako…). `private`
 * detail is left out unless the server says it hides bodies on the lock screen — no freedesktop server says so
 * reliably, so the body here is the public text only.
 */
import dbus from 'dbus-next';
import type { NotificationSpec, Notifier, NotifyResult } from './index';
import { notificationLine } from './index';

const NAME = 'org.freedesktop.Notifications';
const PATH = '/org/freedesktop/Notifications';
const URGENCY = { low: 0, normal: 1, critical: 2 } as const;

interface NotificationsIface {
  Notify(app: string, replaces: number, icon: string, summary: string, body: string, actions: string[], hints: Record<string, dbus.Variant>, timeout: number): Promise<number>;
  GetServerInformation(): Promise<[string, string, string, string]>;
  on(event: 'ActionInvoked', fn: (id: number, key: string) => void): void;
  on(event: 'NotificationClosed', fn: (id: number, reason: number) => void): void;
}

export class DbusNotifier implements Notifier {
  private bus: dbus.MessageBus | null = null;
  private iface: Promise<NotificationsIface> | null = null;
  private readonly shown = new Map<number, NotificationSpec>();
  private readonly tags = new Map<string, number>();
  private readonly listeners = new Set<(action: string, spec: NotificationSpec) => void>();

  constructor(private readonly appName = 'Deskhand') {}

  /** Whether a notification server answers on the session bus. */
  static async available(): Promise<boolean> {
    if (!process.env.DBUS_SESSION_BUS_ADDRESS) return false;
    const n = new DbusNotifier();
    try {
      await n.connect();
      return true;
    } catch {
      return false;
    } finally {
      await n.close();
    }
  }

  private connect(): Promise<NotificationsIface> {
    this.iface ??= (async () => {
      if (!process.env.DBUS_SESSION_BUS_ADDRESS) throw new Error('No D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set).');
      this.bus = dbus.sessionBus();
      // An unreachable bus reports through 'error' as well as the rejected call: keep it from crashing the process.
      this.bus.on('error', () => undefined);
      const obj = await this.bus.getProxyObject(NAME, PATH);
      const iface = obj.getInterface(NAME) as unknown as NotificationsIface;
      iface.on('ActionInvoked', (id, key) => {
        const spec = this.shown.get(id);
        if (spec) for (const l of this.listeners) l(key, spec);
      });
      iface.on('NotificationClosed', (id) => void this.shown.delete(id));
      return iface;
    })();
    this.iface.catch(() => (this.iface = null));
    return this.iface;
  }

  async notify(spec: NotificationSpec): Promise<NotifyResult> {
    const iface = await this.connect();
    const actions: string[] = [];
    for (const a of spec.actions ?? []) actions.push(a.id === 'open' ? 'default' : a.id, a.label);
    const hints: Record<string, dbus.Variant> = {
      urgency: new dbus.Variant('y', URGENCY[spec.urgency ?? 'normal']),
      'desktop-entry': new dbus.Variant('s', 'deskhand'),
    };
    if (spec.category) hints.category = new dbus.Variant('s', spec.category);
    // Reminders and approvals stay until seen; transient ones may be dropped by the server.
    if (spec.urgency !== 'low') hints.resident = new dbus.Variant('b', true);
    const replaces = spec.tag ? (this.tags.get(spec.tag) ?? 0) : 0;
    const id = await iface.Notify(this.appName, replaces, 'dialog-information', notificationLine(spec.title, 80), notificationLine(spec.body), actions, hints, spec.timeoutMs ?? -1);
    this.shown.set(id, spec);
    if (spec.tag) this.tags.set(spec.tag, id);
    return { via: 'dbus', id: String(id) };
  }

  onAction(listener: (action: string, spec: NotificationSpec) => void): () => void {
    const wrapped = (key: string, spec: NotificationSpec) => listener(key === 'default' ? 'open' : key, spec);
    this.listeners.add(wrapped);
    return () => void this.listeners.delete(wrapped);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.bus?.disconnect();
    this.bus = null;
    this.iface = null;
  }
}
