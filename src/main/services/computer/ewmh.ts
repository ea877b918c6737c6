/**
 * Windows and focus on X11 through EWMH, read with xprop/xwininfo and changed with xdotool (x11-utils, xdotool):
 * `_NET_CLIENT_LIST_STACKING` (bottom to top), `_NET_ACTIVE_WINDOW`, each window's `_NET_WM_PID`, `WM_CLASS`,
 * `_NET_WM_NAME` and its absolute geometry. nut-js's own window calls crash without a window manager and see empty
 * titles under openbox, so they are not used.
 */
import { runHostProgram } from '../processes/launcher';
import type { Rect } from './index';

export interface XWindow {
  id: string;
  pid: number;
  wmClass: string;
  title: string;
  bounds: Rect;
}

export class Ewmh {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** xprop, xwininfo, xdotool: fixed X11 helpers on the host, with this session's display (and its X authority). */
  private async run(cmd: string, args: string[]): Promise<string> {
    const r = await runHostProgram({ program: cmd, args, source: this.env, env: this.env.XAUTHORITY ? { XAUTHORITY: this.env.XAUTHORITY } : {}, timeoutMs: 5000, maxBuffer: 1 << 20 });
    if (r.code === 0) return r.stdout;
    const why = r.error?.message ?? (r.stoppedBy === 'timeout' ? 'it did not finish within 5 s' : `exit code ${r.code ?? r.signal}`);
    throw new Error(`${cmd} failed: ${(r.stderr || why).trim().split('\n')[0]}`);
  }

  /** Managed windows, bottom to top. */
  async stacking(): Promise<string[]> {
    const out = await this.run('xprop', ['-root', '_NET_CLIENT_LIST_STACKING']);
    return ids(out);
  }

  async activeId(): Promise<string | null> {
    const out = await this.run('xprop', ['-root', '_NET_ACTIVE_WINDOW']);
    const id = ids(out)[0];
    return id && parseInt(id, 16) !== 0 ? normalize(id) : null;
  }

  async window(id: string): Promise<XWindow | null> {
    try {
      const [props, geo] = await Promise.all([this.run('xprop', ['-id', id, '_NET_WM_PID', 'WM_CLASS', '_NET_WM_NAME', 'WM_NAME']), this.run('xwininfo', ['-id', id])]);
      const pid = Number(/_NET_WM_PID\(CARDINAL\) = (\d+)/.exec(props)?.[1] ?? 0);
      const wmClass = /WM_CLASS\(STRING\) = "([^"]*)"/.exec(props)?.[1] ?? '';
      const title = unquote(/_NET_WM_NAME\(UTF8_STRING\) = (".*")/.exec(props)?.[1] ?? /WM_NAME\(\w+\) = (".*")/.exec(props)?.[1] ?? '""');
      const num = (label: string) => Number(new RegExp(`${label}:\\s+(-?\\d+)`).exec(geo)?.[1] ?? 0);
      return { id: normalize(id), pid, wmClass, title, bounds: { x: num('Absolute upper-left X'), y: num('Absolute upper-left Y'), width: num('Width'), height: num('Height') } };
    } catch {
      return null; // the window went away between listing and reading
    }
  }

  async windows(): Promise<XWindow[]> {
    const list = await this.stacking();
    return (await Promise.all(list.map((id) => this.window(id)))).filter((w): w is XWindow => !!w);
  }

  async activate(id: string): Promise<void> {
    await this.run('xdotool', ['windowactivate', '--sync', String(parseInt(id, 16))]);
  }
}

function ids(out: string): string[] {
  return [...out.matchAll(/0x[0-9a-f]+/gi)].map((m) => normalize(m[0]));
}

function normalize(id: string): string {
  return `0x${parseInt(id, 16).toString(16)}`;
}

function unquote(s: string): string {
  try {
    return JSON.parse(s) as string;
  } catch {
    return s.replace(/^"|"$/g, '');
  }
}
