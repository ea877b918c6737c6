/**
 * The desktop app's main process: one instance, one window, the runtime in main, the contract over IPC, a tray and
 * approval notifications. Built to out/main/index.js (ESM); the preload is out/preload/index.cjs.
 */
import { app, BrowserWindow, dialog } from 'electron';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PendingApproval } from '../../shared/contract';
import { errorMessage } from '../../shared/errors';
import { AppService, stderrLogger } from '../host/app-service';
import { openRuntime, resolveDataDir } from '../host/open-runtime';
import { KeytarSecretStore } from '../services/vault/secret-store';
import type { AppRuntime as Runtime } from '../host/open-runtime';
import { registerAppScheme, serveRenderer } from './app-protocol';
import { connectWindow, sendEvent } from './ipc';
import { ApprovalNotifier } from './notifications';
import { AppTray } from './tray';
import { createMainWindow, lockDownSession } from './window';

const here = dirname(fileURLToPath(import.meta.url));
const PRELOAD = join(here, '../preload/index.cjs');
const RENDERER = join(here, '../renderer');

let win: BrowserWindow | null = null;
let disconnect: (() => void) | null = null;
let runtime: Runtime | null = null;
let service: AppService | null = null;
let tray: AppTray | null = null;
let quitting = false;

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  registerAppScheme();
  app.on('second-instance', () => showWindow());
  app.on('window-all-closed', () => {
    // The tray keeps the app (and runs waiting for approval) alive; Quit from the tray ends it.
  });
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('will-quit', (event) => {
    if (!service) return;
    event.preventDefault();
    const s = service;
    service = null;
    void s.shutdown().finally(() => {
      disconnect?.();
      runtime?.store.close();
      runtime = null;
      tray?.destroy();
      app.quit();
    });
  });
  app.whenReady().then(start, (err: unknown) => fail(err));
}

async function start(): Promise<void> {
  try {
    lockDownSession();
    serveRenderer(RENDERER);
    const dataDir = resolveDataDir();
    runtime = openRuntime({ dataDir, sqliteBinding: electronSqliteBinding() });
    service = new AppService({
      runtime,
      secrets: new KeytarSecretStore(),
      dataDir,
      kind: 'electron',
      defaultFolder: app.getPath('home'),
      version: app.getVersion(),
      pickFolder: async () => {
        const options = { title: 'Choose the working folder', properties: ['openDirectory' as const, 'createDirectory' as const] };
        const result = win && !win.isDestroyed() ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
        return result.canceled ? null : (result.filePaths[0] ?? null);
      },
      // file_pick requests: the paths come from this dialog, never from the renderer.
      pickPaths: async ({ pick, multiple, prompt }) => {
        const kinds = pick === 'folder' ? (['openDirectory'] as const) : pick === 'any' ? (['openFile', 'openDirectory'] as const) : (['openFile'] as const);
        const options = { title: prompt, message: prompt, properties: [...kinds, ...(multiple ? (['multiSelections'] as const) : [])] };
        const result = win && !win.isDestroyed() ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
        return result.canceled ? null : result.filePaths;
      },
    });
    const notifier = new ApprovalNotifier(() => win, (a) => openApproval(a));
    tray = new AppTray({
      open: () => showWindow(),
      newConversation: () => {
        const w = showWindow();
        sendEvent(w, { event: 'newConversation', payload: {} });
      },
      openApproval: (a) => openApproval(a),
      quit: () => app.quit(),
    });
    service.onEvent((e) => {
      if (e.event !== 'approvalsChanged') return;
      tray?.update(e.payload.approvals);
      notifier.update(e.payload.approvals);
    });
    const { approvals } = await service.listPendingApprovals();
    tray.update(approvals);
    notifier.update(approvals);
    showWindow();
  } catch (err) {
    fail(err);
  }
}

/**
 * The better-sqlite3 build for Electron's ABI, made by `npm start` into out/native (next to, never over, the Node
 * build the CLI and tests use); undefined falls back to node_modules, which works where the two ABIs agree.
 */
function electronSqliteBinding(): string | undefined {
  const candidate = join(here, '../native', `electron-${process.versions.modules}`, 'better_sqlite3.node');
  return existsSync(candidate) ? candidate : undefined;
}

function showWindow(): BrowserWindow {
  if (!win || win.isDestroyed()) {
    if (!service) throw new Error('Deskhand is not started yet.');
    const w = createMainWindow(PRELOAD);
    win = w;
    disconnect = connectWindow(w, service, stderrLogger);
    w.on('close', (event) => {
      // Closing the window hides it; runs keep going and the tray stays.
      if (!quitting) {
        event.preventDefault();
        w.hide();
      }
    });
    w.on('closed', () => {
      disconnect?.();
      disconnect = null;
      win = null;
    });
  }
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
  return win;
}

function openApproval(a: PendingApproval): void {
  const w = showWindow();
  const send = () => sendEvent(w, { event: 'openApproval', payload: { approvalId: a.approvalId, conversationId: a.conversationId } });
  if (w.webContents.isLoading()) w.webContents.once('did-finish-load', send);
  else send();
}

function fail(err: unknown): void {
  dialog.showErrorBox('Deskhand could not start', errorMessage(err));
  app.exit(1);
}
