/**
 * The desktop app's lifecycle: one instance, one window, the runtime in main, the contract over IPC, a tray and
 * approval notifications. main.ts calls `launchDesktopApp` with the built paths; the shell tests call it on the fake
 * Electron with theirs.
 */
import { app, BrowserWindow, dialog, globalShortcut } from 'electron';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PendingApproval } from '../../shared/contract';
import { errorMessage } from '../../shared/errors';
import { AppService, stderrLogger, type Logger } from '../host/app/app-service';
import { openRuntime, resolveDataDir } from '../host/assembly/open-runtime';
import type { AppRuntime as Runtime } from '../host/assembly/open-runtime';
import { useSqliteBinding } from '../host/assembly/open-store';
import { KeytarSecretStore, type SecretStore } from '../services/vault/secret-store';
import { registerAppScheme, serveRenderer } from './app-protocol';
import { connectRemoteWindow, connectWindow, sendEvent } from './ipc';
import { attachRemote, relaunchArgs, remoteTarget } from './remote-app';
import { resolveRemote } from '../host/web/remote-command';
import type { RemoteClient } from '../host/web/remote-client';
import { ApprovalNotifier } from './notifications';
import { ElectronNotifier, ScheduleShell } from './schedule-shell';
import type { NotifyTarget } from '../services/notify';
import { ProviderSettings } from '../host/app/groups/providers';
import { PeerEndpointHost } from '../host/peers/peer-endpoint-host';
import { AppTray, STOP_COMPUTER_USE_SHORTCUT } from './tray';
import { createMainWindow, lockDownSession } from './window';

export interface DesktopAppOptions {
  /** The built preload bundle (out/preload/index.cjs). */
  preloadPath: string;
  /** The built renderer (out/renderer), served as app://deskhand/. */
  rendererDir: string;
  /** Where `npm run rebuild:electron` puts better-sqlite3 builds for Electron (out/native). */
  nativeDir: string;
  /** The keyring by default; tests pass an in-memory store. */
  secrets?: SecretStore;
  log?: Logger;
  /** Drive another machine's runtime (a pairing link or its https:// address); default: `--remote` or DESKHAND_REMOTE. */
  remote?: string | null;
}

export interface DesktopApp {
  /** Settles once the app has started (or failed to). */
  started: Promise<void>;
}

/** Where the better-sqlite3 build for this Electron's ABI lives under `nativeDir` (made by scripts/electron-native.mjs). */
export function electronSqliteBindingPath(nativeDir: string, abi = process.versions.modules): string {
  return join(nativeDir, `electron-${abi}`, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
}

const ABI_MISMATCH = /NODE_MODULE_VERSION|compiled against a different Node\.js version|invalid ELF header|not a valid Win32 application|wrong ELF class/i;

/** One line for a person at a terminal, when the native build for this Electron is missing or is the wrong one. */
export function missingNativeBuildMessage(detail: string): string {
  const electron = process.versions.electron ?? 'unknown';
  return `Deskhand cannot open its database: better-sqlite3 has no working build for Electron ${electron} (ABI ${process.versions.modules}); run \`npm run rebuild:electron\` once (needs the network) — ${detail}`;
}

const closeAtExitRuntimes = new Set<Runtime>();
function closeAtExit(runtime: Runtime): void {
  if (closeAtExitRuntimes.size === 0) {
    process.once('exit', () => {
      for (const r of closeAtExitRuntimes) r.closeStore();
    });
  }
  closeAtExitRuntimes.add(runtime);
}

/** `--open-schedule=ID` on the command line (the click of a reminder whose `deskhand fire` started the app). */
export function openArg(argv: readonly string[]): NotifyTarget | null {
  for (const a of argv) {
    const m = /^--open-schedule=([A-Za-z0-9_-]{1,64})$/.exec(a);
    if (m) return { kind: 'schedule', id: m[1]! };
  }
  return null;
}

export function launchDesktopApp(opts: DesktopAppOptions): DesktopApp {
  const log = opts.log ?? stderrLogger;
  let win: BrowserWindow | null = null;
  let disconnect: (() => void) | null = null;
  let runtime: Runtime | null = null;
  let service: AppService | null = null;
  let tray: AppTray | null = null;
  let schedule: ScheduleShell | null = null;
  let peers: PeerEndpointHost | null = null;
  /** Attached to another machine's runtime (remote-app.ts): nothing runs here, every call goes there. */
  let remote: RemoteClient | null = null;
  const driving = opts.remote === undefined ? remoteTarget(process.argv) : opts.remote;
  let quitting = false;
  /** Settings → Devices → Drive another machine (set once the data folder and keyring are known). */
  let drive: ((target: string) => Promise<{ machine: string }>) | null = null;

  if (!app.requestSingleInstanceLock()) {
    // Another Deskhand runs: it got our launch as 'second-instance' and shows its window.
    app.quit();
    return { started: Promise.resolve() };
  }
  registerAppScheme();
  app.on('second-instance', (_event, argv: string[]) => {
    if (remote) return void showWindow();
    if (!service) return;
    const target = openArg(argv);
    if (target) openTarget(target);
    else showWindow();
  });

  app.on('window-all-closed', () => {
    // The tray keeps the app (and runs waiting for approval) alive; Quit from the tray ends it.
  });
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('will-quit', (event) => {
    remote?.close();
    if (!service) return;
    event.preventDefault();
    const s = service;
    service = null;
    const endpoint = peers;
    peers = null;
    void Promise.all([endpoint?.close(), s.shutdown(), schedule?.stop()]).finally(() => {
      disconnect?.();
      disconnect = null;
      // Not closed here: a run waiting for approval stays waiting (it resumes after a restart) and its poll still
      // reads the store until the process is gone. The store closes as the process exits.
      if (runtime) closeAtExit(runtime);
      runtime = null;
      tray?.destroy();
      tray = null;
      app.quit();
    });
  });

  const started = app.whenReady().then(start, (err: unknown) => fail(err));

  async function start(): Promise<void> {
    try {
      // An MCP App view may reach what it declared (answered by this app's service; nothing while driving another machine).
      lockDownSession((ticket, url, kind) => service?.viewReaches(ticket, url, kind) ?? false);
      // The OS jobs this app arms start it on a reminder whose notification was clicked with the app closed.
      process.env.DESKHAND_APP_COMMAND ??= JSON.stringify(app.isPackaged ? [process.execPath] : [process.execPath, app.getAppPath()]);
      const dataDir = resolveDataDir();
      const secrets = opts.secrets ?? new KeytarSecretStore();
      drive = async (target) => {
        const to = await resolveRemote(target, dataDir, secrets); // pairs with a link, or finds the pairing made before
        restart(to.url);
        return { machine: to.machine };
      };
      if (driving) return await startRemote(driving, dataDir, secrets);
      serveRenderer(opts.rendererDir, (ticket) => service?.compositionPage(ticket) ?? null);
      const opened = openStore(dataDir);
      if (!opened) return;
      runtime = opened;
      service = new AppService({
        runtime,
        secrets,
        dataDir,
        kind: 'electron',
        defaultFolder: app.getPath('home'),
        version: app.getVersion(),
        log,
        driveMachine: (target) => drive!(target),
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
      // "Accept requests from peers" (Settings → Peers): the A2A endpoint in this process, if it is on.
      peers = new PeerEndpointHost({ runtime, service, dataDir, log });
      await peers.start();
      const notifier = new ApprovalNotifier(
        () => win,
        (a) => openApproval(a),
        // Approve/Deny pressed on the notification (offered only where answerableFromNotification allows).
        (a, decision) => void service?.decideApproval({ approvalId: a.approvalId, decision }).catch((err: unknown) => log.warn('answering from the notification failed', { error: errorMessage(err) })),
      );
      const providers = new ProviderSettings({ dataDir, secrets, env: process.env, log, override: null });
      const svc = service;
      schedule = new ScheduleShell({
        runtime,
        provider: (run) => (run ? providers.forRun(run) : providers.forNewRun()),
        open: (target) => openTarget(target),
        changed: () => tray?.refresh(),
        tickMs: Number(process.env.DESKHAND_SCHEDULE_TICK_MS) || undefined,
        onError: (err) => log.warn('scheduling failed', { error: errorMessage(err) }),
        stopHostRuns: async () => {
          const { conversations } = await svc.listConversations();
          await Promise.all(conversations.filter((c) => c.activity === 'running').map((c) => svc.stopRun({ conversationId: c.id })));
        },
      });
      const shell = schedule;
      tray = new AppTray({
        open: () => showWindow(),
        newConversation: () => {
          const w = showWindow();
          whenLoaded(w, () => sendEvent(w, { event: 'newConversation', payload: {} }));
        },
        openApproval: (a) => openApproval(a),
        stopComputerUse: () => void service?.stopComputerUse({}),
        quit: () => app.quit(),
        schedule: () => shell.menuItems(),
        stopAllRuns: () => void shell.stopAll(),
      });
      schedule.start();
      // The computer-use kill switch works from anywhere, whichever app has the focus.
      globalShortcut.register(STOP_COMPUTER_USE_SHORTCUT, () => void service?.stopComputerUse({}));
      service.onEvent((e) => e.event === 'computerChanged' && tray?.setComputerUse([...new Set(e.payload.sessions.flatMap((s) => s.apps))]));
      service.onEvent((e) => {
        if (e.event !== 'approvalsChanged') return;
        tray?.update(e.payload.approvals);
        notifier.update(e.payload.approvals);
      });
      const { approvals } = await service.listPendingApprovals({});
      tray.update(approvals);
      notifier.update(approvals);
      const target = openArg(process.argv);
      if (target) openTarget(target);
      else showWindow();
    } catch (err) {
      fail(err);
    }
  }

  /** Attached to another machine: its approvals notify here, a resync reloads the page, closing the window quits. */
  async function startRemote(target: string, dataDir: string, secrets: SecretStore): Promise<void> {
    const client = await attachRemote({ target, dataDir, secrets, log });
    remote = client;
    serveRenderer(opts.rendererDir, undefined, client.machine);
    const notifier = new ApprovalNotifier(
      () => win,
      (a) => openApproval(a),
      (a, decision) => void client.call('decideApproval', { approvalId: a.approvalId, decision }),
    );
    client.onEvent((e) => e.event === 'approvalsChanged' && notifier.update(e.payload.approvals));
    client.onResync(() => win?.webContents.reload());
    client.onState((s) => s === 'revoked' && log.warn(`remote: this machine is no longer paired with ${client.machine}`));
    showWindow();
    const pending = await client.call('listPendingApprovals', {});
    if (pending.ok) notifier.update((pending.result as { approvals: PendingApproval[] }).approvals);
  }

  /**
   * Opens the store with the better-sqlite3 build for this Electron. A packaged app has it in node_modules (electron-
   * builder rebuilt it); from a checkout it is the one in out/native. Missing or wrong: one line and exit, no dialog.
   */
  function openStore(dataDir: string): Runtime | null {
    let binding: string | undefined;
    if (!app.isPackaged) {
      binding = electronSqliteBindingPath(opts.nativeDir);
      if (!existsSync(binding)) return nativeFailure(`${binding} is missing`);
    }
    // Every store of this process, and the job worker it launches, opens with this build.
    useSqliteBinding(binding);
    try {
      // Notifications through Electron (a click reaches this process); the runtime's one notifier.
      return openRuntime({ dataDir, notifier: new ElectronNotifier() });
    } catch (err) {
      const dlopen = (err as { code?: unknown } | null)?.code === 'ERR_DLOPEN_FAILED';
      if (dlopen || ABI_MISMATCH.test(errorMessage(err))) return nativeFailure(errorMessage(err).split('\n')[0]!);
      throw err;
    }
  }

  /**
   * Restarts the app driving `url`, or on this computer's own runtime (null): Electron starts the new process as this
   * one ends. The quit waits a moment so the window gets its answer first; a local runtime shuts down as on any quit.
   */
  function restart(url: string | null): void {
    app.relaunch({ args: relaunchArgs(process.argv, url) });
    setTimeout(() => app.quit(), 200);
  }

  function nativeFailure(detail: string): null {
    process.stderr.write(`${missingNativeBuildMessage(detail)}\n`);
    app.exit(1);
    return null;
  }

  function showWindow(): BrowserWindow {
    if (!win || win.isDestroyed()) {
      if (!service && !remote) throw new Error('Deskhand is not started yet.');
      const w = createMainWindow(opts.preloadPath);
      win = w;
      disconnect = remote ? connectRemoteWindow(w, remote, log, { driveMachine: (target) => drive!(target), stopDriving: () => restart(null) }) : connectWindow(w, service!, log);
      w.on('close', (event) => {
        // Closing the window hides it; runs keep going and the tray stays (attached to a remote, nothing runs here: it quits).
        if (!quitting && !remote) {
          event.preventDefault();
          w.hide();
        }
      });
      w.on('closed', () => {
        disconnect?.();
        disconnect = null;
        win = null;
        if (remote) app.quit();
      });
    }
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
    return win;
  }

  /** Shows what a notification announces: an approval, a conversation, a reminder's conversation. */
  function openTarget(target: NotifyTarget): void {
    const w = showWindow();
    let conversationId: string | null = null;
    if (target.kind === 'approval') {
      const a = runtime?.records.getApproval(target.id);
      const run = a ? runtime?.records.getRun(a.run_id) : undefined;
      if (a && run) whenLoaded(w, () => sendEvent(w, { event: 'openApproval', payload: { approvalId: a.id, conversationId: run.conversation_id } }));
      return;
    }
    if (target.kind === 'conversation') conversationId = target.id;
    else conversationId = runtime?.schedules.get(target.id)?.conversation_id ?? null;
    const id = conversationId;
    if (id && runtime?.records.getConversation(id)) whenLoaded(w, () => sendEvent(w, { event: 'openConversation', payload: { conversationId: id } }));
  }

  function whenLoaded(w: BrowserWindow, send: () => void): void {
    if (w.webContents.isLoading()) w.webContents.once('did-finish-load', send);
    else send();
  }

  function openApproval(a: PendingApproval): void {
    const w = showWindow();
    whenLoaded(w, () => sendEvent(w, { event: 'openApproval', payload: { approvalId: a.approvalId, conversationId: a.conversationId } }));
  }

  function fail(err: unknown): void {
    process.stderr.write(`Deskhand could not start: ${errorMessage(err)}\n`);
    dialog.showErrorBox('Deskhand could not start', errorMessage(err));
    app.exit(1);
  }

  return { started };
}
