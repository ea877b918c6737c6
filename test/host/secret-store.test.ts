/**
 * The keytar SecretStore against a real Secret Service (scripts/test.sh runs the suite inside a D-Bus session with an
 * unlocked gnome-keyring). Skipped, saying why, where no keyring answers. A per-run service name keeps real keys safe.
 */
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

  it.skipIf(hasKeyring)('says what to do when no keyring answers', async () => {
    await expect(new KeytarSecretStore(service).get('x')).rejects.toThrow(/OS keyring.*running and unlocked/);
  });
});
