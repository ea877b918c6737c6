/**
 * The macOS operator: the AX API through the JXA helper (`macos-helper.ts`, run by osascript over System Events),
 * synthesized input and capture through nut-js. Three permissions are checked and each missing one is named with the
 * exact System Settings path that fixes it.
 */
import { runHostProgram } from '../processes/launcher';
import { HelperOperator, type HelperPlatform, type HelperTransport } from './desktop-helper';
import { MAC_HELPER } from './macos-helper';

export const MAC_SETTINGS = {
  accessibility: 'System Settings → Privacy & Security → Accessibility',
  screenRecording: 'System Settings → Privacy & Security → Screen & System Audio Recording',
  automation: 'System Settings → Privacy & Security → Automation → Deskhand → System Events',
} as const;

export const MAC_MESSAGES = {
  osascript: 'Computer use on macOS runs a small helper with /usr/bin/osascript, which is not there (it ships with macOS; check that /usr/bin is on the PATH).',
  accessibility: `Deskhand may not use the accessibility API: turn Deskhand on in ${MAC_SETTINGS.accessibility}, then restart Deskhand.`,
  screenRecording: `Deskhand may not capture the screen, so it cannot take screenshots: turn Deskhand on in ${MAC_SETTINGS.screenRecording}, then restart Deskhand (outlines work without it).`,
  automation: `Deskhand may not ask System Events for the accessibility tree: turn System Events on under ${MAC_SETTINGS.automation}.`,
} as const;

/** AX roles → the outline's role words (the ones AT-SPI uses on Linux). */
const ROLES: Record<string, string> = {
  AXWindow: 'frame', AXSheet: 'dialog', AXDrawer: 'panel', AXButton: 'push button', AXMenuButton: 'push button', AXPopUpButton: 'combo box',
  AXComboBox: 'combo box', AXCheckBox: 'check box', AXRadioButton: 'radio button', AXTextField: 'text', AXTextArea: 'text',
  AXSecureTextField: 'password text', AXStaticText: 'label', AXLink: 'link', AXImage: 'image', AXGroup: 'panel', AXScrollArea: 'scroll pane',
  AXScrollBar: 'scroll bar', AXSlider: 'slider', AXIncrementor: 'spin button', AXStepper: 'spin button', AXProgressIndicator: 'progress bar',
  AXBusyIndicator: 'progress bar', AXTabGroup: 'page tab list', AXTable: 'table', AXOutline: 'tree', AXList: 'list', AXRow: 'table row',
  AXColumn: 'table column', AXCell: 'table cell', AXToolbar: 'tool bar', AXMenuBar: 'menu bar', AXMenuBarItem: 'menu', AXMenu: 'menu',
  AXMenuItem: 'menu item', AXSplitGroup: 'split pane', AXSplitter: 'separator', AXDisclosureTriangle: 'toggle button', AXHeading: 'heading',
  AXWebArea: 'document web', AXLayoutArea: 'panel', AXColorWell: 'push button', AXDateField: 'text', AXValueIndicator: 'slider', AXBrowser: 'tree',
};
const SUBROLES: Record<string, string> = {
  AXDialog: 'dialog', AXSystemDialog: 'dialog', AXFloatingWindow: 'frame', AXSecureTextField: 'password text', AXTabButton: 'page tab',
  AXSearchField: 'text', AXOutlineRow: 'tree item', AXSwitch: 'toggle button', AXToggle: 'toggle button', AXCloseButton: 'push button',
  AXMinimizeButton: 'push button', AXZoomButton: 'push button', AXFullScreenButton: 'push button',
};

export function macRole(role: string, subrole?: string): string {
  if (subrole && SUBROLES[subrole]) return SUBROLES[subrole]!;
  if (ROLES[role]) return ROLES[role]!;
  // AXSomethingNew → "something new"
  return role.replace(/^AX/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() || 'unknown';
}

export const MAC_ACTIONS: Record<string, string> = {
  AXPress: 'press', AXConfirm: 'activate', AXPick: 'select', AXShowMenu: 'menu', AXIncrement: 'increment', AXDecrement: 'decrement',
  AXRaise: 'raise', AXCancel: 'cancel', AXShowDefaultUI: 'show', AXShowAlternateUI: 'show alternate',
};

/** Runs the helper once per request: `osascript -l JavaScript -e <helper> <command>`, the JSON arguments on stdin. */
export class OsascriptTransport implements HelperTransport {
  constructor(
    private readonly exec: (file: string, args: string[], input: string) => Promise<string> = execOut,
    readonly script = MAC_HELPER,
  ) {}

  /** The exact command line for one request (what the tests check): no arguments on it, they may hold a secret. */
  argv(command: string): string[] {
    return ['-l', 'JavaScript', '-e', this.script, command];
  }

  async request<T>(command: string, args: Record<string, unknown>): Promise<T> {
    let out: string;
    try {
      out = await this.exec('/usr/bin/osascript', this.argv(command), JSON.stringify(args));
    } catch (err) {
      throw new Error(macError(err instanceof Error ? err.message : String(err)));
    }
    return parseReply<T>(out);
  }

  close(): void {}
}

/** One reply of the helper: its result, or its error as a message the model can act on. */
export function parseReply<T>(out: string): T {
  let reply: { ok: boolean; result?: T; error?: string };
  try {
    reply = JSON.parse(out.trim()) as typeof reply;
  } catch {
    throw new Error(`The accessibility helper printed something that is not its JSON reply: ${out.trim().slice(0, 200) || '(nothing)'}`);
  }
  if (!reply.ok) throw new Error(macError(reply.error ?? 'the helper failed without saying why'));
  return reply.result as T;
}

/** osascript's and System Events' errors for missing permissions → the one line naming the setting. */
export function macError(message: string): string {
  if (/-1743|not authori[sz]ed to send apple events/i.test(message)) return MAC_MESSAGES.automation;
  if (/-1719|-25211|assistive access|not allowed assistive/i.test(message)) return MAC_MESSAGES.accessibility;
  if (/ENOENT/.test(message)) return MAC_MESSAGES.osascript;
  return message.split('\n')[0]!;
}

/** osascript/screencapture: fixed macOS helpers on the host (through the launcher), the script on stdin. */
async function execOut(file: string, args: string[], input: string): Promise<string> {
  const r = await runHostProgram({ program: file, args, input, timeoutMs: 30_000, maxBuffer: 64 << 20 });
  if (r.code === 0) return r.stdout;
  const why = r.error?.message ?? (r.stoppedBy === 'timeout' ? 'it did not finish within 30 s' : `exit code ${r.code ?? r.signal}`);
  throw new Error(`${(r.stderr || why).trim()}${r.error?.code === 'ENOENT' ? ' ENOENT' : ''}`);
}

interface Permissions {
  accessibility: boolean;
  screenRecording: boolean;
  systemEvents: boolean;
}

export const macPlatform: HelperPlatform = {
  platform: 'macos',
  role: macRole,
  actions: MAC_ACTIONS,
  async missing(t) {
    let p: Permissions;
    try {
      p = await t.request<Permissions>('permissions', {});
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    if (!p.accessibility) return MAC_MESSAGES.accessibility;
    if (!p.systemEvents) return MAC_MESSAGES.automation;
    return null;
  },
  async captureMissing(t) {
    const p = await t.request<Permissions>('permissions', {});
    return p.screenRecording ? null : MAC_MESSAGES.screenRecording;
  },
};

export function createMacOperator(transport: HelperTransport = new OsascriptTransport()): HelperOperator {
  return new HelperOperator(macPlatform, transport);
}
