/**
 * The keytar SecretStore against a real Secret Service (scripts/test.sh runs the suite inside a D-Bus session with an
 * unlocked gnome-keyring). Skipped, saying why, where no keyring answers. A per-run service name keeps real keys safe.
 * The no-keyring message runs everywhere: in a child process whose session bus address answers nothing.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { KeytarSecretStore, MemorySecretStoreForTests, type SecretStore } from '../../src/main/services/vault/secret-store';

const service = `Deskhand-test-${process.pid}-${Date.now()}`;

async function keyringAnswers(): Promise<boolean> {
  try {
    await new KeytarSecretStore(service).list();
    return true;
  } catch {
    return false;
  }
}

async function roundTrip(store: SecretStore): Promise<void> {
  expect(await store.get('apiKey.openai')).toBeNull();
  await store.set('apiKey.openai', 'sk-one');
  await store.set('apiKey.anthropic', 'sk-two');
  expect(await store.get('apiKey.openai')).toBe('sk-one');
  expect(await store.list()).toEqual(['apiKey.anthropic', 'apiKey.openai']);
  await store.set('apiKey.openai', 'sk-three');
  expect(await store.get('apiKey.openai')).toBe('sk-three');
  expect(await store.delete('apiKey.openai')).toBe(true);
  expect(await store.delete('apiKey.openai')).toBe(false);
  expect(await store.delete('apiKey.anthropic')).toBe(true);
  expect(await store.list()).toEqual([]);
}

const hasKeyring = await keyringAnswers();

describe('SecretStore', () => {
  it('in memory (tests only) keeps the interface', async () => {
    await roundTrip(new MemorySecretStoreForTests());
  });

  it.skipIf(!hasKeyring)('keytar stores, lists and deletes in the OS keyring under its own service name', async () => {
    await roundTrip(new KeytarSecretStore(service));
  });

  it('says what to do when no keyring answers', async () => {
    // libsecret reads the session bus address once per process, so the store runs in a child whose address is a
    // socket nobody listens on (and no X display to autolaunch a bus from).
    const module = fileURLToPath(new URL('../../src/main/services/vault/secret-store.ts', import.meta.url));
    const code = `const { KeytarSecretStore } = await import(${JSON.stringify(module)});
      try { await new KeytarSecretStore(${JSON.stringify(service)}).get('x'); console.log('ANSWERED'); }
      catch (err) { console.log('ERROR ' + err.message); }`;
    const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/deskhand-no-bus', DISPLAY: '' };
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { env, timeout: 30_000 });
    expect(stdout.trim()).toMatch(/^ERROR Could not read the secret in the OS keyring: .+\. Is a keyring \(Secret Service, Keychain, Credential Manager\) running and unlocked\?$/);
  });
});
