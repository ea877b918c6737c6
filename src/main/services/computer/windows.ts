/**
 * The Windows operator: UI Automation through the PowerShell helper (`windows-helper.ts`), started once per Deskhand
 * and kept running (PowerShell and UIAutomationClient take about a second to load), one JSON line per request and
 * reply; synthesized input and capture through nut-js.
 */
import { launchHostProgram, type ChildProcessWithoutNullStreams } from '../processes/launcher';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HelperOperator, type HelperPlatform, type HelperTransport } from './desktop-helper';
import { WIN_HELPER } from './windows-helper';

export const WIN_MESSAGES = {
  powershell: 'Computer use on Windows runs a small UI Automation helper in Windows PowerShell (powershell.exe), which could not be started: check that %SystemRoot%\\System32\\WindowsPowerShell\\v1.0 is on the PATH.',
  uia: 'UI Automation could not be loaded in PowerShell (the UIAutomationClient assembly of .NET Framework is missing): turn on .NET Framework 4.8 in Windows Features.',
} as const;

/** UIA control types (ControlType.Button) → the outline's role words (the ones AT-SPI uses on Linux). */
const ROLES: Record<string, string> = {
  Window: 'frame', Pane: 'panel', Group: 'panel', Button: 'push button', SplitButton: 'push button', CheckBox: 'check box', RadioButton: 'radio button',
  Edit: 'text', Document: 'document text', Text: 'label', Hyperlink: 'link', ComboBox: 'combo box', List: 'list', ListItem: 'list item',
  Menu: 'menu', MenuBar: 'menu bar', MenuItem: 'menu item', Tab: 'page tab list', TabItem: 'page tab', Tree: 'tree', TreeItem: 'tree item',
  Table: 'table', DataGrid: 'table', DataItem: 'table row', Header: 'table column header', HeaderItem: 'table column header', Image: 'image',
  ProgressBar: 'progress bar', ScrollBar: 'scroll bar', Slider: 'slider', Spinner: 'spin button', StatusBar: 'status bar', ToolBar: 'tool bar',
  ToolTip: 'tool tip', TitleBar: 'title bar', Separator: 'separator', Calendar: 'calendar', Thumb: 'slider', Custom: 'panel', AppBar: 'tool bar',
  SemanticZoom: 'panel',
};

export function winRole(role: string): string {
  const name = role.replace(/^ControlType\./, '');
  return ROLES[name] ?? (name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() || 'unknown');
}

/** UIA patterns the helper acts through → the service's action names. */
export const WIN_ACTIONS: Record<string, string> = { Invoke: 'click', Toggle: 'toggle', SelectionItem: 'select', ExpandCollapse: 'expand' };

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

/** The helper kept running: requests are numbered, replies matched by number; a helper that dies fails what waits. */
export class PowerShellTransport implements HelperTransport {
  private child: ChildProcessWithoutNullStreams | null = null;
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = '';
  private stderr = '';

  /** `command` and `args` start the helper; the default is Windows PowerShell running the script from a file. */
  constructor(private readonly start: () => ChildProcessWithoutNullStreams = () => spawnPowerShell()) {}

  private ensure(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = this.start();
    this.child = child;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => this.onData(d));
    child.stderr.on('data', (d: Buffer) => void (this.stderr = (this.stderr + d.toString()).slice(-2000)));
    const fail = (why: string) => {
      if (this.child === child) this.child = null;
      for (const p of this.pending.values()) p.reject(new Error(why));
      this.pending.clear();
    };
    child.on('error', (err: NodeJS.ErrnoException) => fail(err.code === 'ENOENT' ? WIN_MESSAGES.powershell : `The UI Automation helper failed: ${err.message}`));
    child.on('exit', (code) => fail(winError(`The UI Automation helper stopped (exit ${code})${this.stderr.trim() ? `: ${this.stderr.trim().split('\n')[0]}` : ''}.`)));
    child.stdin.on('error', () => undefined);
    return child;
  }

  private onData(d: string): void {
    this.buffer += d;
    let nl: number;
    while ((nl = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (!line) continue;
      let reply: { id?: number; ok?: boolean; result?: unknown; error?: string };
      try {
        reply = JSON.parse(line) as typeof reply;
      } catch {
        continue; // not a reply (a stray line PowerShell printed)
      }
      const p = this.pending.get(Number(reply.id));
      if (!p) continue;
      this.pending.delete(Number(reply.id));
      if (reply.ok) p.resolve(reply.result ?? null);
      else p.reject(new Error(winError(reply.error ?? 'the helper failed without saying why')));
    }
  }

  request<T>(command: string, args: Record<string, unknown>): Promise<T> {
    const child = this.ensure();
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`The UI Automation helper did not answer "${command}" within 30 s (the app may be hung).`));
      }, 30_000);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.stdin.write(`${JSON.stringify({ id, cmd: command, args })}\n`);
    });
  }

  close(): void {
    const child = this.child;
    this.child = null;
    if (child) {
      child.stdin.end();
      if (child.pid) child.kill();
    }
  }
}

/** Windows' errors → what to do about them. */
export function winError(message: string): string {
  if (/UIAutomationClient|Add-Type.*UIAutomation|System\.Windows\.Automation.*not found/i.test(message)) return WIN_MESSAGES.uia;
  if (/access is denied|E_ACCESSDENIED|0x80070005/i.test(message)) {
    return `${message.split('\n')[0]} — the app runs with higher rights than Deskhand (Windows keeps non-elevated programs from reading or driving elevated ones); run the app normally, or run Deskhand as administrator.`;
  }
  return message.split('\n')[0]!;
}

/** The helper's script as a file (PowerShell reads its program from a file; stdin carries the requests). */
export function helperFile(dir = join(tmpdir(), 'deskhand')): string {
  const file = join(dir, `uia-helper-${createHash('sha256').update(WIN_HELPER).digest('hex').slice(0, 12)}.ps1`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    // With a byte-order mark, Windows PowerShell 5.1 reads the script as UTF-8.
    writeFileSync(file, `\ufeff${WIN_HELPER}`);
  }
  return file;
}

export function powerShellArgs(file: string): string[] {
  return ['-NoLogo', '-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-File', file];
}

function spawnPowerShell(): ChildProcessWithoutNullStreams {
  // Deskhand's own UI helper script, long-lived, spoken to over its pipes (host program, credential-filtered env).
  return launchHostProgram({ program: 'powershell.exe', args: powerShellArgs(helperFile()), stdio: ['pipe', 'pipe', 'pipe'], ownGroup: false }).child as ChildProcessWithoutNullStreams;
}

export const winPlatform: HelperPlatform = {
  platform: 'windows',
  role: (role) => winRole(role),
  actions: WIN_ACTIONS,
  async missing(t) {
    try {
      await t.request('probe', {});
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  },
};

export function createWindowsOperator(transport: HelperTransport = new PowerShellTransport()): HelperOperator {
  return new HelperOperator(winPlatform, transport);
}
