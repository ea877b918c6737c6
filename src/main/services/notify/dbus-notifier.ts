/**
 * freedesktop notifications over the D-Bus session bus (org.freedesktop.Notifications.Notify) with actions,
 * urgency and category hints. Works with any notification server (GNOME Shell, KDE, dunst, mako…). `private`
 * detail is left out unless the server says it hides bodies on the lock screen — no freedesktop server says so
 * reliably, so the body here is the public text only.
 */
import type dbus from 'dbus-next';
/** dbus-next loads with the first notification, not with whoever imports the notifier (a run that never notifies never loads it). */
const loadDbus = async (): Promise<typeof dbus> => (await import('dbus-next')).default;
import type { NotificationSpec, Notifier, NotifyResult } from './index';
import { notificationLine } from './index';

const NAME = 'org.freedesktop.Notifications';
const PATH = '/org/freedesktop/Notifications';
const URGENCY = { low: 0, normal: 1, critical: 2 } as const;
/** A call the notification server has not answered by then fails (and the connection is made again next time). */
export const DBUS_CALL_TIMEOUT_MS = 10_000;

interface NotificationsIface {
  Notify(app: string, replaces: number, icon: string, summary: string, body: string, actions: string[], hints: Record<string, dbus.Variant>, timeout: number): Promise<number>;
  GetServerInformation(): Promise<[string, string, string, string]>;
  on(event: 'ActionInvoked', fn: (id: number, key: string) => void): void;
  on(event: 'NotificationClosed', fn: (id: number, reason: number) => void): void;
}

/** The connection failed under a call (the bus went away): a new connection may well succeed. */
class BusFailed extends Error {}

export class DbusNotifier implements Notifier {
  private bus: dbus.MessageBus | null = null;
  private iface: Promise<NotificationsIface> | null = null;
  private readonly shown = new Map<number, NotificationSpec>();
  private readonly tags = new Map<string, number>();
  private readonly listeners = new Set<(action: string, spec: NotificationSpec) => void>();
  private readonly closedListeners = new Set<(spec: NotificationSpec) => void>();

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
      const dbus = await loadDbus();
      const bus = dbus.sessionBus();
      this.bus = bus;
      // An unreachable or closed bus reports through 'error' (a write to a closed stream never answers the call):
      // drop this connection so the next call makes a new one, instead of waiting on a bus that went away.
      bus.on('error', () => this.drop(bus));
      const obj = await this.bus.getProxyObject(NAME, PATH);
      const iface = obj.getInterface(NAME) as unknown as NotificationsIface;
      iface.on('ActionInvoked', (id, key) => {
        const spec = this.shown.get(id);
        if (spec) for (const l of this.listeners) l(key, spec);
      });
      iface.on('NotificationClosed', (id) => {
        const spec = this.shown.get(id);
        this.shown.delete(id);
        if (spec) for (const l of this.closedListeners) l(spec);
      });
      return iface;
    })();
    this.iface.catch(() => (this.iface = null));
    return this.iface;
  }

  /** Forgets a connection that failed, if it is still the current one. */
  private drop(bus: dbus.MessageBus): void {
    if (this.bus !== bus) return;
    this.bus = null;
    this.iface = null;
    try {
      bus.disconnect();
    } catch {
      // already closed
    }
  }

  /** A call's answer, or a clear error when the bus fails or the server does not answer in time. */
  private answered<T>(start: () => Promise<T>, bus: () => dbus.MessageBus | null): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const fail = (err: Error) => {
        cleanup();
        if (on) this.drop(on);
        reject(err);
      };
      const onError = (err: unknown) => fail(new BusFailed(`The D-Bus session bus failed: ${(err as Error)?.message ?? String(err)}`));
      const timer = setTimeout(() => fail(new Error(`The notification server did not answer within ${DBUS_CALL_TIMEOUT_MS / 1000} s.`)), DBUS_CALL_TIMEOUT_MS);
      timer.unref();
      const cleanup = () => {
        clearTimeout(timer);
        on?.removeListener('error', onError);
      };
      // Listening before the call starts: a write to a closed stream reports its error at once, inside the call.
      let on: dbus.MessageBus | null = bus();
      on?.on('error', onError);
      const call = start();
      if (!on) {
        on = bus();
        on?.on('error', onError);
      }
      call.then(
        (v) => (cleanup(), resolve(v)),
        (err: unknown) => (cleanup(), reject(err)),
      );
    });
  }

  /** Shows a notification; a connection found closed (the bus restarted) is made again once. */
  async notify(spec: NotificationSpec): Promise<NotifyResult> {
    try {
      return await this.notifyOnce(spec);
    } catch (err) {
      if (err instanceof BusFailed) return this.notifyOnce(spec);
      throw err;
    }
  }

  private async notifyOnce(spec: NotificationSpec): Promise<NotifyResult> {
    const iface = await this.answered(() => this.connect(), () => this.bus);
    const actions: string[] = [];
    for (const a of spec.actions ?? []) actions.push(a.id === 'open' ? 'default' : a.id, a.label);
    const dbus = await loadDbus();
    const hints: Record<string, dbus.Variant> = {
      urgency: new dbus.Variant('y', URGENCY[spec.urgency ?? 'normal']),
      'desktop-entry': new dbus.Variant('s', 'deskhand'),
    };
    if (spec.category) hints.category = new dbus.Variant('s', spec.category);
    // Reminders and approvals stay until seen; transient ones may be dropped by the server.
    if (spec.urgency !== 'low') hints.resident = new dbus.Variant('b', true);
    const replaces = spec.tag ? (this.tags.get(spec.tag) ?? 0) : 0;
    const id = await this.answered(() => iface.Notify(this.appName, replaces, 'dialog-information', notificationLine(spec.title, 80), notificationLine(spec.body), actions, hints, spec.timeoutMs ?? -1), () => this.bus);
    this.shown.set(id, spec);
    if (spec.tag) this.tags.set(spec.tag, id);
    return { via: 'dbus', id: String(id), actionable: true };
  }

  onAction(listener: (action: string, spec: NotificationSpec) => void): () => void {
    const wrapped = (key: string, spec: NotificationSpec) => listener(key === 'default' ? 'open' : key, spec);
    this.listeners.add(wrapped);
    return () => void this.listeners.delete(wrapped);
  }

  onClosed(listener: (spec: NotificationSpec) => void): () => void {
    this.closedListeners.add(listener);
    return () => void this.closedListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.closedListeners.clear();
    this.bus?.disconnect();
    this.bus = null;
    this.iface = null;
  }
}
