/**
 * host/web/ — `deskhand web`: the command (this file), the HTTP/WebSocket host and its address file. It imports
 * host/peers/ (the A2A endpoint, when Settings → Peers turns it on), host/app/, host/background/ and host/assembly/;
 * never host/cli/ (cli/commands.ts starts it).
 * Lint (HOST_GROUPS in eslint.config.js) and scripts/check-cycles.mjs hold this; docs/architecture.md, "The host".
 */
/**
 * `deskhand web [--port N] [--new-address] [--data-dir DIR] [--provider …] [--base-url URL] [--model NAME] [--json]`:
 * the desktop UI in a browser, served by the same runtime on 127.0.0.1. Prints the URL (with its token) as one line,
 * or `{"url": …}` with --json, and runs until SIGINT/SIGTERM. The port and token are kept across restarts
 * (web-address.ts).
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { homedir } from 'node:os';
import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../../shared/errors';
import { KeytarSecretStore } from '../../services/vault/secret-store';
import { AppService } from '../app/app-service';
import { fireProvider, HOST_FLAG_OPTIONS, hostProviderOverride } from '../assembly/provider-choice';
import { plannedWebAddress, writeWebAddress } from './web-address';
import { openRuntime, resolveDataDir, type AppRuntime } from '../assembly/open-runtime';
import { listenForActions } from '../../services/scheduler/actions';
import type { FireProvider } from '../background/schedule-fire';
import { ScheduleTicker } from '../background/schedule-ticker';
import { startWebHost } from './web-host';
import { deadlineMs, exitDeadline, untilStopSignal } from '../assembly/exit-deadline';
import { packageVersion } from '../assembly/package-version';
import { stderrLogger } from '../assembly/logger';
import { PeerEndpointHost } from '../peers/peer-endpoint-host';
import { DeviceRegistry, ensureDeviceCertificate } from '../../services/devices/index';
import { advertisedHost, startDeviceHost, type DeviceHost } from './device-host';

export const WEB_USAGE = `Usage: deskhand web [--port N] [--new-address] [--data-dir DIR] [--json] [--listen ADDR[:PORT] | --remote LINK|URL]
                    [--provider anthropic|openai|openai-compatible] [--base-url URL] [--model NAME]

Serves the Deskhand UI on 127.0.0.1 and prints its address, which carries an access token. The port and token are
kept in the data folder, so a restart prints the same address and open tabs reconnect.
  --port N         listen on port N from now on (0: any free port)
  --new-address    make a new token (and a new port unless --port is given); old addresses stop working
  --json           print {"url": …} instead of a sentence
  --remote LINK|URL
                   drive Deskhand on another machine (its \`deskhand web --listen\`): the first time with the pairing
                   link its \`deskhand devices pair\` printed (code and certificate fingerprint); after that with its
                   https:// address. The credential is kept in this machine's keyring.
  --listen ADDR[:PORT]
                   also accept paired devices (a phone, another Deskhand) over TLS on ADDR (e.g. 192.168.1.20, or
                   0.0.0.0 for every interface; 127.0.0.1 for this machine only). Off unless given. PORT defaults to
                   the last one used. Pair a device with \`deskhand devices pair\`.
Stop it with Ctrl-C.`;

export async function webCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...HOST_FLAG_OPTIONS,
      json: { type: 'boolean' },
      port: { type: 'string' },
      'new-address': { type: 'boolean' },
      listen: { type: 'string' },
      remote: { type: 'string' },
    },
  });
  if (values.help) {
    process.stdout.write(`${WEB_USAGE}\n`);
    return 0;
  }
  if (positionals.length) throw new DeskhandError('usage', `web takes no arguments (got "${positionals.join(' ')}").`);
  const explicitPort = values.port === undefined ? undefined : Number(values.port);
  if (explicitPort !== undefined && (!Number.isInteger(explicitPort) || explicitPort < 0 || explicitPort > 65535)) {
    throw new DeskhandError('usage', `--port must be a port number (got "${values.port}").`);
  }
  if (values.remote !== undefined) {
    const rendererDir = findRendererDir();
    if (!rendererDir) throw new DeskhandError('usage', 'The renderer is not built: run `npm run build` first.');
    return (await import('./remote-command')).remoteCommand({ target: values.remote, dataDir: resolveDataDir(values['data-dir']), rendererDir, json: values.json === true, port: explicitPortOf(values.port) });
  }
  const listen = values.listen === undefined ? null : parseListen(values.listen);
  const override = hostProviderOverride(values);
  const rendererDir = findRendererDir();
  if (!rendererDir) throw new DeskhandError('usage', 'The renderer is not built: run `npm run build` first.');

  const dataDir = resolveDataDir(values['data-dir']);
  const planned = plannedWebAddress(dataDir, { ...(explicitPort !== undefined ? { port: explicitPort } : {}), fresh: values['new-address'] === true });
  const runtime = openRuntime({ dataDir });
  const service = new AppService({
    runtime,
    secrets: new KeytarSecretStore(),
    dataDir,
    kind: 'web',
    providerOverride: override,
    defaultFolder: defaultWorkFolder(process.cwd(), rendererDir),
    version: packageVersion(),
  });
  let host;
  try {
    host = await startWebHost({ service, rendererDir, port: planned.port, token: planned.token });
  } catch (err) {
    const busy = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    if (!busy || explicitPort !== undefined || planned.port === 0) {
      await runtime.close();
      throw new DeskhandError('usage', `Could not listen on 127.0.0.1:${planned.port}: ${(err as Error).message}`);
    }
    // The saved port is taken (another program, or an older Deskhand web still running): any free port, same token.
    process.stderr.write(`Port ${planned.port} is in use; Deskhand web moves to a free port (the token stays).\n`);
    host = await startWebHost({ service, rendererDir, port: 0, token: planned.token });
  }
  writeWebAddress(dataDir, { port: host.port, token: host.token });
  // "Accept requests from peers" (Settings → Peers): the A2A endpoint on this host, if it is on; a failure to bind is
  // shown on the page, never stops the web host.
  const peers = new PeerEndpointHost({ runtime, service, dataDir, log: stderrLogger });
  await peers.start();
  let devices: DeviceHost | null = null;
  const registry = new DeviceRegistry(dataDir);
  if (listen) {
    try {
      const certificate = await ensureDeviceCertificate(registry.dir, advertisedHost(listen.host));
      devices = await startDeviceHost({ service, registry, rendererDir, host: listen.host, port: listen.port ?? registry.lastPort() ?? 0, certificate, log: stderrLogger });
    } catch (err) {
      await host.close();
      await peers.close();
      await runtime.close();
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'EADDRINUSE' ? 'the port is in use (choose another with --listen ADDR:PORT)' : code === 'EADDRNOTAVAIL' ? 'this machine has no such address' : (err as Error).message;
      throw new DeskhandError('usage', `Could not listen for paired devices on ${values.listen}: ${why}.`);
    }
    registry.writeListener({ url: devices.url, fingerprint: devices.fingerprint, pid: process.pid });
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ url: host.url, ...(devices ? { devices: { url: devices.url, fingerprint: devices.fingerprint } } : {}) })}\n`);
  else {
    process.stdout.write(`Deskhand is running at ${host.url}\n`);
    if (devices) process.stdout.write(`Paired devices reach it at ${devices.url} (certificate SHA-256 ${devices.fingerprint}); pair one with \`deskhand devices pair\`.\n`);
  }
  // While it runs, the in-app ticker fires what no OS job holds (claimed first, so never twice).
  const ticker = startScheduleTicker(runtime, (run) => (override ? Promise.resolve(override) : fireProvider(run)));

  await untilStopSignal();
  if (!values.json) process.stderr.write('Stopping Deskhand web…\n');
  // One Ctrl-C ends it within the deadline: everything closes in order, and what did not close in time is named.
  let stage = 'the paired-device listener';
  exitDeadline({ ms: deadlineMs(WEB_EXIT_DEADLINE_MS), what: 'Deskhand web was stopped', code: 0, pending: () => [stage, ...runtime.stillClosing()].filter(Boolean) });
  await devices?.close();
  registry.clearListener();
  stage = 'the peer endpoint';
  await peers.close();
  stage = 'the schedule ticker';
  await ticker.stop();
  stage = 'the runs in progress';
  await service.shutdown(WEB_EXIT_DEADLINE_MS / 2);
  stage = 'the web server and its clients';
  await host.close();
  stage = 'the store';
  await runtime.close();
  stage = '';
  return 0;
}

function explicitPortOf(raw: string | undefined): number | undefined {
  const n = raw === undefined ? undefined : Number(raw);
  if (n !== undefined && (!Number.isInteger(n) || n < 0 || n > 65535)) throw new DeskhandError('usage', `--port must be a port number (got "${raw}").`);
  return n;
}

/**
 * `--listen ADDR[:PORT]`: an IPv4 or IPv6 address (`[::1]:8443` with a port) or a host name; the port 1–65535 when
 * given. Binding beyond loopback is the person's explicit choice: this flag is the only way to it.
 */
export function parseListen(raw: string): { host: string; port: number | null } {
  const text = raw.trim();
  const m = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(text) ?? /^([^:\s]+)(?::(\d+))?$/.exec(text) ?? (isIP(text) === 6 ? [text, text, undefined] : null);
  const host = m?.[1];
  const port = m?.[2] === undefined ? null : Number(m[2]);
  const hostOk = !!host && (isIP(host) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*$/.test(host));
  if (!hostOk || (port !== null && (!Number.isInteger(port) || port < 0 || port > 65535))) {
    throw new DeskhandError('usage', `--listen takes an address and an optional port: 192.168.1.20, 0.0.0.0:8443, [::1]:8443 or a host name (got "${raw.slice(0, 80)}").`);
  }
  return { host: host!, port };
}

/** How long a stopped `deskhand web` may take to close everything before it exits anyway (exit-deadline.ts). */
const WEB_EXIT_DEADLINE_MS = 2000;

/**
 * Where a new conversation starts when no conversation says better: the folder `deskhand web` was started in, unless
 * that is inside Deskhand's own checkout or install (someone who starts it from its clone did not mean to hand it
 * Deskhand's source): then the home folder.
 */
export function defaultWorkFolder(cwd: string, rendererDir: string): string {
  const own = resolve(rendererDir, '..', '..'); // <root>/out/renderer
  const rel = relative(own, cwd);
  const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  return inside ? homedir() : cwd;
}

/** out/renderer, found from wherever this module was bundled (out/main/…) or run from source (src/main/host/web). */
export function findRendererDir(): string | null {
  const fromEnv = process.env.DESKHAND_RENDERER_DIR;
  if (fromEnv) return existsSync(join(fromEnv, 'index.html')) ? fromEnv : null;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    for (const candidate of [join(dir, 'renderer'), join(dir, 'out', 'renderer')]) {
      if (existsSync(join(candidate, 'index.html'))) return candidate;
    }
    dir = dirname(dir);
  }
  return null;
}

function startScheduleTicker(runtime: AppRuntime, provider: FireProvider): { stop(): Promise<void> } {
  const ticker = new ScheduleTicker(runtime, { notifier: runtime.notifier, provider }, { intervalMs: Number(process.env.DESKHAND_SCHEDULE_TICK_MS) || 15_000 }).start();
  // A reminder's buttons pressed on this machine's notification act here (Open: the page shows nothing by itself).
  const actions = listenForActions(runtime.notifier, runtime.schedules, { onError: (err) => process.stderr.write(`deskhand web: acting on a notification failed: ${String(err)}\n`) });
  return { stop: () => ticker.stop().finally(() => actions.off()) };
}
