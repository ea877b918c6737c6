/**
 * Issue 43, C1 end to end through the built `deskhand run` with the scripted model server: a secret in an instruction
 * file never reaches the model.
 * - A workspace AGENTS.md (a regular file, so it loads) holding a credential-named environment value and a token:
 *   the request holds their placeholders where the file's text was, never the values (before the wire redactor the
 *   system prompt carried them byte for byte while read_file of the same file gave placeholders).
 * - the workspace's `AGENTS.md → config/database.yml` holding a vault secret (the real keyring; the link stays in
 *   the workspace, so the guarded reader alone let it through): not loaded, and the value is in no request; the
 *   personal AGENTS.md (a regular file) holding the vault value loads as its placeholder.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { KeytarSecretStore } from '../../src/main/services/vault/secret-store';
import { reply } from '../support/model-server';
import { useCliWorld } from '../support/cli';
import { KEYRING_SERVICE_FOR_TESTS, NO_KEYRING_HELP, keyringStatus } from './keyring';

const keyring = await keyringStatus();
const w = useCliWorld('wirechain', { env: { DESKHAND_KEYRING_SERVICE: KEYRING_SERVICE_FOR_TESTS } });
afterAll(async () => {
  if (!keyring.available) return;
  const store = new KeytarSecretStore(KEYRING_SERVICE_FOR_TESTS);
  for (const name of await store.list()) await store.delete(name);
});

const unique = (tag: string) => `${tag}${Math.random().toString(36).slice(2, 10)}${Date.now().toString(36)}`;
const systemOf = (i: number): string => {
  const messages = (w.server.requests[i]?.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  // The stable prompt, then the instructions and per-turn context as system messages of their own (model-call.ts).
  return messages
    .filter((m) => m.role === 'system')
    .map((sys) => (typeof sys.content === 'string' ? sys.content : JSON.stringify(sys.content ?? '')))
    .join('\n\n');
};

it('the real keyring answers (the vault chain needs it)', () => {
  if (!keyring.available && keyring.allowMissing) return;
  if (!keyring.available) throw new Error(`${NO_KEYRING_HELP}\n(keyring error: ${keyring.error})`);
});

it('a credential-named environment value and a token in AGENTS.md reach the model as placeholders, never as values', async () => {
  const value = unique('EnvCanary');
  const token = `ghp_${'Zq8'.repeat(12)}`;
  writeFileSync(join(w.work, 'AGENTS.md'), `Deploy with the key ${value} and push with ${token}.\n`);
  writeFileSync(join(w.work, 'notes.txt'), `the key is ${value}\n`);
  w.server.enqueue(reply().tool('read_file', { path: join(w.work, 'notes.txt') }), reply().text('Done.'));
  const r = await w.run('deploy', { env: { DEPLOY_API_TOKEN: value } });
  expect(r.code, r.stderr).toBe(0);
  const sent = w.sentSince(0);
  expect(w.server.requests.length).toBe(2);
  expect(sent).not.toContain(value);
  expect(sent).not.toContain(token);
  expect(sent).not.toContain(Buffer.from(value).toString('base64').slice(0, 12));
  // Where the file's text was: its placeholders (the file did reach the request).
  expect(systemOf(0)).toContain('Deploy with the key [redacted:DEPLOY_API_TOKEN] and push with [redacted:github-token].');
  // The same value through read_file: the placeholder too (one redactor, two doors).
  expect(sent).toContain('the key is [redacted:DEPLOY_API_TOKEN]');
  expect(r.stdout + r.stderr).not.toContain(value);
}, 180_000);

it.skipIf(!keyring.available)('AGENTS.md linked to config/database.yml holding a vault secret: not loaded, the value in no request; a regular personal file loads as its placeholder', async () => {
  const name = `DBPASS_${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
  const value = unique('VaultCanary');
  const saved = await w.cli(['secrets', 'set', name, '--description', 'database password', '--data-dir', w.dataDir], { input: `${value}\n` });
  expect(saved.code, saved.stderr).toBe(0);
  const config = join(w.work, 'config');
  mkdirSync(config);
  writeFileSync(join(config, 'database.yml'), `production:\n  adapter: postgresql\n  pw: ${value}\n`);
  symlinkSync('config/database.yml', join(w.work, 'AGENTS.md'));
  writeFileSync(join(w.dataDir, 'AGENTS.md'), `Personal: the database answers to ${value}.\n`);
  const r = await w.run('hello');
  expect(r.code, r.stderr).toBe(0);
  const sent = w.sentSince(0);
  expect(sent).not.toContain(value);
  expect(sent).not.toContain('adapter: postgresql');
  expect(systemOf(0)).toContain(`## ${join(w.work, 'AGENTS.md')}\n(Not loaded: `);
  expect(systemOf(0)).toContain(`Personal: the database answers to [redacted:${name}].`);
}, 180_000);
