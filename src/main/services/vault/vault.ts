/**
 * The vault: secrets the person saves for the agent (`ask_user_secret`, `deskhand secrets set`), values in the OS
 * keyring behind `SecretStore` (account `secret.<NAME>`, beside the provider keys `apiKey.<provider>`), names and
 * descriptions in the store so they can be listed without unlocking anything. Values leave only through `get`, which
 * only the runtime calls: to redact them, and to put them into a tool's declared secret arguments just before it runs.
 */
import { DeskhandError } from '../../../shared/errors';
import type { SecretStore } from './secret-store';

export const SECRET_ACCOUNT_PREFIX = 'secret.';
const NAME_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export interface SecretInfo {
  name: string;
  description: string;
  updatedAt: number | null;
}

/** Names and descriptions of saved secrets (never values). The SQLite store implements it. */
export interface SecretCatalog {
  describeSecret(name: string, description: string): void;
  secretDescriptions(): { name: string; description: string; updated_at: number }[];
  forgetSecret(name: string): void;
}

/** What tools may see of the vault: names and descriptions, and whether a secret exists. Never values. */
export interface VaultView {
  list(): Promise<SecretInfo[]>;
  has(name: string): Promise<boolean>;
}

export function assertSecretName(name: string): void {
  if (!NAME_RE.test(name)) {
    throw new DeskhandError(
      'usage',
      `"${name.slice(0, 80)}" is not a valid secret name: use 1–64 letters, digits, "_", "-" or ".", starting with a letter (e.g. GITHUB_TOKEN).`,
    );
  }
}

export class Vault implements VaultView {
  constructor(
    private readonly secrets: SecretStore,
    private readonly catalog: SecretCatalog | null = null,
  ) {}

  async set(name: string, value: string, description?: string): Promise<void> {
    assertSecretName(name);
    if (value === '') throw new DeskhandError('usage', `The value for ${name} is empty; nothing was saved.`);
    await this.secrets.set(SECRET_ACCOUNT_PREFIX + name, value);
    const known = this.catalog?.secretDescriptions().find((s) => s.name === name);
    this.catalog?.describeSecret(name, description ?? known?.description ?? '');
  }

  async get(name: string): Promise<string | null> {
    assertSecretName(name);
    return this.secrets.get(SECRET_ACCOUNT_PREFIX + name);
  }

  async has(name: string): Promise<boolean> {
    if (!NAME_RE.test(name)) return false;
    return (await this.secrets.get(SECRET_ACCOUNT_PREFIX + name)) !== null;
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    const had = await this.secrets.delete(SECRET_ACCOUNT_PREFIX + name);
    this.catalog?.forgetSecret(name);
    return had;
  }

  /** Saved secrets: names from the keyring, descriptions from the catalog. */
  async list(): Promise<SecretInfo[]> {
    const names = (await this.secrets.list()).filter((a) => a.startsWith(SECRET_ACCOUNT_PREFIX)).map((a) => a.slice(SECRET_ACCOUNT_PREFIX.length));
    const info = new Map((this.catalog?.secretDescriptions() ?? []).map((s) => [s.name, s]));
    return names
      .filter((n) => NAME_RE.test(n))
      .sort()
      .map((name) => ({ name, description: info.get(name)?.description ?? '', updatedAt: info.get(name)?.updated_at ?? null }));
  }

  /** Names the catalog knows, without touching the keyring (a host with no saved secrets never unlocks it). */
  catalogNames(): string[] {
    return (this.catalog?.secretDescriptions() ?? []).map((s) => s.name);
  }
}
