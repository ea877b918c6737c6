/**
 * The app's lifecycle on the fake Electron: one instance, the window that hides instead of closing, the tray and its
 * menu, notifications that open the approval they announce, quitting that ends every process Deskhand started, and
 * the one-line message (never a dialog) when the native build for this Electron is missing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContractEvent, PendingApproval } from '../../src/shared/contract';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { processesWith, until } from '../support/tasks';
import { build, captured, launch, quitApp, type Launched } from './harness';
import { app as electronApp, fake, settle, type RendererWorld } from './fake-electron';

let server: ModelServer | null = null;

afterEach(async () => {
  if (fake.exitCode === null) await quitApp();
  await server?.close();
  server = null;
});

async function launchWithModel(): Promise<Launched> {
  server = await startModelServer();
  return launch({ modelUrl: server.baseURL });
}

/** Every contract event the page receives from now on. */
function pageEvents(world: RendererWorld): ContractEvent[] {
  const seen: ContractEvent[] = [];
  const bridge = world.mainWorld.deskhand as { on(e: string, l: (p: unknown) => void): () => void };
  for (const event of ['openApproval', 'newConversation', 'approvalsChanged'] as const) bridge.on(event, (payload) => seen.push({ event, payload } as ContractEvent));
  return seen;
}

/** Starts a run that asks to write a file, and resolves with the approval it waits on. */
async function waitingApproval(app: Launched, file = 'notes.txt'): Promise<PendingApproval> {
  server!.enqueue(reply().text('Writing.').tool('write_file', { path: file, content: 'hello\n' }));
  server!.enqueue(reply().text('Done.'));
  const api = await app.api();
  const c = await api.createConversation({ folder: app.work, policy: 'read-only', title: `write ${file}` });
  await api.sendMessage({ conversationId: c.id, text: `write ${file}` });
  return until(async () => (await api.listPendingApprovals({})).approvals.find((a) => a.conversationId === c.id), 'the approval');
}

describe('one instance', () => {
  it('a second launch quits at once, without a window, a tray or opening the store', async () => {
    const app = await launch({ lockHeld: true });
    expect(await fake.exited()).toBe(0);
    expect(fake.windows).toEqual([]);
    expect(fake.trays).toEqual([]);
    expect(existsSync(join(app.dataDir, 'deskhand.db'))).toBe(false);
  });

  it('the first instance shows its window when another launch hands off', async () => {
    await launch();
    const win = fake.windows[0]!;
    expect(win.close()).toBe(false); // closing hides
    expect(win.isVisible()).toBe(false);
    fake.secondInstance(['deskhand'], '/tmp');
    expect(fake.windows).toEqual([win]);
    expect(win.isVisible()).toBe(true);
    expect(win.isFocused()).toBe(true);
  });
});

describe('the window', () => {
  it('closing hides it; the app, the tray and running work stay', async () => {
    const app = await launch();
    const win = await app.window();
    win.close();
    await settle();
    expect(fake.exitCode).toBeNull();
    expect(fake.windows).toEqual([win]);
    expect(win.isVisible()).toBe(false);
    expect(fake.trays).toHaveLength(1);
    // The API still answers (the page is alive, only hidden).
    expect((await (await app.api()).listConversations({})).conversations).toEqual([]);
  });

  it('the folder picker is the native dialog', async () => {
    const app = await launch();
    fake.answerOpenDialog({ canceled: false, filePaths: [app.work] });
    expect(await (await app.api()).pickFolder({})).toEqual({ folder: app.work });
    expect(fake.openDialogCalls[0]).toMatchObject({ properties: expect.arrayContaining(['openDirectory']) });
    expect(await (await app.api()).pickFolder({})).toEqual({ folder: null });
  });
});

describe('the tray', () => {
  it('has Open, New conversation, the approvals count and Quit; each does what it says', async () => {
    const app = await launchWithModel();
    const tray = fake.trays[0]!;
    expect(tray.menu!.items.map((i) => (i.type === 'separator' ? '—' : `${i.label}${i.enabled ? '' : ' (disabled)'}`))).toEqual([
      'Open Deskhand',
      'New conversation',
      '—',
      'Nothing scheduled (disabled)',
      '—',
      'No approvals waiting (disabled)',
      'Stop all runs',
      'Stop computer use',
      '—',
      'Quit Deskhand',
    ]);
    // The computer-use kill switch: a tray item and a global shortcut.
    expect(tray.item('Stop computer use').accelerator).toBe('CommandOrControl+Alt+Shift+X');
    expect(tray.toolTip).toBe('Deskhand');
    expect(tray.image).toMatchObject({});
    expect((tray.image as { getSize(): { width: number } }).getSize().width).toBeGreaterThan(0);

    const win = await app.window();
    const events = pageEvents(await app.world());
    win.close();
    tray.item('Open Deskhand').click();
    expect(win.isVisible()).toBe(true);

    win.close();
    tray.item('New conversation').click();
    expect(win.isVisible()).toBe(true);
    await until(() => events.some((e) => e.event === 'newConversation'), 'newConversation at the page');

    const approval = await waitingApproval(app);
    await until(() => tray.item(/approval/).label === '1 approval waiting', 'the tray to count the approval');
    expect(tray.toolTip).toBe('Deskhand — 1 waiting for you');
    win.close();
    tray.item('1 approval waiting').click();
    expect(win.isVisible()).toBe(true);
    const opened = await until(() => events.find((e) => e.event === 'openApproval'), 'openApproval at the page');
    expect(opened.payload).toEqual({ approvalId: approval.approvalId, conversationId: approval.conversationId });

    tray.item('Quit Deskhand').click();
    expect(await fake.exited()).toBe(0);
    expect(fake.trays).toEqual([]);
  });
});

describe('notifications', () => {
  it('announce a new approval while the window is not focused; the click opens that approval', async () => {
    const app = await launchWithModel();
    const win = await app.window();
    const events = pageEvents(await app.world());
    win.blur();
    const approval = await waitingApproval(app, 'secret-plan.txt');
    const n = await until(() => fake.notifications[0], 'a notification');
    expect(fake.notifications).toHaveLength(1);
    expect(n.shown).toBe(true);
    expect(n.title).toBe(`Approval needed: Write a file in ${app.work.split('/').slice(-2).join('/').replace(/^/, '…/')}`);
    expect(n.body).toContain('high-risk');
    expect(`${n.title} ${n.body}`).not.toContain('hello'); // never the content
    win.hide();
    n.clickByPerson();
    expect(win.isVisible()).toBe(true);
    const opened = await until(() => events.find((e) => e.event === 'openApproval'), 'openApproval at the page');
    expect(opened.payload).toEqual({ approvalId: approval.approvalId, conversationId: approval.conversationId });
  });

  it('offer Approve and Deny on a low-risk approval (pressing Approve runs it), none on a high-risk one', async () => {
    const app = await launchWithModel();
    const win = await app.window();
    win.blur();
    server!.enqueue(reply().tool('execute_command', { command: 'mkdir made-from-notification' }), reply().text('Made.'));
    const api = await app.api();
    const c = await api.createConversation({ folder: app.work, policy: 'read-only', title: 'make a folder' });
    await api.sendMessage({ conversationId: c.id, text: 'make it' });
    const low = await until(() => fake.notifications.find((n) => n.body.startsWith('make a folder')), 'the low-risk notification');
    expect(low.body).toBe('make a folder — low-risk');
    expect(low.actions.map((a) => a.text)).toEqual(['Approve', 'Deny']);
    low.pressByPerson('Approve');
    await until(() => existsSync(join(app.work, 'made-from-notification')), 'the approved command to run');
    await until(async () => (await api.listConversations({})).conversations.find((x) => x.id === c.id)?.activity === 'idle', 'the run to end');
    const high = await waitingApproval(app, 'high.txt');
    const h = await until(() => fake.notifications.find((n) => n.body.startsWith(high.conversationTitle)), 'the high-risk notification');
    expect(h.body).toContain('high-risk');
    expect(h.actions).toEqual([]);
  });

  it('stay quiet while the window has focus, and for approvals already waiting at launch', async () => {
    const app = await launchWithModel();
    await app.window();
    await waitingApproval(app, 'a.txt');
    // The tray and the notifier hear the same event, the tray first: once it counts the approval, the notifier has run.
    await until(() => fake.trays[0]?.item(/approval/).label === '1 approval waiting', 'the tray to count the approval');
    expect(fake.notifications).toEqual([]);
    await quitApp();

    const again = await launch({ modelUrl: server!.baseURL, dataDir: app.dataDir });
    const win = await again.window();
    win.blur();
    await until(() => fake.trays[0]?.item(/approval/).label === '1 approval waiting', 'the tray to show the approval that survived');
    expect(fake.notifications).toEqual([]);
  });
});

describe('quit', () => {
  it('ends every process group Deskhand started: a running command and a background task', async () => {
    const app = await launchWithModel();
    const marker = `${4000 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    const api = await app.api();
    server!.enqueue(reply().tool('execute_command', { command: `sleep ${marker}1`, run_in_background: true, description: 'bg sleep' }));
    server!.enqueue(reply().text('Started.'));
    const bg = await api.createConversation({ folder: app.work, policy: 'high-risk' });
    await api.sendMessage({ conversationId: bg.id, text: 'start it' });
    server!.enqueue(reply().tool('execute_command', { command: `sleep ${marker}2` }));
    server!.enqueue(reply().text('Slept.'));
    const fg = await api.createConversation({ folder: app.work, policy: 'high-risk' });
    await api.sendMessage({ conversationId: fg.id, text: 'sleep' });
    await until(() => processesWith(`sleep ${marker}1`).length > 0 && processesWith(`sleep ${marker}2`).length > 0, 'both sleeps to run', 20_000);

    fake.trays[0]!.item('Quit Deskhand').click();
    expect(await fake.exited()).toBe(0);
    expect(processesWith(`sleep ${marker}`)).toEqual([]);
    expect(fake.windows).toEqual([]);
  });

  it('Quit closes the window that the close button only hides', async () => {
    const win = await (await launch()).window();
    win.close();
    expect(win.isDestroyed()).toBe(false);
    electronApp.quit();
    expect(await fake.exited()).toBe(0);
    expect(win.isDestroyed()).toBe(true);
  });
});

describe('the native build for Electron', () => {
  it('missing: one line on stderr naming the fix, exit 1, no dialog, no window', async () => {
    const app = await launch({ nativeBuild: false });
    expect(await fake.exited()).toBe(1);
    expect(fake.errorBoxes).toEqual([]);
    expect(fake.windows).toEqual([]);
    const lines = app.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Deskhand cannot open its database: better-sqlite3 has no working build for Electron .*npm run rebuild:electron/);
  });

  it('the wrong ABI (what nodedir=/usr silently produces): the same one line, no dialog', async () => {
    const { writeFileSync } = await import('node:fs');
    const { electronSqliteBindingPath } = await import('../../src/main/electron/desktop-app');
    const root = await launch({ nativeBuild: false, lockHeld: true });
    await fake.exited();
    // A file that is not a loadable build stands in for one made for another ABI.
    const { mkdirSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    const target = electronSqliteBindingPath(root.nativeDir);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, 'not an ELF file');
    const { launchDesktopApp } = await import('../../src/main/electron/desktop-app');
    fake.reset({ home: root.work });
    const { text } = await captured(process.stderr, async () => {
      const started = launchDesktopApp({ preloadPath: build().preload, rendererDir: build().renderer, nativeDir: root.nativeDir }).started;
      await fake.ready();
      await started;
    });
    expect(await fake.exited()).toBe(1);
    expect(fake.errorBoxes).toEqual([]);
    expect(text.trim().split('\n')).toEqual([expect.stringMatching(/^Deskhand cannot open its database: .*npm run rebuild:electron.*(invalid ELF header|too short|NODE_MODULE_VERSION)/)]);
  });

  it('the entry (main.ts) launches the app with paths beside its build: from the sources there is no build, so one line', async () => {
    fake.reset();
    const { text } = await captured(process.stderr, async () => {
      await import('../../src/main/electron/main');
      await fake.ready();
      expect(await fake.exited()).toBe(1);
    });
    expect(fake.privilegedSchemes.map((s) => s.scheme)).toEqual(['app']);
    expect(fake.errorBoxes).toEqual([]);
    expect(text).toMatch(/^Deskhand cannot open its database: .*src\/main\/native\/electron-\d+\/node_modules\/better-sqlite3\/build\/Release\/better_sqlite3\.node is missing\n$/);
  });
});
