/**
 * A small AT-SPI client over D-Bus (dbus-next, raw method calls: no introspection round trips). The accessibility bus
 * is found with `org.a11y.Bus.GetAddress` on the session bus; the registry's root lists one accessible per
 * application. Everything here is a read or one accessibility action; it never synthesizes input.
 */
import type dbus from 'dbus-next';
import type { ElementHandle, Rect } from './index';

const ACC = 'org.a11y.atspi.Accessible';
const PROPS = 'org.freedesktop.DBus.Properties';
const REGISTRY = 'org.a11y.atspi.Registry';
const ROOT = '/org/a11y/atspi/accessible/root';

/** AT-SPI state bits (atspi-constants.h AtspiStateType) this outline shows or uses. */
export const STATE = {
  active: 1,
  checked: 4,
  editable: 7,
  enabled: 8,
  expandable: 9,
  expanded: 10,
  focusable: 11,
  focused: 12,
  selectable: 22,
  selected: 23,
  sensitive: 24,
  showing: 25,
  visible: 30,
  checkable: 41,
  readOnly: 43,
} as const;

export interface RawNode {
  handle: ElementHandle;
  role: string;
  name: string;
  /** The 64 state bits as two 32-bit words. */
  states: [number, number];
  interfaces: string[];
  children: ElementHandle[];
}

/** Interfaces seen per object (bus name + path), with the role they were seen with (a reused path with another role is read again). */
export type InterfaceCache = Map<string, { role: string; interfaces: string[] }>;

export function hasState(states: readonly [number, number], bit: number): boolean {
  return bit < 32 ? (states[0] & (1 << bit)) !== 0 : (states[1] & (1 << (bit - 32))) !== 0;
}

export class AtspiClient {
  private constructor(
    private readonly bus: dbus.MessageBus,
    private readonly session: dbus.MessageBus,
    /** dbus-next, loaded by the first connect (not by whoever imports this module: a run that never observes the screen never loads it). */
    private readonly dbusNext: typeof dbus,
  ) {}

  /** Connects to the accessibility bus of the session bus at `sessionAddress` (default: the environment's). */
  static async connect(sessionAddress?: string): Promise<AtspiClient> {
    const dbus = (await import('dbus-next')).default;
    const session = dbus.sessionBus(sessionAddress ? { busAddress: sessionAddress } : {});
    // A bus that fails (the launcher went away) emits 'error': without a listener that would end the process.
    session.on('error', () => undefined);
    try {
      const reply = await withTimeout(
        session.call(new dbus.Message({ destination: 'org.a11y.Bus', path: '/org/a11y/bus', interface: 'org.a11y.Bus', member: 'GetAddress' })),
        3000,
        'the session bus did not answer org.a11y.Bus.GetAddress',
      );
      const address = reply?.body[0] as string | undefined;
      if (!address) throw new Error('org.a11y.Bus returned no address');
      const bus = dbus.sessionBus({ busAddress: address });
      bus.on('error', () => undefined);
      return new AtspiClient(bus, session, dbus);
    } catch (err) {
      session.disconnect();
      throw err;
    }
  }

  close(): void {
    this.bus.disconnect();
    this.session.disconnect();
  }

  async call(h: ElementHandle, iface: string, member: string, signature = '', body: unknown[] = []): Promise<unknown[]> {
    const reply = await this.bus.call(new this.dbusNext.Message({ destination: h.bus, path: h.path, interface: iface, member, signature, body }));
    return (reply?.body ?? []) as unknown[];
  }

  async prop(h: ElementHandle, iface: string, name: string): Promise<unknown> {
    const [v] = await this.call(h, PROPS, 'Get', 'ss', [iface, name]);
    return (v as { value: unknown } | undefined)?.value;
  }

  /** The registered applications (one accessible each). */
  async applications(): Promise<ElementHandle[]> {
    const [kids] = await this.call({ bus: REGISTRY, path: ROOT }, ACC, 'GetChildren');
    return toHandles(kids);
  }

  /** The process behind a bus name on the accessibility bus. */
  async pidOf(busName: string): Promise<number> {
    const reply = await this.bus.call(
      new this.dbusNext.Message({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'GetConnectionUnixProcessID', signature: 's', body: [busName] }),
    );
    return Number(reply?.body[0] ?? 0);
  }

  async name(h: ElementHandle): Promise<string> {
    return String((await this.prop(h, ACC, 'Name')) ?? '');
  }

  async children(h: ElementHandle): Promise<ElementHandle[]> {
    const [kids] = await this.call(h, ACC, 'GetChildren');
    return toHandles(kids);
  }

  /**
   * One element: role, name, states, interfaces and children, in parallel calls. An object's interfaces are fixed for
   * its life, so a caller that keeps them (`known`, by bus name + path + role) saves that call on the next read.
   */
  async node(h: ElementHandle, known?: InterfaceCache): Promise<RawNode> {
    const cached = known?.get(`${h.bus}${h.path}`);
    const [[role], name, [kids], [ifaces], [states]] = await Promise.all([
      this.call(h, ACC, 'GetRoleName'),
      this.prop(h, ACC, 'Name'),
      this.call(h, ACC, 'GetChildren'),
      cached ? [null] : this.call(h, ACC, 'GetInterfaces'),
      this.call(h, ACC, 'GetState'),
    ]);
    const s = (states as number[] | undefined) ?? [0, 0];
    const roleName = String(role ?? '');
    let interfaces = cached?.role === roleName ? cached.interfaces : null;
    if (!interfaces) {
      const list = cached ? ((await this.call(h, ACC, 'GetInterfaces'))[0] as string[] | undefined) : (ifaces as string[] | undefined);
      interfaces = (list ?? []).map((i) => i.replace('org.a11y.atspi.', ''));
      known?.set(`${h.bus}${h.path}`, { role: roleName, interfaces });
    }
    return { handle: h, role: roleName, name: String(name ?? ''), states: [s[0] ?? 0, s[1] ?? 0], interfaces, children: toHandles(kids) };
  }

  async states(h: ElementHandle): Promise<[number, number]> {
    const [s] = await this.call(h, ACC, 'GetState');
    const w = (s as number[] | undefined) ?? [0, 0];
    return [w[0] ?? 0, w[1] ?? 0];
  }

  /** The element's action names (Action interface). */
  async actions(h: ElementHandle): Promise<string[]> {
    const [list] = await this.call(h, 'org.a11y.atspi.Action', 'GetActions');
    return ((list as [string, string, string][] | undefined) ?? []).map((a) => a[0].toLowerCase());
  }

  async doAction(h: ElementHandle, index: number): Promise<boolean> {
    const [ok] = await this.call(h, 'org.a11y.atspi.Action', 'DoAction', 'i', [index]);
    return !!ok;
  }

  async text(h: ElementHandle): Promise<string> {
    const [t] = await this.call(h, 'org.a11y.atspi.Text', 'GetText', 'ii', [0, -1]);
    return String(t ?? '');
  }

  async caret(h: ElementHandle): Promise<number> {
    return Number((await this.prop(h, 'org.a11y.atspi.Text', 'CaretOffset')) ?? 0);
  }

  async setText(h: ElementHandle, text: string): Promise<boolean> {
    const [ok] = await this.call(h, 'org.a11y.atspi.EditableText', 'SetTextContents', 's', [text]);
    return !!ok;
  }

  async insertText(h: ElementHandle, position: number, text: string): Promise<boolean> {
    const [ok] = await this.call(h, 'org.a11y.atspi.EditableText', 'InsertText', 'isi', [position, text, Buffer.byteLength(text)]);
    return !!ok;
  }

  async value(h: ElementHandle): Promise<number | null> {
    const v = await this.prop(h, 'org.a11y.atspi.Value', 'CurrentValue');
    return typeof v === 'number' ? v : null;
  }

  /** Screen coordinates (ATSPI_COORD_TYPE_SCREEN). */
  async extents(h: ElementHandle): Promise<Rect> {
    const [r] = await this.call(h, 'org.a11y.atspi.Component', 'GetExtents', 'u', [0]);
    const [x, y, width, height] = (r as number[] | undefined) ?? [0, 0, 0, 0];
    return { x: x ?? 0, y: y ?? 0, width: width ?? 0, height: height ?? 0 };
  }

  async grabFocus(h: ElementHandle): Promise<boolean> {
    const [ok] = await this.call(h, 'org.a11y.atspi.Component', 'GrabFocus');
    return !!ok;
  }
}

function toHandles(kids: unknown): ElementHandle[] {
  return ((kids as [string, string][] | undefined) ?? []).map(([bus, path]) => ({ bus, path }));
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
