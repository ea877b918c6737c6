/**
 * The fake keeps Electron's rules (the ones the shell's bugs came from), so a test on it cannot pass where the real
 * Electron would fail. Each case here is documented Electron behaviour.
 */
import { describe, expect, it } from 'vitest';
import { BrowserWindow, Menu, Notification, Tray, app, bridgeCopy, fake, ipcMain, nativeImage, protocol, session } from './fake-electron';

describe('the fake Electron', () => {
  it('refuses ready-only APIs before ready, and privileged schemes after it', async () => {
    fake.reset();
    expect(() => new BrowserWindow()).toThrow(/before the app is ready/);
    expect(() => session.defaultSession).toThrow(/before the app is ready/);
    expect(() => new Tray(nativeImage.createFromDataURL('data:,'))).toThrow(/before the app is ready/);
    expect(() => new Notification({ title: 't' })).toThrow(/before the app is ready/);
    expect(() => protocol.handle('app', () => new Response(''))).toThrow(/before the app is ready/);
    protocol.registerSchemesAsPrivileged([{ scheme: 'app', privileges: { standard: true } }]);
    await fake.ready();
    expect(() => protocol.registerSchemesAsPrivileged([{ scheme: 'x' }])).toThrow(/before app is ready/);
    expect(app.isReady()).toBe(true);
  });

  it('drops custom error properties across contextBridge, as Electron does', async () => {
    const coded = Object.assign(new Error('busy'), { code: 'conflict' });
    const api = bridgeCopy({ fail: async () => Promise.reject(coded), throwNow: () => { throw coded; }, data: { code: 'conflict' } }) as { fail(): Promise<never>; throwNow(): never; data: { code: string } };
    const err = await api.fail().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('busy');
    expect((err as { code?: string }).code).toBeUndefined();
    expect(() => api.throwNow()).toThrow('busy');
    expect(api.data).toEqual({ code: 'conflict' }); // data crosses
  });

  it('copies objects across the bridge without their prototype', () => {
    class Thing {
      a = 1;
      method(): number {
        return 2;
      }
    }
    const copied = bridgeCopy(new Thing()) as Record<string, unknown>;
    expect(copied).toEqual({ a: 1 });
    expect(copied.method).toBeUndefined();
  });

  it('structured-clones IPC: a function cannot be sent', async () => {
    fake.reset();
    await fake.ready();
    ipcMain.handle('echo', (_e, v) => v);
    const win = new BrowserWindow();
    await expect(win.webContents.invokeFrom(win.webContents.mainFrame, 'echo', { f: () => 1 })).rejects.toThrow(/could not be cloned/);
    expect(await win.webContents.invokeFrom(win.webContents.mainFrame, 'echo', { n: 1 })).toEqual({ n: 1 });
    expect(() => ipcMain.handle('echo', () => 0)).toThrow(/second handler/);
  });

  it('runs a menu item role instead of its click', async () => {
    fake.reset();
    await fake.ready();
    let clicked = false;
    const menu = Menu.buildFromTemplate([{ label: 'Quit', role: 'quit', click: () => (clicked = true) }]);
    menu.items[0]!.click();
    expect(await fake.exited()).toBe(0);
    expect(clicked).toBe(false);
  });

  it('quits only when no window refuses to close', async () => {
    fake.reset();
    await fake.ready();
    const win = new BrowserWindow();
    let refuse = true;
    win.on('close', (e: { preventDefault(): void }) => refuse && e.preventDefault());
    app.quit();
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    expect(fake.exitCode).toBeNull();
    refuse = false;
    app.quit();
    expect(await fake.exited()).toBe(0);
    expect(win.isDestroyed()).toBe(true);
  });

  it('grants permissions when no handler is set (so the shell must set one)', async () => {
    fake.reset();
    await fake.ready();
    const win = new BrowserWindow();
    expect(await fake.session().requestPermission(win.webContents, 'media')).toBe(true);
    expect(win.webContents.pageOpensWindow('https://example.com')).toBe('allow');
  });
});
