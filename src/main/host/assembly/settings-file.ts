/**
 * Non-secret settings (active provider, models, base URLs, default policy) as `settings.json` in the data dir,
 * written atomically. Keys are never here: they live in the OS keyring (SecretStore).
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
// The settings file's schema only: the contract's index builds every area's schemas (≈ 90 ms of a run's start), the
// settings area its views and methods and the tools area's schemas besides.
import { settingsSchema, type Settings } from '../../../shared/contract/settings-schema';
import { DEFAULT_MODELS } from '../../services/providers/config';
import { LOG_RETENTION_MS } from '../../services/tasks/log-retention';
import { nothingAt, pathStamp } from '../../services/file-stamp';

/** A local OpenAI-compatible server (Ollama) is the default when no key is in the environment. */
export const OLLAMA_BASE_URL = 'http://127.0.0.1:11434/v1';

export function defaultSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  return {
    activeProvider: env.ANTHROPIC_API_KEY ? 'anthropic' : env.OPENAI_API_KEY ? 'openai' : 'openai-compatible',
    providers: {
      anthropic: { model: DEFAULT_MODELS.anthropic, baseURL: null },
      openai: { model: DEFAULT_MODELS.openai, baseURL: null },
      'openai-compatible': { model: DEFAULT_MODELS['openai-compatible'], baseURL: OLLAMA_BASE_URL },
    },
    defaultPolicy: 'read-only',
  };
}

/** The log retention Settings asks for, in milliseconds (LOG_RETENTION_MS when not set). */
export function retentionMs(settings: Settings): number {
  return settings.logRetentionDays ? settings.logRetentionDays * 24 * 3600_000 : LOG_RETENTION_MS;
}

/** Compaction's default threshold: 80% of the model's context window. */
export const DEFAULT_COMPACT_AT_PERCENT = 80;

/**
 * The share of the window at which compaction runs, as Settings says now (Settings → Context): read again only when
 * settings.json changed (a stat per model step), so a change applies to the next step of a running conversation.
 */
export function compactAtSetting(dataDir: string): () => number {
  const file = new SettingsFile(dataDir);
  const path = join(dataDir, 'settings.json');
  let stamp = '';
  let value = DEFAULT_COMPACT_AT_PERCENT / 100;
  return () => {
    // No settings file is the common answer: asked without an exception.
    const now = pathStamp(path);
    if (nothingAt(now)) return DEFAULT_COMPACT_AT_PERCENT / 100;
    if (now !== stamp) {
      stamp = now;
      value = (file.read().compactAtPercent ?? DEFAULT_COMPACT_AT_PERCENT) / 100;
    }
    return value;
  };
}

export class SettingsFile {
  private readonly path: string;

  constructor(
    dataDir: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.path = join(dataDir, 'settings.json');
  }

  /** Whether settings were ever saved (else this is a first run, unless keys or provider flags say otherwise). */
  exists(): boolean {
    return existsSync(this.path);
  }

  /** The saved settings, or the defaults when there are none or the file does not parse (it is then rewritten on save). */
  read(): Settings {
    let raw: string;
    try {
      raw = readFileSync(this.path, 'utf8');
    } catch {
      return defaultSettings(this.env);
    }
    try {
      const parsed = settingsSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : defaultSettings(this.env);
    } catch {
      return defaultSettings(this.env);
    }
  }

  write(settings: Settings): void {
    const tmp = `${this.path}.${process.pid}.tmp`;
    const fd = openSync(tmp, 'w', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(settings, null, 2)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
  }
}
