/**
 * The process's one notifier, made here and nowhere else: hosts get it as `runtime.notifier` (the desktop app injects
 * its Electron notifier through `openRuntime({ notifier })`; `deskhand fire`, which rings a reminder without opening
 * the runtime, calls `hostNotifier` and hands the same one to the runtime if it opens it). It connects on first use, so
 * a host that never notifies opens no D-Bus connection; listeners added before then are attached when it does.
 */
import { createNotifier } from '../../services/notify/create';
import type { NotificationSpec, Notifier, NotifyResult } from '../../services/notify';

class LazyNotifier implements Notifier {
  private inner: Notifier | null = null;
  private readonly actionListeners = new Set<(action: string, spec: NotificationSpec) => void>();
  private readonly closedListeners = new Set<(spec: NotificationSpec) => void>();

  constructor(private readonly make: () => Notifier) {}

  private get notifier(): Notifier {
    if (!this.inner) {
      const n = this.make();
      n.onAction((action, spec) => this.actionListeners.forEach((l) => l(action, spec)));
      n.onClosed?.((spec) => this.closedListeners.forEach((l) => l(spec)));
      this.inner = n;
    }
    return this.inner;
  }

  notify(spec: NotificationSpec): Promise<NotifyResult> {
    return this.notifier.notify(spec);
  }

  onAction(listener: (action: string, spec: NotificationSpec) => void): () => void {
    this.actionListeners.add(listener);
    return () => void this.actionListeners.delete(listener);
  }

  onClosed(listener: (spec: NotificationSpec) => void): () => void {
    this.closedListeners.add(listener);
    return () => void this.closedListeners.delete(listener);
  }

  async close(): Promise<void> {
    const n = this.inner;
    this.inner = null;
    await n?.close();
  }
}

/** D-Bus where a notification server answers (with actions), else the OS command; `DESKHAND_NOTIFY` overrides. */
export function hostNotifier(env: NodeJS.ProcessEnv = process.env): Notifier {
  return new LazyNotifier(() => createNotifier(env));
}
