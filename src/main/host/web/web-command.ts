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
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../../shared/errors';
import { KeytarSecretStore } from '../../services/vault/secret-store';
import { AppService } from '../app/app-service';
import { fireProvider, HOST_FLAG_OPTIONS, hostProviderOverride } from '../assembly/provider-choice';
import { plannedWebAddress, writeWebAddress } from './web-address';
import { openRuntime, resolveDataDir, type AppRuntime } from '../assembly/open-runtime';
import { listenForActions } from '../../services/scheduler/actions';
import type { FireDeps } from '../background/schedule-fire';
import { ScheduleTicker } from '../background/schedule-ticker';
import { startWebHost } from './web-host';
import { deadlineMs, exitDeadline, untilStopSignal } from '../assembly/exit-deadline';
import { packageVersion } from '../assembly/package-version';
import { stderrLogger } from '../assembly/logger';
import { PeerEndpointHost } from '../peers/peer-endpoint-host';

export const WEB_USAGE = `Usage: deskhand web [--port N] [--new-address] [--data-dir DIR] [--json]
                    [--provider anthropic|openai|openai-compatible] [--base-url URL] [--model NAME]

Serves the Deskhand UI on 127.0.0.1 and prints its address, which carries an access token. The port and token are
kept in the data folder, so a restart prints the same address and open tabs reconnect.
  --port N         listen on port N from now on (0: any free port)
  --new-address    make a new token (and a new port unless --port is given); old addresses stop working
  --json           print {"url": …} instead of a sentence
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
  process.stdout.write(values.json ? `${JSON.stringify({ url: host.url })}\n` : `Deskhand is running at ${host.url}\n`);
  // While it runs, the in-app ticker fires what no OS job holds (claimed first, so never twice).
  const ticker = startScheduleTicker(runtime, (run) => (override ? Promise.resolve(override) : fireProvider(run)));

  await untilStopSignal();
  if (!values.json) process.stderr.write('Stopping Deskhand web…\n');
  // One Ctrl-C ends it within the deadline: everything closes in order, and what did not close in time is named.
  let stage = 'the peer endpoint';
  exitDeadline({ ms: deadlineMs(WEB_EXIT_DEADLINE_MS), what: 'Deskhand web was stopped', code: 0, pending: () => [stage, ...runtime.stillClosing()].filter(Boolean) });
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

function startScheduleTicker(runtime: AppRuntime, provider: FireDeps['provider']): { stop(): Promise<void> } {
  const ticker = new ScheduleTicker({ runtime, schedules: runtime.schedules, notifier: runtime.notifier, provider }, { intervalMs: Number(process.env.DESKHAND_SCHEDULE_TICK_MS) || 15_000 }).start();
  // A reminder's buttons pressed on this machine's notification act here (Open: the page shows nothing by itself).
  const actions = listenForActions(runtime.notifier, runtime.schedules, { onError: (err) => process.stderr.write(`deskhand web: acting on a notification failed: ${String(err)}\n`) });
  return { stop: () => ticker.stop().finally(() => actions.off()) };
}
