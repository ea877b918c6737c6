/**
 * Starts what an e2e test drives: the scripted model server as its own process, and Deskhand — `deskhand web` (built)
 * opened in Debian's Chromium, or the Electron app through Playwright's `_electron` where an Electron binary exists.
 * Everything gets a fresh temp data dir and working folder; every process started here is ended by its pid.
 */
import { test as base, _electron, type Page, type ElectronApplication, type Locator } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ScriptedReply } from '../test/support/model-server';
import { electronBinary as findElectron } from '../scripts/electron-native.mjs';
import { ELECTRON_SKIP_ENV } from './global-setup';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ARTIFACTS = join(ROOT, 'e2e', 'artifacts');

/** Where an Electron binary is, or null (with the reason) where none can be had. */
export const electronBinary = (): { path: string | null; reason: string } => findElectron(ROOT);

async function firstJsonLine(child: ChildProcess, what: string, timeoutMs = 30_000): Promise<{ url: string }> {
  const lines = createInterface({ input: child.stdout! });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${what} did not start in time.\n${stderr}`)), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`${what} exited with ${code}.\n${stderr}`));
    });
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as { url?: string };
        if (parsed.url) {
          clearTimeout(timer);
          res({ url: parsed.url });
        }
      } catch {
        // not the line we wait for
      }
    });
  });
}

/** Ends a process by its pid (SIGTERM, then SIGKILL after 8 s); resolves with its exit code (null: by a signal). */
function stop(child: ChildProcess | null): Promise<number | null> {
  if (!child) return Promise.resolve(null);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((res) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 8000);
    child.once('exit', (code) => {
      clearTimeout(kill);
      res(code);
    });
    child.kill('SIGTERM');
  });
}

/** model-server-main.ts exits with this code when it refused requests the test did not expect. */
const MODEL_REFUSED_EXIT = 3;

export interface RecordedRequestLine {
  protocol: string;
  body: { messages?: { role: string; content?: unknown }[] };
}

export interface StartOptions {
  /** Start `deskhand web` with provider flags pointing at the model server (default), or bare, as a new user would. */
  providerFlags?: boolean;
  /** Extra environment for the app (set or, with null, removed). */
  env?: Record<string, string | null>;
  /** The folder `deskhand web` starts in (default: the test's working folder). */
  cwd?: string;
  /** More `deskhand web` flags (e.g. `--listen 127.0.0.2:0` for a paired device). */
  webFlags?: string[];
}

/** Nothing listens here (port 9 is refused by fetch): local model server detection finds nothing unless a test says. */
const NO_SERVER = 'http://127.0.0.1:9';

export class Deskhand {
  readonly dataDir: string;
  readonly work: string;
  /** The keyring service the app's vault uses in this test (saved secrets never touch a real "Deskhand" entry). */
  readonly keyringService = `Deskhand-e2e-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  private readonly root: string;
  private startOptions: StartOptions = {};
  private model: ChildProcess | null = null;
  private modelStderr = '';
  private web: ChildProcess | null = null;
  private electronApp: ElectronApplication | null = null;
  modelUrl = '';
  url = '';
  page!: Page;

  constructor(
    readonly kind: 'web' | 'electron',
    private readonly browserPage: Page | null,
  ) {
    this.root = realpathSync(mkdtempSync(join(tmpdir(), 'deskhand-ui-e2e-')));
    this.dataDir = join(this.root, 'data');
    this.work = join(this.root, 'work');
    mkdirSync(this.work);
  }

  /** The browser page before start() opens it (web only), to attach listeners that must see everything. */
  pageForListeners(): Page | null {
    return this.browserPage;
  }

  get requestsFile(): string {
    return join(this.root, 'requests.jsonl');
  }

  /** Requests the model received, in order. */
  requests(): RecordedRequestLine[] {
    if (!existsSync(this.requestsFile)) return [];
    return readFileSync(this.requestsFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as RecordedRequestLine);
  }

  /** `models`: the server also lists these at GET /v1/models, standing in for a local model server. */
  /** `routes`: replies for requests whose first user message contains the key (subagents beside their parent). */
  /** `expectRefusals`: the test sends requests the provider would refuse on purpose (else a refusal fails the test). */
  async startModel(script: ScriptedReply[], opts: { models?: string[]; routes?: Record<string, ScriptedReply[]>; expectRefusals?: string } = {}): Promise<void> {
    const file = join(this.root, 'script.json');
    writeFileSync(file, JSON.stringify(script));
    const models = opts.models ? ['--models', opts.models.join(',')] : [];
    if (opts.routes) {
      writeFileSync(join(this.root, 'routes.json'), JSON.stringify(opts.routes));
      models.push('--routes', join(this.root, 'routes.json'));
    }
    if (opts.expectRefusals) models.push('--expect-refusals', opts.expectRefusals);
    this.model = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/support/model-server-main.ts'), '--script', file, '--requests', this.requestsFile, ...models], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.model.stderr?.on('data', (c: Buffer) => (this.modelStderr += c.toString()));
    this.modelUrl = (await firstJsonLine(this.model, 'the model server')).url;
  }

  /** Lets a scripted reply held under this name (`hold: name`) stream on; a release before the hold is kept. */
  async releaseModel(name: string): Promise<void> {
    const res = await fetch(`${this.modelUrl}/__release/${encodeURIComponent(name)}`, { method: 'POST' });
    if (res.status !== 204) throw new Error(`the model server did not take the release of "${name}" (HTTP ${res.status})`);
  }

  private appEnv(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DESKHAND_RETRY_BASE_MS: '50',
      DESKHAND_KEYRING_SERVICE: this.keyringService,
      DESKHAND_OLLAMA_URL: NO_SERVER,
      DESKHAND_LMSTUDIO_URL: NO_SERVER,
      // Memory extraction is one more model call after each turn; the scripted model answers only what a spec scripts.
      DESKHAND_MEMORY_EXTRACTION: 'off',
      // Specs use workspace writes and sandboxed commands as calls that ask (issue 46 lets them run unasked): they
      // ask here unless a spec sets DESKHAND_CONFINED (e2e/grants-lifetime.spec.ts).
      DESKHAND_CONFINED: process.env.DESKHAND_CONFINED ?? 'ask',
    };
    for (const [k, v] of Object.entries(this.startOptions.env ?? {})) {
      if (v === null) delete env[k];
      else env[k] = v;
    }
    return env;
  }

  /** Starts (or starts again, with the same options) Deskhand over the same data dir and opens its window. */
  async start(opts?: StartOptions): Promise<Page> {
    if (opts) this.startOptions = opts;
    if (this.kind === 'web') {
      await this.spawnWeb();
      this.page = this.browserPage!;
      await this.page.goto(this.url);
    } else {
      // The desktop app takes its provider from settings, as a person would set it (none on a first run).
      mkdirSync(this.dataDir, { recursive: true });
      if (this.startOptions.providerFlags !== false) writeFileSync(
        join(this.dataDir, 'settings.json'),
        JSON.stringify({
          activeProvider: 'openai-compatible',
          providers: {
            anthropic: { model: 'claude-sonnet-4-5', baseURL: null },
            openai: { model: 'gpt-5', baseURL: null },
            'openai-compatible': { model: 'scripted', baseURL: `${this.modelUrl}/v1` },
          },
          defaultPolicy: 'read-only',
        }),
      );
      this.electronApp = await _electron.launch({
        executablePath: electronBinary().path!,
        args: [join(ROOT, 'out/main/index.js')],
        cwd: this.work,
        env: { ...this.appEnv(), DESKHAND_HOME: this.dataDir } as Record<string, string>,
      });
      this.page = await this.electronApp.firstWindow();
    }
    await this.page.getByRole('button', { name: 'New conversation' }).first().waitFor();
    return this.page;
  }

  /** The conversation's entry in the sidebar (its accessible name says "running" or "waiting for approval"). */
  sidebarEntry(name: string | RegExp): Locator {
    return this.page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name, exact: typeof name === 'string' });
  }

  private async spawnWeb(): Promise<void> {
    const flags = this.startOptions.providerFlags === false ? [] : ['--provider', 'openai-compatible', '--base-url', `${this.modelUrl}/v1`, '--model', 'scripted'];
    this.web = spawn(process.execPath, [join(ROOT, 'bin/deskhand.js'), 'web', '--json', '--data-dir', this.dataDir, ...flags, ...(this.startOptions.webFlags ?? [])], {
      cwd: this.startOptions.cwd ?? this.work,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: this.appEnv(),
    });
    this.url = (await firstJsonLine(this.web, 'deskhand web')).url;
  }

  /** Web only: ends `deskhand web` and starts it again on the same address, leaving the open page as it is (it reconnects). */
  async restartServer(between?: () => Promise<void>): Promise<void> {
    if (this.kind !== 'web') throw new Error('restartServer drives `deskhand web`.');
    await stop(this.web);
    this.web = null;
    await between?.();
    await this.spawnWeb();
  }

  /** Electron only: native open dialogs answer with these paths (run in the app's main process, as a person would pick them). */
  async stubOpenDialog(paths: string[]): Promise<void> {
    if (!this.electronApp) throw new Error('stubOpenDialog drives the Electron app; web mode has no native dialog.');
    await this.electronApp.evaluate(({ dialog }, picked) => {
      dialog.showOpenDialog = (async () => ({ canceled: false, filePaths: picked })) as typeof dialog.showOpenDialog;
    }, paths);
  }

  async stopApp(): Promise<void> {
    if (this.electronApp) {
      await this.electronApp.close();
      this.electronApp = null;
    }
    await stop(this.web);
    this.web = null;
  }

  async restart(): Promise<Page> {
    await this.stopApp();
    return this.start();
  }

  /** Ends everything; fails the test when the model server refused requests the test did not expect. */
  async dispose(): Promise<void> {
    await this.stopApp();
    const code = await stop(this.model);
    rmSync(this.root, { recursive: true, force: true });
    if (code === MODEL_REFUSED_EXIT) {
      const lines = this.modelStderr.split('\n').filter((l) => l.startsWith('model server:') || l.startsWith('  - '));
      throw new Error(`The scripted model server refused requests as the real provider would:\n${lines.join('\n')}`);
    }
  }

  // ── Steps a person takes ──

  async newConversation(title?: string): Promise<void> {
    const page = this.page;
    await page.getByRole('button', { name: 'New conversation' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New conversation' });
    await dialog.getByLabel('Working folder').fill(this.work);
    if (title) await dialog.getByLabel('Title (optional)').fill(title);
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  async send(text: string): Promise<void> {
    const box = this.page.getByRole('textbox', { name: 'Message' });
    await box.fill(text);
    await box.press('Enter');
  }

  approvalCard(): Locator {
    return this.page.getByRole('region', { name: 'Write a file' });
  }
}

export const test = base.extend<{ deskhand: Deskhand }>({
  deskhand: async ({ page }, use, testInfo) => {
    const kind = testInfo.project.name === 'electron' ? 'electron' : 'web';
    if (kind === 'electron') {
      // Set by global-setup.ts: no binary, or no better-sqlite3 build for Electron's ABI (the app could not start).
      const skip = process.env[ELECTRON_SKIP_ENV] ?? (electronBinary().path ? '' : electronBinary().reason);
      testInfo.skip(!!skip, `Electron e2e skipped: ${skip}.`);
    }
    const d = new Deskhand(kind, kind === 'web' ? page : null);
    try {
      await use(d);
    } finally {
      await d.dispose();
    }
  },
});

export { expect } from '@playwright/test';

export function artifact(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}

/** Where journey screenshots go (not committed): SHOTS_DIR, or /tmp/shots-journeys. */
export const SHOTS_DIR = process.env.SHOTS_DIR ?? '/tmp/shots-journeys';

/** A journey's screenshot at 1440 px and at 1000 px wide (the page is left at 1440 px). */
export async function journeyShots(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  for (const width of [1000, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(SHOTS_DIR, `${name}-${width}.png`) });
  }
}
