/**
 * `deskhand web [--port N] [--data-dir DIR] [--provider …] [--base-url URL] [--model NAME] [--json]`: the desktop UI
 * in a browser, served by the same runtime on 127.0.0.1. Prints the URL (with its per-launch token) as one line, or
 * `{"url": …}` with --json, and runs until SIGINT/SIGTERM.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../shared/errors';
import { KeytarSecretStore } from '../services/vault/secret-store';
import { AppService } from './app-service';
import { providerFromFlags } from './cli';
import { openRuntime, resolveDataDir, type AppRuntime } from './open-runtime';
import { createNotifier } from '../services/notify/create';
import { fireProvider } from './cli-schedule';
import type { FireDeps } from './schedule-fire';
import { ScheduleTicker } from './schedule-ticker';
import { startWebHost } from './web-host';

export async function webCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      provider: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      port: { type: 'string' },
    },
  });
  if (positionals.length) throw new DeskhandError('usage', `web takes no arguments (got "${positionals.join(' ')}").`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new DeskhandError('usage', `--port must be a port number (got "${values.port}").`);
  const override = values.provider !== undefined || values['base-url'] !== undefined || values.model !== undefined ? providerFromFlags(values) : null;
  const rendererDir = findRendererDir();
  if (!rendererDir) throw new DeskhandError('usage', 'The renderer is not built: run `npm run build` first.');

  const dataDir = resolveDataDir(values['data-dir']);
  const runtime = openRuntime({ dataDir });
  const service = new AppService({
    runtime,
    secrets: new KeytarSecretStore(),
    dataDir,
    kind: 'web',
    providerOverride: override,
    defaultFolder: process.cwd(),
    version: packageVersion(),
  });
  let host;
  try {
    host = await startWebHost({ service, rendererDir, port });
  } catch (err) {
    runtime.store.close();
    throw new DeskhandError('usage', `Could not listen on 127.0.0.1:${port}: ${(err as Error).message}`);
  }
  process.stdout.write(values.json ? `${JSON.stringify({ url: host.url })}\n` : `Deskhand is running at ${host.url}\n`);
  // While it runs, the in-app ticker fires what no OS job holds (claimed first, so never twice).
  const ticker = startScheduleTicker(runtime, (run) => (override ? Promise.resolve(override) : fireProvider(run)));

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  if (!values.json) process.stderr.write('Stopping Deskhand web…\n');
  await ticker.stop();
  await service.shutdown();
  await host.close();
  runtime.store.close();
  return 0;
}

/** out/renderer, found from wherever this module was bundled (out/main/…) or run from source (src/main/host). */
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
  const notifier = createNotifier();
  const ticker = new ScheduleTicker({ runtime, schedules: runtime.schedules, notifier, provider }, { intervalMs: Number(process.env.DESKHAND_SCHEDULE_TICK_MS) || 15_000 }).start();
  return { stop: () => ticker.stop().finally(() => notifier.close()) };
}

function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'deskhand' && pkg.version) return pkg.version;
      } catch {
        // keep looking
      }
    }
    dir = dirname(dir);
  }
  return 'dev';
}
