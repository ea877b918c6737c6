/**
 * Ways out of the sandbox that are not the workspace: host Unix sockets (named in /run, by the environment, under
 * /tmp, abstract ones such as X11's and D-Bus's), /run/user, secrets at any depth of the workspace, and mount orders
 * that would make the workspace hidden or read-only. Each is tried with a real command in bubblewrap; the effect is
 * checked on the host (connections counted by the server, files on disk). These FAIL where bubblewrap cannot run
 * (`DESKHAND_ALLOW_NO_SANDBOX=1` skips them on such a machine).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bwrapArgs, hiddenPaths, sandboxSupport } from '../../src/main/services/sandbox/sandbox';
import { tempDir } from '../support/tool-context';
import { taskFixture, type TaskFixture } from '../support/tasks';

/** The last mount in a bubblewrap argument list whose target is `p` or a folder above it (what `p` shows). */
function lastMountOver(args: string[], p: string): string[] | null {
  let last: string[] | null = null;
  for (let i = 0; i < args.length; i++) {
    const op = args[i]!;
    const target = op === '--tmpfs' ? args[i + 1] : op === '--bind' || op === '--ro-bind' ? args[i + 2] : undefined;
    if (target === undefined) continue;
    if (p === target || p.startsWith(target.endsWith('/') ? target : `${target}/`)) last = op === '--tmpfs' ? [op, target] : [op, args[i + 1]!, target];
  }
  return last;
}

const linux = process.platform === 'linux' && process.env.DESKHAND_ALLOW_NO_SANDBOX !== '1';

let f: TaskFixture;
beforeEach(() => {
  f = taskFixture();
});
afterEach(async () => {
  await f.close();
});

const exec = async (args: Record<string, unknown>, ctx = f.ctx()) => (await f.tools.executeCommand.execute(f.tools.executeCommand.params.parse(args), ctx)).output;

/** A Unix socket server on the host that counts connections. */
async function socketServer(path: string): Promise<{ server: Server; connections: () => number }> {
  let n = 0;
  const server = createServer((s) => {
    s.on('error', () => undefined);
    n++;
    s.end('host socket reached\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, resolve);
  });
  return { server, connections: () => n };
}
const close = (s: Server) => new Promise((r) => s.close(r));

/** A command that tries to connect to a Unix socket (python3: bash cannot) and prints what happened. */
const connect = (path: string) =>
  `python3 -c "import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
  s.connect(sys.argv[1]); print('CONNECTED', s.recv(100))
except Exception as e:
  print('BLOCKED', type(e).__name__)" '${path}'`;

describe.skipIf(!linux)('sandbox: every way out that is not the workspace is closed', () => {
  it('bubblewrap runs here', () => {
    expect(sandboxSupport(), sandboxSupport().detail).toMatchObject({ kind: 'bubblewrap', available: true });
  });

  const sockets: { name: string; place: () => { path: string; env?: Record<string, string>; cleanup: () => void } }[] = [
    {
      name: 'a system socket under /run (docker, the system bus)',
      place: () => {
        const dir = `/run/deskhand-test-${process.pid}`;
        mkdirSync(dir, { recursive: true });
        return { path: join(dir, 'docker.sock'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
      },
    },
    {
      name: 'a per-user runtime socket under /run/user (keyring, session bus)',
      place: () => {
        const dir = `/run/user/${4200 + (process.pid % 100)}`;
        mkdirSync(join(dir, 'keyring'), { recursive: true });
        return { path: join(dir, 'keyring', 'control'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
      },
    },
    {
      name: 'a session bus named by DBUS_SESSION_BUS_ADDRESS outside /tmp and /run',
      place: () => {
        const dir = tempDir('deskhand-bus-', '/var/tmp');
        const path = join(dir, 'bus');
        return { path, env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${path},guid=0123` }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
      },
    },
    {
      name: 'an ssh-agent named by SSH_AUTH_SOCK',
      place: () => {
        const dir = tempDir('deskhand-agent-', '/var/tmp');
        const path = join(dir, 'agent.123');
        return { path, env: { SSH_AUTH_SOCK: path }, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
      },
    },
    {
      name: 'a socket in host /tmp (X11, tmux)',
      place: () => {
        const dir = tempDir('deskhand-tmux-');
        return { path: join(dir, 'default'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
      },
    },
  ];

  for (const s of sockets) {
    it(`cannot reach ${s.name}`, async () => {
      const placed = s.place();
      const saved: Record<string, string | undefined> = {};
      for (const [k, v] of Object.entries(placed.env ?? {})) {
        saved[k] = process.env[k];
        process.env[k] = v;
      }
      const { server, connections } = await socketServer(placed.path);
      try {
        // The same socket is reachable from the host: the probe itself works.
        const host = await exec({ command: connect(placed.path), outside_sandbox: true });
        expect(host).toContain('CONNECTED');
        expect(connections()).toBe(1);
        const out = await exec({ command: connect(placed.path) });
        expect(out).toContain('BLOCKED');
        expect(out).not.toContain('CONNECTED');
        expect(connections()).toBe(1);
      } finally {
        await close(server);
        for (const [k, v] of Object.entries(saved)) {
          if (v === undefined) delete process.env[k];
          else process.env[k] = v;
        }
        placed.cleanup();
      }
    });
  }

  it('cannot reach an abstract Unix socket (how X11 and D-Bus listen besides their paths)', async () => {
    // Node binds abstract names padded with NULs to the whole sun_path (108 bytes); the probe pads the same way.
    const name = `\0deskhand-abstract-${process.pid}`;
    const { server, connections } = await socketServer(name);
    try {
      const probe = `python3 -c "import socket
s=socket.socket(socket.AF_UNIX)
try:
  n='\\0deskhand-abstract-${process.pid}'; s.connect(n + '\\0' * (108 - len(n))); print('CONNECTED')
except Exception as e:
  print('BLOCKED', type(e).__name__)"`;
      expect(await exec({ command: probe, outside_sandbox: true })).toContain('CONNECTED');
      expect(connections()).toBe(1);
      const out = await exec({ command: probe });
      expect(out).toContain('BLOCKED');
      expect(connections()).toBe(1);
    } finally {
      await close(server);
    }
  });

  it('/run/user is empty and socket-naming variables are unset inside', async () => {
    const dir = `/run/user/${4300 + (process.pid % 100)}`;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'marker'), 'host runtime dir\n');
    const saved = process.env.SSH_AUTH_SOCK;
    process.env.SSH_AUTH_SOCK = '/var/tmp/nothing/agent';
    try {
      const out = await exec({ command: 'ls -A /run/user | wc -l; echo "agent=[${SSH_AUTH_SOCK:-}] bus=[${DBUS_SESSION_BUS_ADDRESS:-}] display=[${DISPLAY:-}]"' });
      expect(out).toMatch(/--- stdout ---\n0\nagent=\[\] bus=\[\] display=\[\]/);
    } finally {
      if (saved === undefined) delete process.env.SSH_AUTH_SOCK;
      else process.env.SSH_AUTH_SOCK = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hides secret-bearing files at any depth of the workspace, and credential folders copied into it', async () => {
    const deep = join(f.ws, 'services', 'api', 'config', 'prod');
    mkdirSync(deep, { recursive: true });
    mkdirSync(join(f.ws, 'backup', '.ssh'), { recursive: true });
    const files: Record<string, string> = {
      [join(deep, '.env')]: 'DB_PASSWORD=deep-env-secret\n',
      [join(deep, '.env.production')]: 'API_TOKEN=deep-env-secret\n',
      [join(f.ws, 'services', 'server.key')]: 'deep-env-secret key\n',
      [join(f.ws, 'backup', '.ssh', 'id_ed25519')]: 'deep-env-secret ssh\n',
      [join(f.ws, 'infra.tfstate')]: '{"secret":"deep-env-secret"}\n',
    };
    for (const [p, text] of Object.entries(files)) writeFileSync(p, text);
    writeFileSync(join(deep, 'settings.json'), '{"visible": true}\n');
    const out = await exec({ command: `cat ${Object.keys(files).join(' ')} services/api/config/prod/settings.json 2>&1; grep -r deep-env-secret . ; echo grep-exit=$?` });
    expect(out).not.toContain('deep-env-secret');
    expect(out).toContain('"visible": true');
    expect(out).toMatch(/grep-exit=[12]/);
    // The files are untouched on the host.
    expect(readFileSync(join(deep, '.env'), 'utf8')).toContain('deep-env-secret');
  });

  const orders: { name: string; layout: () => { roots: string[]; cwd: string; dataDir: string } }[] = [
    {
      name: 'a workspace root inside the data folder (hidden as a whole)',
      layout: () => {
        const ws = join(f.dataDir, 'workspaces', 'w1');
        mkdirSync(ws, { recursive: true });
        return { roots: [ws], cwd: ws, dataDir: f.dataDir };
      },
    },
    {
      name: 'a cwd outside the roots that holds a root (mounted read-only)',
      layout: () => {
        const parent = tempDir('deskhand-parent-');
        const ws = join(parent, 'project');
        mkdirSync(ws);
        return { roots: [ws], cwd: parent, dataDir: f.dataDir };
      },
    },
    {
      name: 'a second root inside the first, listed first',
      layout: () => {
        const outer = tempDir('deskhand-outer-');
        const inner = join(outer, 'inner');
        mkdirSync(inner);
        return { roots: [inner, outer], cwd: inner, dataDir: f.dataDir };
      },
    },
  ];
  for (const o of orders) {
    it(`keeps the workspace writable: ${o.name}`, async () => {
      const l = o.layout();
      const ctx = f.ctx();
      const state = { ...ctx.state, workspaceRoots: l.roots, cwd: l.cwd };
      const out = await exec({ command: l.roots.map((r, i) => `echo w${i} > '${r}/written-${i}.txt'`).join('; ') + '; echo done' }, { ...ctx, dataDir: l.dataDir, state });
      expect(out).toContain('done');
      l.roots.forEach((r, i) => expect(readFileSync(join(r, `written-${i}.txt`), 'utf8')).toBe(`w${i}\n`));
      // The mount list: every root is bound writable after anything that hides or protects a folder above it.
      const args = bwrapArgs({ mode: 'workspace-write', network: false, outside: false, roots: l.roots, cwd: l.cwd, dataDir: l.dataDir });
      for (const r of l.roots) expect(lastMountOver(args, r)).toEqual(['--bind', r, r]);
    });
  }

  it('a cwd of the home folder does not bring back ~/.ssh', async () => {
    const home = tempDir('deskhand-home-');
    mkdirSync(join(home, '.ssh'));
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'home-ssh-secret\n');
    writeFileSync(join(home, '.bash_history'), 'export TOKEN=home-history-secret\n');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const ctx = f.ctx();
      const out = await exec({ command: 'cat .ssh/id_rsa .bash_history 2>&1; ls -A .ssh | wc -l' }, { ...ctx, state: { ...ctx.state, cwd: home } });
      expect(out).not.toMatch(/home-ssh-secret|home-history-secret/);
      expect(hiddenPaths({ roots: [f.ws], cwd: home, dataDir: f.dataDir, home }).map((h) => h.path)).toEqual(expect.arrayContaining([join(home, '.ssh'), join(home, '.bash_history')]));
    } finally {
      process.env.HOME = saved;
    }
    expect(existsSync(join(home, '.ssh', 'id_rsa'))).toBe(true);
  });
});
