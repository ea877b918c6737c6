/**
 * Computer use without a desktop: the operators that say what is missing (Wayland, other platforms; macOS and
 * Windows in computer-macos.test.ts and computer-windows.test.ts), the grant book
 * (exactly what was granted, expiry, revoke), the app-grants inspector (asks for ungranted, refuses revoked), the
 * app_grant kind (grant less, never more), the PNG encoder (BGRA → RGBA, opaque), the kill switch's reach into runs,
 * the screenshot door of the contract, and `deskhand grants list | revoke APP` through the real binary.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import type { RunOptions } from '../../src/main/runtime/runtime';
import { ComputerUseService } from '../../src/main/services/computer/computer-use';
import { StoreGrantBook } from '../../src/main/services/computer/grant-book';
import { parseKeyCombo } from '../../src/main/services/computer/index';
import { createOperator, MissingOperator } from '../../src/main/services/computer/operators';
import { encodePng } from '../../src/main/services/computer/png';
import { appGrantsModule } from '../../src/main/services/store/modules/app-grants';
import { Store } from '../../src/main/services/store/store';
import { createComputerFamily } from '../../src/main/tools/computer';
import { appGrantKind } from '../../src/main/tools/computer/grant';
import { KillableRuns, wireKillSwitch } from '../../src/main/host/assembly/computer-kill';
import { computerGroup } from '../../src/main/host/app/groups/computer';
import type { HandlerContext } from '../../src/main/host/app/handler-groups';
import type { AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { makeContext, tempDir } from '../support/tool-context';
import { requireBuild, runCli } from '../support/cli';

function book(now = () => Date.now()) {
  const dir = tempDir('deskhand-data-');
  const store = new Store(dir);
  return { store, dir, grants: new StoreGrantBook(store.module(appGrantsModule), now) };
}

describe('operators that cannot run say what is missing, in one line', () => {
  it.each([
    ['freebsd', {}, /Computer use is not available on freebsd/],
    ['linux', { XDG_SESSION_TYPE: 'wayland', WAYLAND_DISPLAY: 'wayland-0' }, /Wayland session/],
    ['linux', { WAYLAND_DISPLAY: 'wayland-0' }, /Wayland session/],
  ] as const)('%s %j', async (platform, env, line) => {
    const op = createOperator(env as NodeJS.ProcessEnv, platform);
    expect(op).toBeInstanceOf(MissingOperator);
    const missing = await op.missing();
    expect(missing).toMatch(line);
    expect(missing!.split('\n')).toHaveLength(1);
    // Every tool says the same line to the model.
    const { grants, store } = book();
    const computer = new ComputerUseService({ operator: op, grants, dataDir: tempDir() });
    const apps = createComputerFamily({ computer }).tools.find((t) => t.name === 'computer_apps') as ToolDefinition;
    await expect(apps.execute({}, makeContext(tempDir()))).rejects.toThrow(missing!);
    grants.grant('x', ['observe'], null);
    await expect(computer.observe('run_1', 'x', {})).rejects.toThrow(missing!);
    store.close();
  });

  it('an X11 session without a display or bus says which', async () => {
    expect(await createOperator({}, 'linux').missing()).toMatch(/DISPLAY is not set/);
    expect(await createOperator({ DISPLAY: ':5' }, 'linux').missing()).toMatch(/DBUS_SESSION_BUS_ADDRESS is not set/);
  });
});

describe('app grants', () => {
  it('grants exactly what was asked, expires, and a revoke is remembered until granted again', () => {
    let now = 1_000_000;
    const { grants, store } = book(() => now);
    grants.grant('zenity', ['observe', 'input'], 10);
    expect(grants.isGranted('zenity', 'observe')).toBe(true);
    expect(grants.isGranted('zenity', 'pointer')).toBe(false);
    expect(grants.get('zenity')?.expiresAt).toBe(1_000_000 + 600_000);
    now += 600_001;
    expect(grants.isGranted('zenity', 'observe')).toBe(false);
    expect(grants.list()).toEqual([]);
    grants.grant('zenity', ['observe'], null);
    expect(grants.revoke('zenity')).toBe(true);
    expect(grants.revoke('zenity')).toBe(false);
    expect(grants.wasRevoked('zenity')).toBe(true);
    expect(grants.isGranted('zenity', 'observe')).toBe(false);
    grants.grant('zenity', ['pointer'], null);
    expect(grants.wasRevoked('zenity')).toBe(false);
    expect(grants.get('zenity')?.capabilities).toEqual(['pointer']);
    store.close();
  });

  it('grants add up: each capability keeps its own end until it expires or the app is revoked', () => {
    let now = 1_000_000;
    const { grants, store } = book(() => now);
    grants.grant('zenity', ['observe'], 60);
    grants.grant('zenity', ['input'], 10);
    expect(grants.get('zenity')?.capabilities).toEqual(['observe', 'input']);
    expect(grants.get('zenity')?.ends).toEqual({ observe: 1_000_000 + 3_600_000, input: 1_000_000 + 600_000 });
    expect(grants.get('zenity')?.expiresAt).toBe(1_000_000 + 3_600_000);
    now += 600_001; // input ended, observe has not
    expect(grants.isGranted('zenity', 'input')).toBe(false);
    expect(grants.isGranted('zenity', 'observe')).toBe(true);
    grants.grant('zenity', ['pointer'], null);
    expect(grants.get('zenity')?.capabilities).toEqual(['observe', 'pointer']);
    expect(grants.get('zenity')?.expiresAt).toBeNull();
    grants.revoke('zenity');
    grants.grant('zenity', ['input'], 5);
    expect(grants.get('zenity')?.capabilities).toEqual(['input']);
    store.close();
  });

  it('the app-grants inspector asks for what is not granted and refuses a revoked app', async () => {
    const { grants, store, dir } = book();
    const computer = new ComputerUseService({ operator: new MissingOperator('test', 'no desktop'), grants, dataDir: dir });
    const observe = createComputerFamily({ computer }).tools.find((t) => t.name === 'computer_observe') as ToolDefinition;
    const decide = () =>
      decideCall({ tool: observe, args: { app: 'zenity' }, policy: 'high-risk', tainted: false, ctx: { cwd: dir, workspaceRoots: [dir], dataDir: dir }, grants });
    let d = await decide();
    expect(d.decision).toBe('ask');
    expect(d.reasons.at(-1)).toBe('the person has not granted observe on "zenity": always asks');
    grants.grant('zenity', ['observe'], null);
    expect((await decide()).decision).toBe('allow');
    grants.revoke('zenity');
    d = await decide();
    expect(d.decision).toBe('deny');
    expect(d.reasons.at(-1)).toMatch(/revoked "zenity"/);
    store.close();
  });

  it('computer_handoff always asks, even under high-risk, and clears the run\'s observations', async () => {
    const { grants, store, dir } = book();
    const computer = new ComputerUseService({ operator: new MissingOperator('test', 'no desktop'), grants, dataDir: dir });
    const handoff = createComputerFamily({ computer }).tools.find((t) => t.name === 'computer_handoff') as ToolDefinition;
    const d = await decideCall({ tool: handoff, args: { instructions: 'Sign in' }, policy: 'high-risk', tainted: false, ctx: { cwd: dir, workspaceRoots: [dir], dataDir: dir }, grants });
    expect(d.decision).toBe('ask');
    mkdirSync(computer.screenshotDir('run_h'), { recursive: true });
    writeFileSync(join(computer.screenshotDir('run_h'), 'session.json'), JSON.stringify({ nextRef: 4, shots: 0, killed: false, apps: ['zenity'], windows: { w: { app: 'zenity', title: 't', outline: '', refs: { e1: { bus: ':1.2', path: '/x', role: 'push button', name: 'OK', window: 'w' } } } } }));
    expect(computer.describeRef('run_h', 'zenity', 'e1')).toBe('push button "OK"');
    await handoff.execute({ instructions: 'Sign in' }, { ...makeContext(dir), runId: 'run_h' });
    expect(computer.describeRef('run_h', 'zenity', 'e1')).toBeNull();
    store.close();
  });

  it('the app_grant kind grants less when asked to, never more', () => {
    const { grants, store } = book();
    const kind = appGrantKind({ grants });
    const data = { app: 'zenity', capabilities: ['observe', 'input'], minutes: null, reason: null };
    expect(kind.approve!(data)).toEqual({ grant: true, capabilities: ['observe', 'input'] });
    expect(() => kind.accept({ grant: true, capabilities: ['observe', 'foreground'] }, data)).toThrow(/foreground cannot be granted/);
    expect(grants.get('zenity')).toBeNull();
    expect(kind.accept({ grant: true, capabilities: ['observe'] }, data)).toMatchObject({ app: 'zenity', capabilities: ['observe'] });
    expect(grants.get('zenity')?.capabilities).toEqual(['observe']);
    store.close();
  });
});

describe('pieces', () => {
  it('keys: combinations parse, empty parts are refused with an example', () => {
    expect(parseKeyCombo('ctrl+s')).toEqual(['ctrl', 's']);
    expect(parseKeyCombo('Return')).toEqual(['Return']);
    expect(() => parseKeyCombo('ctrl+')).toThrow(/like ctrl\+s/);
  });

  it('PNG: BGRA becomes RGBA with opaque alpha, rows padded as captured', () => {
    // 2×1 pixels, BGRA, alpha 0 as X captures report, rows padded to 12 bytes.
    const px = Uint8Array.from([10, 20, 30, 0, 40, 50, 60, 0, 9, 9, 9, 9]);
    const png = encodePng(px, 2, 1, { bgr: true, rowBytes: 12 });
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(2);
    expect(png.readUInt32BE(20)).toBe(1);
    const idat = png.indexOf('IDAT');
    const len = png.readUInt32BE(idat - 4);
    const raw = inflateSync(png.subarray(idat + 4, idat + 4 + len));
    expect([...raw]).toEqual([0, 30, 20, 10, 255, 60, 50, 40, 255]);
  });

  it('the kill switch aborts the live drive of the runs it names and stops the others if parked', () => {
    const runs = new KillableRuns();
    const listeners: ((ids: string[]) => void)[] = [];
    const computer = { onKill: (l: (ids: string[]) => void) => (listeners.push(l), () => undefined) };
    const stopped: string[] = [];
    wireKillSwitch(computer as never, runs, (id) => stopped.push(id));
    const outer = new AbortController();
    const a = runs.wrap<RunOptions>({ provider: {} as never, interactive: false, signal: outer.signal });
    const b = runs.wrap<RunOptions>({ provider: {} as never, interactive: false });
    a.options.onEvent!({ type: 'run.started', runId: 'run_a', conversationId: 'c', resumed: false });
    b.options.onEvent!({ type: 'run.started', runId: 'run_b', conversationId: 'c', resumed: false });
    listeners[0]!(['run_a', 'run_parked']);
    expect(a.options.signal!.aborted).toBe(true);
    expect(b.options.signal!.aborted).toBe(false);
    expect(stopped).toEqual(['run_parked']);
    expect(outer.signal.aborted).toBe(false); // the caller's own signal is not touched
    a.release();
    b.release();
  });

  it('the contract shows only PNGs under the data folder\'s computer/ and Stop calls the kill switch', async () => {
    const dir = tempDir('deskhand-data-');
    mkdirSync(join(dir, 'computer', 'run_1'), { recursive: true });
    writeFileSync(join(dir, 'computer', 'run_1', '001-observe.png'), Buffer.from('PNGDATA'));
    writeFileSync(join(dir, 'secret.png'), 'x');
    writeFileSync(join(dir, 'computer', 'run_1', 'session.json'), '{}');
    let killed = 0;
    const runtime = { computer: { onSessionsChanged: () => () => undefined, kill: () => (killed++, ['run_1']), sessions: () => [] }, store: { getRun: () => null } };
    const host = computerGroup({ runtime: runtime as unknown as AppRuntime, dataDir: dir, emit: () => undefined, onShutdown: () => undefined } as unknown as HandlerContext);
    const ok = await host.readScreenshot({ path: join(dir, 'computer', 'run_1', '001-observe.png') });
    expect(ok.dataUrl).toBe(`data:image/png;base64,${Buffer.from('PNGDATA').toString('base64')}`);
    await expect(host.readScreenshot({ path: join(dir, 'secret.png') })).rejects.toThrow(/Only computer-use screenshots/);
    await expect(host.readScreenshot({ path: join(dir, 'computer', 'run_1', '..', '..', 'secret.png') })).rejects.toThrow(/Only computer-use screenshots/);
    await expect(host.readScreenshot({ path: join(dir, 'computer', 'run_1', 'session.json') })).rejects.toThrow(/Only computer-use screenshots/);
    await expect(host.readScreenshot({ path: '/etc/passwd' })).rejects.toThrow();
    expect(await host.stopComputerUse({})).toEqual({ stopped: ['run_1'] });
    expect(killed).toBe(1);
  });
});

describe('deskhand grants (the binary)', () => {
  it('lists app grants next to URL grants and revokes one by its app name', async () => {
    requireBuild();
    const { grants, store, dir } = book();
    grants.grant('zenity', ['observe', 'pointer'], null);
    store.close();
    const list = await runCli(['grants', 'list', '--json', '--data-dir', dir]);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ type: 'app', app: 'zenity', capabilities: ['observe', 'pointer'], expiresAt: null })]);
    const text = await runCli(['grants', 'list', '--data-dir', dir]);
    expect(text.stdout).toContain('No URL grants.');
    expect(text.stdout).toContain('app zenity  observe, pointer — until you revoke it');
    const revoke = await runCli(['grants', 'revoke', 'zenity', '--data-dir', dir]);
    expect(revoke.code).toBe(0);
    expect(revoke.stderr).toContain('Revoked zenity.');
    const again = await runCli(['grants', 'revoke', 'zenity', '--data-dir', dir]);
    expect(again.code).toBe(1);
    const reopened = new Store(dir);
    expect(new StoreGrantBook(reopened.module(appGrantsModule)).wasRevoked('zenity')).toBe(true);
    reopened.close();
  }, 180_000); // four CLI starts: each took over 10 s on the loaded 2-core machine
});
