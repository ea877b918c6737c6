/**
 * The real OS keyring for security tests. scripts/test.sh runs the suite inside `dbus-run-session` with an unlocked
 * gnome-keyring, so CI always has one: a test that needs it FAILS when none answers, with what to do, unless
 * DESKHAND_ALLOW_NO_KEYRING=1 (then it is skipped, saying why). Each run uses its own service name, so a developer's
 * real keys are never touched.
 */
import { KeytarSecretStore } from '../../src/main/services/vault/secret-store';

export const KEYRING_SERVICE_FOR_TESTS = `Deskhand-test-${process.pid}-${Date.now()}`;

export const NO_KEYRING_HELP =
  'No Secret Service answered, so the vault cannot be tested against the real keyring. Run the tests the way CI does ' +
  '(`npm test`, which enters `dbus-run-session` and unlocks gnome-keyring), or by hand:\n' +
  "  dbus-run-session -- bash -c 'export XDG_DATA_HOME=$(mktemp -d) XDG_RUNTIME_DIR=$(mktemp -d); chmod 700 $XDG_RUNTIME_DIR; " +
  'eval "$(printf ci-pass | gnome-keyring-daemon --unlock --components=secrets)"; export GNOME_KEYRING_CONTROL; ' +
  "npx vitest run test/security/vault.test.ts'\n" +
  'Set DESKHAND_ALLOW_NO_KEYRING=1 to skip these tests on a machine without a keyring.';

export async function keyringStatus(): Promise<{ available: boolean; error: string | null; allowMissing: boolean }> {
  const allowMissing = process.env.DESKHAND_ALLOW_NO_KEYRING === '1';
  try {
    await new KeytarSecretStore(KEYRING_SERVICE_FOR_TESTS).list();
    return { available: true, error: null, allowMissing };
  } catch (err) {
    return { available: false, error: err instanceof Error ? err.message : String(err), allowMissing };
  }
}
