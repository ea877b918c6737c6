/**
 * Round three, the door for processes (issue 29): every process goes through the launcher, which filters
 * credential-named variables out of the environment (a table of spellings, then real processes printing what they
 * got), applies the sandbox plan to processes started for the model, and owns their process group (abort and
 * timeout leave nothing in the process table). Project MCP servers run inside the sandbox (checked by what the real
 * server process can reach); the person's own servers get only the variables their configuration names.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../../src/main/services/processes/child-env';
import { launchEnv, launchForModel, launchHostProgram, runHostProgram, type LaunchedProcess } from '../../src/main/services/processes/launcher';
import { planSandbox, sandboxSupport, unsandboxedPlan } from '../../src/main/services/sandbox/sandbox';
import { McpManager } from '../../src/main/services/mcp/manager';
import { GuardedContentReader } from '../../src/main/runtime/context/content-reader';
import { extensionsModule } from '../../src/main/services/store/modules/extensions';
import { Store } from '../../src/main/services/store/store';
import { tempDir } from '../support/tool-context';
import { killByMarker, processesWith, until } from '../support/tasks';

const PROBE = resolve(__dirname, '../support/probe-mcp-server.mjs');
const hasSandbox = sandboxSupport().available || process.env.DESKHAND_ALLOW_NO_SANDBOX !== '1';

/** Credential-bearing spellings: every one must be dropped from every launched process. */
const DROPPED: readonly string[] = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'ANTHROPIC_BASE_URL',
  'OPENAI_ORG_ID',
  'openai_api_key',
  'Anthropic_Auth_Token',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'github_token',
  'GITLAB_PRIVATE_TOKEN',
  'NPM_TOKEN',
  'npm_config__authToken',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'SLACK_BOT_TOKEN',
  'STRIPE_SECRET_KEY',
  'api_key',
  'MY_SERVICE_APIKEY',
  'PRIVATE_KEY_PEM',
  'SIGNING_KEY',
  'CLIENT_SECRET',
  'client_secret',
  'AZURE_CLIENT_SECRET',
  'MySecretValue',
  'DB_PASSWORD',
  'PGPASSWORD',
  'password',
  'SMTP_PASSWD',
  'DB_PASS',
  'smtp_pass',
  'GPG_PASSPHRASE',
  'MYSQL_PWD',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_DEFAULT_REGION',
  'aws_security_token',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'DOCKER_AUTH_CONFIG',
  'SSH_AUTH_SOCK',
  'HTTP_AUTHORIZATION',
  'SESSION_COOKIE',
  'JSESSIONID',
  'SENTRY_DSN',
  'BASH_ENV',
  'BASH_FUNC_ls%%',
  'ENV',
  'LESSOPEN',
];

/** Ordinary variables: kept. */
const KEPT: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TERM', 'SHELL', 'TZ', 'EDITOR', 'NODE_ENV', 'CI', 'PWD', 'OLDPWD', 'DISPLAY', 'XDG_RUNTIME_DIR', 'HOSTNAME', 'PASSTHROUGH_MODE', 'COMPASS_HOME', 'DSN_COUNT_LABEL', 'NO_PROXY'];

/** Values that are URLs with a password are dropped whatever the name. */
const DROPPED_VALUES: Readonly<Record<string, string>> = {
  DATABASE_URL: 'postgres://app:hunter2-door@db.internal:5432/prod',
  https_proxy: 'http://me:proxy-door-pw@proxy.local:3128',
  REDIS_URL: 'redis://:redis-door-pw@cache:6379',
};
const KEPT_VALUES: Readonly<Record<string, string>> = { HOMEPAGE: 'https://example.com/docs', MIRROR: 'https://user@mirror.example.com/x' };

const value = (name: string) => `door-${name.replace(/[^A-Za-z0-9]/g, '')}-v4lue`;
const source = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries([...DROPPED, ...KEPT.filter((n) => n !== 'PATH')].map((n) => [n, value(n)])),
  ...DROPPED_VALUES,
  ...KEPT_VALUES,
  PATH: '/usr/local/bin:/usr/bin:/bin',
});

/** `env -0` output as a map. */
function parseEnv(out: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const entry of out.split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0) m.set(entry.slice(0, at), entry.slice(at + 1));
  }
  return m;
}

function collect(p: LaunchedProcess): Promise<{ out: string; code: number | null }> {
  return new Promise((done) => {
    let out = '';
    p.child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.child.once('close', (code) => done({ out, code }));
  });
}

describe('credential-named variables never reach a launched process', () => {
  it.each(DROPPED)('drops %s', (name) => {
    expect(launchEnv({ source: { [name]: value(name), PATH: '/usr/bin' } })).toEqual({ PATH: '/usr/bin' });
  });
  it.each(KEPT)('keeps %s', (name) => {
    const v = name === 'PATH' ? '/opt/door/bin' : value(name);
    expect(launchEnv({ source: { [name]: v } })[name]).toBe(v);
  });
  it.each(Object.entries(DROPPED_VALUES))('drops %s whose value is a URL with a password', (name, v) => {
    expect(launchEnv({ source: { [name]: v } })).toEqual({});
  });
  it.each(Object.entries(KEPT_VALUES))('keeps %s (a URL without a password)', (name, v) => {
    expect(launchEnv({ source: { [name]: v } })[name]).toBe(v);
  });

  it('keeps what the caller sets on purpose, and inherits only the names asked for', () => {
    const env = launchEnv({ source: source(), inherit: ['PATH', 'HOME', 'GITHUB_TOKEN'], env: { GITHUB_TOKEN: 'configured-for-this-server' } });
    expect(env).toEqual({ PATH: '/usr/local/bin:/usr/bin:/bin', HOME: value('HOME'), GITHUB_TOKEN: 'configured-for-this-server' });
    expect(childEnv({ PATH: '.:/usr/bin::bin:/bin' }).PATH).toBe('/usr/bin:/bin');
  });

  it('a host program gets the filtered environment (a real `env` prints it)', async () => {
    const r = await runHostProgram({ program: '/usr/bin/env', args: ['-0'], source: source() });
    expect(r.code).toBe(0);
    const got = parseEnv(r.stdout);
    for (const name of DROPPED) expect(got.has(name), name).toBe(false);
    for (const name of Object.keys(DROPPED_VALUES)) expect(got.has(name), name).toBe(false);
    for (const name of KEPT.filter((n) => n !== 'PWD')) expect(got.get(name), name).toBe(name === 'PATH' ? '/usr/local/bin:/usr/bin:/bin' : value(name));
    for (const v of [...DROPPED.map(value), ...Object.values(DROPPED_VALUES)]) expect(r.stdout).not.toContain(v);
  });

  it("a model's process gets it too, inside the sandbox (and Deskhand's own provider key is not there)", async () => {
    const saved = { a: process.env.ANTHROPIC_API_KEY, o: process.env.OPENAI_API_KEY };
    process.env.ANTHROPIC_API_KEY = 'sk-ant-door-provider-key';
    process.env.OPENAI_API_KEY = 'sk-door-openai-provider-key';
    try {
      const ws = tempDir('deskhand-door-ws-');
      const plan = planSandbox({ mode: 'workspace-write', network: false, outside: false, roots: [ws], cwd: ws, dataDir: tempDir('deskhand-door-data-') });
      if (hasSandbox) expect(plan.kind).not.toBeNull();
      const p = launchForModel({ file: '/usr/bin/env', args: ['-0'], sandbox: plan, cwd: ws });
      const { out, code } = await collect(p);
      expect(code).toBe(0);
      const got = parseEnv(out);
      expect(got.has('ANTHROPIC_API_KEY')).toBe(false);
      expect(got.has('OPENAI_API_KEY')).toBe(false);
      expect(out).not.toContain('sk-ant-door-provider-key');
      expect(out).not.toContain('sk-door-openai-provider-key');
      expect(got.get('DESKHAND_TASK_TAG')).toBe(p.tag);
    } finally {
      if (saved.a === undefined) delete process.env.ANTHROPIC_API_KEY;
      else process.env.ANTHROPIC_API_KEY = saved.a;
      if (saved.o === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved.o;
    }
  });
});

describe('the launcher owns the process group', () => {
  const ws = tempDir('deskhand-door-group-');
  const plans = () => [
    ['in the sandbox', planSandbox({ mode: 'workspace-write', network: false, outside: false, roots: [ws], cwd: ws, dataDir: tempDir('deskhand-door-data-') })],
    ['without the sandbox', unsandboxedPlan('off', 'test: no sandbox')],
  ] as const;
  let n = 7_100 + (process.pid % 500);

  for (const how of ['abort', 'timeout'] as const) {
    it(`on ${how}, a command and everything it started (a background job, a setsid daemon) are gone from the process table`, async () => {
      for (const [name, plan] of plans()) {
        const secs = `${++n}.${process.pid}`;
        const ac = new AbortController();
        // A job in the background, and one that leaves the group (setsid) as a daemon would.
        const p = launchForModel({
          file: '/bin/bash',
          args: ['-c', `sleep ${secs} & setsid sleep ${secs} & wait`],
          sandbox: plan,
          cwd: ws,
          graceMs: 200,
          ...(how === 'abort' ? { signal: ac.signal } : { timeoutMs: 500 }),
        });
        try {
          await until(() => processesWith(`sleep ${secs}`).filter((l) => l.endsWith(`sleep ${secs}`)).length >= 2, `both sleeps running (${name})`);
          if (how === 'abort') ac.abort();
          await until(() => p.stoppedBy !== null, `the launcher stopped it (${name})`);
          await until(() => processesWith(`sleep ${secs}`).length === 0, `nothing left of the group (${name})`);
          expect(p.stoppedBy).toBe(how);
          expect(processesWith(`sleep ${secs}`)).toEqual([]);
        } finally {
          killByMarker(`sleep ${secs}`);
        }
      }
    });
  }

  it('a host program past its time is stopped with its group', async () => {
    const secs = `${++n}.${process.pid}`;
    const r = await runHostProgram({ program: '/bin/sh', args: ['-c', `sleep ${secs} & sleep ${secs}`], timeoutMs: 300, graceMs: 100 });
    expect(r.stoppedBy).toBe('timeout');
    await until(() => processesWith(`sleep ${secs}`).length === 0, 'the group gone');
  });

  it('a program that does not exist is an error, not a crash', async () => {
    const r = await runHostProgram({ program: '/nonexistent/deskhand-door-prog', args: [] });
    expect(r.error?.code).toBe('ENOENT');
    const p = launchHostProgram({ program: '/nonexistent/deskhand-door-prog', args: [] });
    await new Promise((done) => p.child.once('error', done));
    expect(p.pid).toBeUndefined();
  });
});

describe('MCP stdio servers go through the launcher', () => {
  let dataDir: string;
  let store: Store;
  let manager: McpManager;
  let listener: Server;
  let connections = 0;
  let port = 0;
  const saved = { a: process.env.ANTHROPIC_API_KEY, o: process.env.OPENAI_API_KEY, g: process.env.GITHUB_TOKEN };

  beforeAll(async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-door-mcp-provider-key';
    process.env.OPENAI_API_KEY = 'sk-door-mcp-openai-key';
    process.env.GITHUB_TOKEN = 'ghp_door_deskhand_own_token';
    listener = createServer((s) => {
      connections++;
      s.on('error', () => undefined);
      s.end();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((r) => listener.close(r));
    for (const [k, v] of [['ANTHROPIC_API_KEY', saved.a], ['OPENAI_API_KEY', saved.o], ['GITHUB_TOKEN', saved.g]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  afterEach(async () => {
    await manager?.close();
    store?.close();
  });

  const open = () => {
    dataDir = tempDir('deskhand-door-mcp-data-');
    store = new Store(dataDir);
    manager = new McpManager({ store, reader: new GuardedContentReader({ dataDir }), secret: async (name) => (name === 'GH_SAVED' ? 'ghp_saved_for_this_server' : null) });
    writeFileSync(join(dataDir, 'deskhand-store-secret.txt'), 'DESKHAND-DATA-SECRET\n');
  };

  it.runIf(hasSandbox)('a project server runs inside the sandbox: no write outside the workspace, no data folder, no network, no provider key', async () => {
    open();
    const ws = tempDir('deskhand-door-mcp-ws-');
    const outside = join(tempDir('deskhand-door-mcp-outside-'), 'planted.txt');
    const script = `server-door-${process.pid}-${Date.now()}.mjs`;
    copyFileSync(PROBE, join(ws, script));
    mkdirSync(join(ws, '.deskhand'));
    writeFileSync(join(ws, '.deskhand', 'mcp.json'), JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [script], env: { PROJECT_SETTING: 'from-the-file' } } } }));
    const file = manager.projectFile(ws).file!;
    await manager.trustProject(ws, file.sha256);
    const view = manager.server('proj')!;
    expect(view.health.status, view.health.lastError ?? '').toBe('connected');
    const report = join(ws, 'report.json');
    const result = await manager.callTool('proj', 'probe', { report, outside, hidden: join(dataDir, 'deskhand-store-secret.txt'), port }, new AbortController().signal);
    expect(result.isError).toBe(false);
    const found = JSON.parse(readFileSync(report, 'utf8')) as { pid: number; pid1: string; writeOutside: string; readSecret: string; network: string; env: Record<string, string> };
    // The effects: nothing planted outside, the data folder hidden, no connection reached the listener.
    expect(existsSync(outside)).toBe(false);
    expect(found.writeOutside).toMatch(/^blocked: (EROFS|EACCES|ENOENT)/);
    expect(found.readSecret).toMatch(/^blocked: ENOENT/);
    expect(found.network).toMatch(/^blocked/);
    expect(connections).toBe(0);
    // In bubblewrap's pid namespace: pid 1 is bubblewrap itself.
    expect(found.pid1).toBe('ok: bwrap');
    expect(found.pid).toBeLessThan(10);
    // Environment: no provider key, no Deskhand credential; the file's own setting is there.
    const envText = JSON.stringify(found.env);
    for (const secret of ['sk-ant-door-mcp-provider-key', 'sk-door-mcp-openai-key', 'ghp_door_deskhand_own_token']) expect(envText).not.toContain(secret);
    expect(found.env.PROJECT_SETTING).toBe('from-the-file');
    // Stopping it leaves nothing behind.
    expect(processesWith(script).length).toBeGreaterThan(0);
    await manager.close();
    expect(processesWith(script)).toEqual([]);
  });

  it("the person's own server runs as configured, with only the variables its configuration names", async () => {
    open();
    const folder = tempDir('deskhand-door-mcp-own-');
    store.module(extensionsModule).putServer(
      'own',
      JSON.stringify({ transport: 'stdio', command: process.execPath, args: [PROBE], env: { CONFIGURED_TOKEN: 'configured-by-the-person' }, secretEnv: { GITHUB_TOKEN: 'GH_SAVED' }, cwd: folder }),
    );
    await manager.startConfigured();
    expect(manager.server('own')!.health.status).toBe('connected');
    const report = join(folder, 'report.json');
    await manager.callTool('own', 'probe', { report }, new AbortController().signal);
    const found = JSON.parse(readFileSync(report, 'utf8')) as { pid1: string; env: Record<string, string> };
    expect(found.env.CONFIGURED_TOKEN).toBe('configured-by-the-person');
    expect(found.env.GITHUB_TOKEN).toBe('ghp_saved_for_this_server');
    const envText = JSON.stringify(found.env);
    for (const secret of ['sk-ant-door-mcp-provider-key', 'sk-door-mcp-openai-key', 'ghp_door_deskhand_own_token']) expect(envText).not.toContain(secret);
    expect(found.env.PATH).toBeTruthy();
  });

  it('a project server does not start where there is no sandbox, and says how to run it', async () => {
    const before = process.env.DESKHAND_SANDBOX;
    process.env.DESKHAND_SANDBOX = 'none';
    const { resetSandboxSupport } = await import('../../src/main/services/sandbox/sandbox');
    resetSandboxSupport();
    try {
      open();
      const ws = tempDir('deskhand-door-mcp-nosb-');
      const marker = join(ws, 'started.txt');
      writeFileSync(join(ws, 'server.cjs'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');`);
      mkdirSync(join(ws, '.deskhand'));
      writeFileSync(join(ws, '.deskhand', 'mcp.json'), JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: ['server.cjs'] } } }));
      await manager.trustProject(ws, manager.projectFile(ws).file!.sha256);
      const health = manager.server('proj')!.health;
      expect(health.status).toBe('failed');
      expect(health.lastError).toMatch(/runs only inside the OS sandbox.*deskhand mcp add proj --/);
      expect(existsSync(marker)).toBe(false);
    } finally {
      if (before === undefined) delete process.env.DESKHAND_SANDBOX;
      else process.env.DESKHAND_SANDBOX = before;
      resetSandboxSupport();
    }
  });
});
