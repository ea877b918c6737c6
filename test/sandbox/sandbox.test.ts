/**
 * The OS sandbox with real commands: bubblewrap on Linux (writes only in the workspace, secrets hidden, no network
 * unless approved), the macOS profile's rules, and what the classification and `policy explain` say about it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/main/runtime/runtime';
import { bwrapArgs, hiddenPaths, planSandbox, resetSandboxSupport, sandboxBlockHint, sandboxSupport, seatbeltProfile } from '../../src/main/services/sandbox/sandbox';
import { osSandbox } from '../../src/main/services/sandbox';
import { sandboxClassification } from '../../src/main/tools/shell/sandbox-policy';
import { tempDir } from '../support/tool-context';
import { builtinTools } from '../support/tools';
import { taskFixture, type TaskFixture } from '../support/tasks';

let f: TaskFixture;
beforeEach(() => {
  f = taskFixture();
});
afterEach(async () => {
  await f.close();
});

const exec = (args: Record<string, unknown>, sandbox: 'workspace-write' | 'read-only' | 'off' = 'workspace-write') =>
  f.tools.executeCommand.execute(f.tools.executeCommand.params.parse(args), f.ctx({ sandbox }));

/**
 * On Linux the sandbox must work: where bubblewrap cannot run (CI without user namespaces) these tests FAIL, they do
 * not skip. `DESKHAND_ALLOW_NO_SANDBOX=1` skips them on a machine known to have none.
 */
const linux = process.platform === 'linux' && process.env.DESKHAND_ALLOW_NO_SANDBOX !== '1';

describe.skipIf(!linux)('bubblewrap sandbox (Linux)', () => {
  it('bubblewrap runs on this machine (set DESKHAND_ALLOW_NO_SANDBOX=1 to skip the sandbox tests where it cannot)', () => {
    expect(sandboxSupport(), sandboxSupport().detail).toMatchObject({ kind: 'bubblewrap', available: true });
  });

  it('lets a command write inside the workspace only', async () => {
    const outsideTmp = tempDir('deskhand-outside-');
    const outsideHome = join(homedir(), `.deskhand-sandbox-probe-${process.pid}`);
    const result = await exec({ command: `echo in > inside.txt && echo ok; echo out > ${outsideTmp}/x.txt; echo home > ${outsideHome}; touch /usr/deskhand-probe` });
    expect(readFileSync(join(f.ws, 'inside.txt'), 'utf8')).toBe('in\n');
    // /tmp is private inside the sandbox: the write lands there, never in the real folder.
    expect(existsSync(join(outsideTmp, 'x.txt'))).toBe(false);
    expect(existsSync(outsideHome)).toBe(false);
    expect(existsSync('/usr/deskhand-probe')).toBe(false);
    expect(result.output).toContain('Read-only file system');
    expect(result.output).toMatch(/note: blocked by the sandbox: writes outside the workspace are blocked/);
  });

  it('in read-only mode the workspace is read-only too', async () => {
    writeFileSync(join(f.ws, 'keep.txt'), 'original\n');
    const result = await exec({ command: 'cat keep.txt; echo changed > keep.txt' }, 'read-only');
    expect(result.output).toContain('original');
    expect(readFileSync(join(f.ws, 'keep.txt'), 'utf8')).toBe('original\n');
    expect(result.output).toMatch(/blocked by the sandbox: writes are blocked \(this conversation's sandbox mode is read-only\)/);
  });

  describe('network', () => {
    let server: Server;
    let port = 0;
    let connections = 0;
    beforeEach(async () => {
      connections = 0;
      server = createServer((socket) => {
        connections++;
        socket.end('hello from the host\n');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as { port: number }).port;
    });
    afterEach(async () => {
      await new Promise((r) => server.close(r));
    });

    it('cannot open a connection, not even to 127.0.0.1, and says why', async () => {
      const result = await exec({ command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3` });
      expect(result.output).not.toContain('connected');
      expect(result.output).toMatch(/Connection refused|Network is unreachable/);
      expect(connections).toBe(0);
      expect(result.output).toMatch(/note: blocked by the sandbox: the network is off .* call again with network: true to allow the network/);
    });

    it('can when the call was approved for network', async () => {
      const result = await exec({ command: `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3`, network: true });
      expect(result.output).toContain('connected\nhello from the host');
      expect(result.output).toContain('sandbox: bubblewrap, workspace-write, network on');
      expect(connections).toBe(1);
    });
  });

  it("hides secrets' files, Deskhand's data and the workspace's .env files", async () => {
    const home = tempDir('deskhand-home-');
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
    writeFileSync(join(home, '.netrc'), 'machine x password hunter2\n');
    writeFileSync(join(f.ws, '.env'), 'API_TOKEN=sekrit\n');
    writeFileSync(join(f.ws, '.env.local'), 'OTHER=sekrit\n');
    writeFileSync(join(f.ws, 'visible.txt'), 'visible\n');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const result = await exec({ command: `ls -A $HOME/.ssh; cat $HOME/.netrc .env .env.local visible.txt; ls -A ${f.dataDir} | wc -l` });
      expect(result.output).not.toMatch(/PRIVATE KEY|hunter2|sekrit/);
      expect(result.output).toContain('visible');
      expect(result.output).toMatch(/--- stdout ---\nvisible\n0\n/);
      const hidden = hiddenPaths({ roots: [f.ws], cwd: f.ws, dataDir: f.dataDir, home });
      expect(hidden).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: join(home, '.ssh'), kind: 'dir' }),
          expect.objectContaining({ path: join(home, '.netrc'), kind: 'file' }),
          expect.objectContaining({ path: realpathSync(f.dataDir), kind: 'dir' }),
          expect.objectContaining({ path: join(f.ws, '.env'), kind: 'file' }),
          expect.objectContaining({ path: join(f.ws, '.env.local'), kind: 'file' }),
        ]),
      );
    } finally {
      process.env.HOME = saved;
    }
  });

  it('drops every capability even when Deskhand runs as root', async () => {
    const result = await exec({ command: 'grep CapEff /proc/self/status; mount -o remount,rw / 2>&1; echo done' });
    expect(result.output).toMatch(/CapEff:\s+0000000000000000/);
    expect(result.output).toContain('done');
    const args = bwrapArgs({ mode: 'workspace-write', network: false, outside: false, roots: [f.ws], cwd: f.ws, dataDir: f.dataDir });
    expect(args.slice(0, 6)).toEqual(['--die-with-parent', '--unshare-pid', '--cap-drop', 'ALL', '--unshare-net', '--ro-bind']);
    expect(args).toEqual(expect.arrayContaining(['--bind', f.ws, f.ws, '--tmpfs', '/tmp', '--chdir', f.ws]));
  });

  it('mode "off" and outside_sandbox run without it', async () => {
    const outside = tempDir('deskhand-outside-');
    const off = await exec({ command: `echo off > ${outside}/off.txt` }, 'off');
    expect(off.output).toContain('sandbox: none (runs without the OS sandbox (sandbox mode "off" for this conversation))');
    const approved = await exec({ command: `echo out > ${outside}/out.txt`, outside_sandbox: true });
    expect(approved.output).toContain('sandbox: none (runs outside the OS sandbox (approved for this call))');
    expect(readFileSync(join(outside, 'off.txt'), 'utf8')).toBe('off\n');
    expect(readFileSync(join(outside, 'out.txt'), 'utf8')).toBe('out\n');
  });
});

describe('sandbox in the classification', () => {
  const base = { risk: 'read-only' as const, reasons: ['ls: read-only'], rulePattern: 'ls' };

  it('adds where the command runs; outside the sandbox and network always ask', () => {
    const inside = sandboxClassification(base, {}, { sandbox: 'workspace-write' }, osSandbox);
    expect(inside.risk).toBe('read-only');
    expect(inside.alwaysAsk).toBeNull();
    expect(inside.rulePattern).toBe('ls');
    if (linux) expect(inside.reasons.at(-1)).toBe('runs in the bubblewrap sandbox (workspace writable, network off)');

    const off = sandboxClassification(base, {}, { sandbox: 'off' }, osSandbox);
    expect(off.alwaysAsk).toBe('commands run outside the OS sandbox in this conversation');
    expect(off.rulePattern).toBeNull();

    const outside = sandboxClassification(base, { outside_sandbox: true }, {}, osSandbox);
    expect(outside).toMatchObject({ risk: 'high-risk', alwaysAsk: 'the command asks to run outside the OS sandbox', rulePattern: null });
    if (linux) expect(sandboxClassification(base, { network: true }, {}, osSandbox)).toMatchObject({ risk: 'high-risk', alwaysAsk: 'the command asks for network access' });
  });

  it('policy explain prints the sandbox, and says so where there is none', async () => {
    const runtime = new Runtime({ store: f.store, dataDir: f.dataDir, tools: builtinTools({ dataDir: f.dataDir, tasks: f.tasks }) });
    const explained = await runtime.explain('execute_command', { command: 'ls' }, 'high-risk', f.ws);
    expect(explained.decision).toBe('allow');
    if (linux) expect(explained.reasons).toContain('runs in the bubblewrap sandbox (workspace writable, network off)');
    const off = await runtime.explain('execute_command', { command: 'ls' }, 'high-risk', f.ws, 'off');
    expect(off.decision).toBe('ask');
    expect(off.reasons.at(-1)).toBe('commands run outside the OS sandbox in this conversation: always asks');

    process.env.DESKHAND_SANDBOX = 'none';
    resetSandboxSupport();
    try {
      const none = await runtime.explain('execute_command', { command: 'ls' }, 'high-risk', f.ws);
      expect(none.reasons).toContain('the OS sandbox is turned off on this machine (DESKHAND_SANDBOX=none): the command runs unsandboxed');
      const result = await exec({ command: 'echo hi' });
      expect(result.output).toContain('sandbox: none (runs without a sandbox: the OS sandbox is turned off on this machine (DESKHAND_SANDBOX=none))');
    } finally {
      delete process.env.DESKHAND_SANDBOX;
      resetSandboxSupport();
    }
  });

  it('recognises failures the sandbox causes and leaves the others alone', () => {
    const plan = { kind: 'bubblewrap' as const, mode: 'workspace-write' as const, network: false };
    expect(sandboxBlockHint('curl: (6) Could not resolve host: example.com', 6, plan)).toMatch(/the network is off/);
    expect(sandboxBlockHint("touch: cannot touch '/etc/x': Read-only file system", 1, plan)).toMatch(/writes outside the workspace/);
    expect(sandboxBlockHint('error: tests failed', 1, plan)).toBeNull();
    expect(sandboxBlockHint('Read-only file system', 0, plan)).toBeNull();
    expect(sandboxBlockHint('Read-only file system', 1, { ...plan, kind: null })).toBeNull();
  });
});

describe('macOS sandbox-exec profile', () => {
  const req = { mode: 'workspace-write' as const, network: false, outside: false, roots: ['/Users/me/project'], cwd: '/Users/me/project', dataDir: '/Users/me/Library/Application Support/Deskhand', home: '/Users/me' };

  it('has the same rules: writes only in the roots and temp, secrets and data hidden, no IP network', () => {
    const profile = seatbeltProfile(req);
    expect(profile).toMatch(/^\(version 1\)\n\(allow default\)/);
    expect(profile).toContain('(deny file-write*)');
    expect(profile).toContain('(allow file-write*\n  (subpath "/Users/me/project")');
    expect(profile).toContain('(deny network-outbound (remote ip))');
    expect(seatbeltProfile({ ...req, network: true })).not.toContain('(remote ip)');
    expect(profile).toContain('(deny network-outbound (remote unix-socket))');
    expect(profile).not.toContain('mDNSResponder');
    expect(seatbeltProfile({ ...req, network: true })).toContain('(deny network-outbound (remote unix-socket))\n(allow network-outbound (remote unix-socket (path-literal "/private/var/run/mDNSResponder")))');
    expect(seatbeltProfile({ ...req, mode: 'read-only' })).not.toContain('(subpath "/Users/me/project")');
    expect(seatbeltProfile({ ...req, roots: ['/tmp/a "quoted" dir'] })).toContain('(subpath "/tmp/a \\"quoted\\" dir")');
  });

  it.skipIf(process.platform !== 'darwin')('runs commands under sandbox-exec (macOS only; skipped elsewhere: no sandbox-exec)', async () => {
    const plan = planSandbox({ mode: 'workspace-write', network: false, outside: false, roots: [f.ws], cwd: f.ws, dataDir: f.dataDir });
    expect(plan.kind).toBe('sandbox-exec');
    const { file, args } = plan.argv('/bin/bash', `echo in > inside.txt; echo out > ${homedir()}/deskhand-probe 2>&1; echo done`);
    const out = execFileSync(file, args, { cwd: f.ws, encoding: 'utf8' });
    expect(out).toContain('done');
    expect(readFileSync(join(f.ws, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(join(homedir(), 'deskhand-probe'))).toBe(false);
  });
});
