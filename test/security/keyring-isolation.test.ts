/**
 * Keyring tests never touch the real "Deskhand" keyring service: every host builds its secret store from
 * `DESKHAND_KEYRING_SERVICE` (the test setup sets a throwaway name for every test and every process it starts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEYRING_SERVICE, KeytarSecretStore, keyringService } from '../../src/main/services/vault/secret-store';

const SRC = resolve(__dirname, '../../src');
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(n) ? [p] : [];
  });
}

describe('keyring service name', () => {
  it('tests run with a throwaway service, and a store built without a name uses it', () => {
    expect(process.env.DESKHAND_KEYRING_SERVICE).toMatch(/^Deskhand-test-/);
    expect(new KeytarSecretStore().service).toBe(process.env.DESKHAND_KEYRING_SERVICE);
    expect(keyringService({})).toBe(KEYRING_SERVICE);
    expect(keyringService({ DESKHAND_KEYRING_SERVICE: 'x-test' })).toBe('x-test');
  });

  it('no host names the real service directly', () => {
    const offenders = files(SRC)
      .filter((f) => !f.endsWith(join('vault', 'secret-store.ts')))
      .filter((f) => /new KeytarSecretStore\(\s*KEYRING_SERVICE|KeytarSecretStore\(\s*['"]Deskhand['"]/.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
});
