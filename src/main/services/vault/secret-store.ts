/**
 * Secrets (provider API keys) live in the OS keyring, never in the store or the renderer. `SecretStore` is the one
 * interface; the keytar implementation talks to the Secret Service / Keychain / Credential Manager under the service
 * name "Deskhand". keytar is loaded lazily so hosts that never touch a key do not need a running keyring.
 */
import { DeskhandError, errorMessage } from '../../../shared/errors';

export interface SecretStore {
  get(name: string): Promise<string | null>;
  set(name: string, value: string): Promise<void>;
  /** True when a secret was there to delete. */
  delete(name: string): Promise<boolean>;
  /** Names only; values never leave `get`. */
  list(): Promise<string[]>;
}

export const KEYRING_SERVICE = 'Deskhand';

/** The keyring service every host uses: `DESKHAND_KEYRING_SERVICE` when set, else "Deskhand". */
export function keyringService(env: NodeJS.ProcessEnv = process.env): string {
  return env.DESKHAND_KEYRING_SERVICE || KEYRING_SERVICE;
}

interface Keytar {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<{ account: string; password: string }[]>;
}

export class KeytarSecretStore implements SecretStore {
  private keytar: Promise<Keytar> | undefined;

  /** The service name: `DESKHAND_KEYRING_SERVICE` when set (tests use a throwaway one, so no host touches the real one). */
  constructor(readonly service = keyringService()) {}

  async get(name: string): Promise<string | null> {
    return this.call('read', (k) => k.getPassword(this.service, name));
  }

  async set(name: string, value: string): Promise<void> {
    await this.call('save', (k) => k.setPassword(this.service, name, value));
  }

  async delete(name: string): Promise<boolean> {
    return this.call('delete', (k) => k.deletePassword(this.service, name));
  }

  async list(): Promise<string[]> {
    const creds = await this.call('list', (k) => k.findCredentials(this.service));
    return creds.map((c) => c.account).sort();
  }

  private async call<T>(what: string, fn: (k: Keytar) => Promise<T>): Promise<T> {
    try {
      this.keytar ??= import('keytar').then((m) => ((m as { default?: Keytar }).default ?? (m as unknown as Keytar)));
      return await fn(await this.keytar);
    } catch (err) {
      this.keytar = undefined;
      throw new DeskhandError(
        'internal',
        `Could not ${what} the secret in the OS keyring: ${errorMessage(err)}. Is a keyring (Secret Service, Keychain, Credential Manager) running and unlocked?`,
      );
    }
  }
}

/** For tests only: holds secrets in memory, so nothing reaches a real keyring. */
export class MemorySecretStoreForTests implements SecretStore {
  private readonly secrets = new Map<string, string>();

  async get(name: string): Promise<string | null> {
    return this.secrets.get(name) ?? null;
  }

  async set(name: string, value: string): Promise<void> {
    this.secrets.set(name, value);
  }

  async delete(name: string): Promise<boolean> {
    return this.secrets.delete(name);
  }

  async list(): Promise<string[]> {
    return [...this.secrets.keys()].sort();
  }
}
