/**
 * The operator for this desktop: Linux X11 (AT-SPI), macOS (the AX API through a JXA helper) and Windows (UI
 * Automation through a PowerShell helper). A Wayland session and any other platform get a `MissingOperator`, and a
 * desktop whose part is missing (no display, no accessibility bus, a permission not given) says so in one line
 * through `missing()` (no operator pretends to work).
 */
import type { ComputerOperator } from './index';
import { LinuxX11Operator } from './linux-x11';
import { createMacOperator } from './macos';
import { createWindowsOperator } from './windows';

/** Where computer use cannot run: every method refuses with the same one line. */
export class MissingOperator implements ComputerOperator {
  constructor(
    readonly platform: string,
    private readonly reason: string,
  ) {}
  async missing(): Promise<string | null> {
    return this.reason;
  }
  private fail(): never {
    throw new Error(this.reason);
  }
  apps = async () => this.fail();
  readWindow = async () => this.fail();
  element = async () => this.fail();
  doAction = async () => this.fail();
  editText = async () => this.fail();
  focus = async () => this.fail();
  activeWindow = async () => this.fail();
  windowAt = async () => this.fail();
  activate = async () => this.fail();
  click = async () => this.fail();
  scroll = async () => this.fail();
  typeText = async () => this.fail();
  pressKeys = async () => this.fail();
  capture = async () => this.fail();
  close(): void {}
}

/** A Wayland session (no X11 to drive): reported, never driven. */
export function isWayland(env: NodeJS.ProcessEnv): boolean {
  return env.XDG_SESSION_TYPE === 'wayland' || (!!env.WAYLAND_DISPLAY && !env.DISPLAY);
}

export function createOperator(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): ComputerOperator {
  if (platform === 'linux') {
    if (isWayland(env)) {
      return new MissingOperator(
        'linux-wayland',
        'This is a Wayland session: Wayland lets no app read or drive other apps\' windows, so computer use needs an X11 session (choose "GNOME on Xorg" or similar at login).',
      );
    }
    return new LinuxX11Operator(env);
  }
  if (platform === 'darwin') return createMacOperator();
  if (platform === 'win32') return createWindowsOperator();
  return new MissingOperator(platform, `Computer use is not available on ${platform}.`);
}
