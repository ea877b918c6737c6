/**
 * The vault against the real OS keyring (gnome-keyring under dbus-run-session in CI): saving, listing (names and
 * descriptions, never values), deleting; and the secret tools through the runtime: ask_user_secret parks until the
 * secret is provided (`deskhand secrets set` path) and resumes, list_saved_secrets shows no value, use_saved_secret
 * always asks, and the model only ever holds the placeholder. Fails when no keyring answers (see keyring.ts).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppRuntime } from '../../src/main/host/assembly/open-runtime';
import { KeytarSecretStore } from '../../src/main/services/vault/secret-store';
import { Vault } from '../../src/main/services/vault/vault';
import { Store } from '../../src/main/services/store/store';
import type { RunEvent } from '../../src/shared/events';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { rawAll } from '../support/raw-db';
import { KEYRING_SERVICE_FOR_TESTS, NO_KEYRING_HELP, keyringStatus } from './keyring';

const status = await keyringStatus();
const run = status.available;

describe('the OS keyring', () => {
  it('answers (CI provides gnome-keyring under dbus-run-session)', () => {
    if (!status.available && status.allowMissing) return;
    if (!status.available) throw new Error(`${NO_KEYRING_HELP}\n(keyring error: ${status.error})`);
    expect(status.available).toBe(true);
  });
});

let dataDir: string;
let store: Store;
let vault: Vault;
const keyring = new KeytarSecretStore(KEYRING_SERVICE_FOR_TESTS);

beforeEach(() => {
  dataDir = tempDir('deskhand-vault-');
  store = new Store(dataDir);
  vault = new Vault(keyring, store);
});
afterEach(async () => {
  store.close();
  if (run) for (const name of await keyring.list()) await keyring.delete(name);
});

describe.skipIf(!run)('vault on the real keyring', () => {
  it('saves, lists names and descriptions only, reads back and deletes', async () => {
    await vault.set('GITHUB_TOKEN', 'ghp_value_1', 'GitHub token for acme/app');
    await vault.set('DB_PASS', 'pä ss\nword "quoted"', 'database');
    expect(await vault.get('GITHUB_TOKEN')).toBe('ghp_value_1');
    expect(await vault.get('DB_PASS')).toBe('pä ss\nword "quoted"');
    const list = await vault.list();
    expect(list.map((s) => [s.name, s.description])).toEqual([
      ['DB_PASS', 'database'],
      ['GITHUB_TOKEN', 'GitHub token for acme/app'],
    ]);
    expect(JSON.stringify(list)).not.toContain('ghp_value_1');
    // The value lives in the keyring, never in the store.
    expect(JSON.stringify(rawAll(store.dataDir, 'SELECT * FROM secrets'))).not.toContain('ghp_value_1');
    expect(await keyring.get('secret.GITHUB_TOKEN')).toBe('ghp_value_1');
    await vault.set('GITHUB_TOKEN', 'ghp_value_2');
    expect((await vault.list()).find((s) => s.name === 'GITHUB_TOKEN')?.description).toBe('GitHub token for acme/app');
    expect(await vault.delete('GITHUB_TOKEN')).toBe(true);
    expect(await vault.delete('GITHUB_TOKEN')).toBe(false);
    expect(await vault.has('GITHUB_TOKEN')).toBe(false);
    expect((await vault.list()).map((s) => s.name)).toEqual(['DB_PASS']);
  });

  it('refuses names a placeholder cannot carry', async () => {
    for (const bad of ['', '1ABC', 'has space', 'x]y', 'a'.repeat(65), '../etc']) await expect(vault.set(bad, 'v')).rejects.toThrow(/not a valid secret name/);
    await expect(vault.set('OK', '')).rejects.toThrow(/empty/);
  });

  it('keeps provider keys and saved secrets apart', async () => {
    await keyring.set('apiKey.openai', 'sk-provider');
    await vault.set('MINE', 'v-mine');
    expect((await vault.list()).map((s) => s.name)).toEqual(['MINE']);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The secret tools through the runtime, on the real keyring.

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => server.close());

const provider = () => ({ provider: 'anthropic' as const, model: 'claude-test', baseURL: server.baseURL, apiKey: 'sk-ant-test-key' });

describe.skipIf(!run)('secret tools on the real keyring', () => {
  it('ask_user_secret parks when nobody can answer, resumes when the secret is provided, and the model gets only the placeholder', async () => {
    const rt = createAppRuntime({ store, dataDir, vault, retryBaseMs: 10 });
    const work = tempDir('deskhand-vault-work-');
    server.enqueue(reply().tool('ask_user_secret', { name: 'NPM_TOKEN', description: 'npm publish token' }), reply().text('got it'));
    const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
    rt.setFamilies(conv.id, ['secrets'], true); // loaded from the first request, as a person enabling them would
    const events: RunEvent[] = [];
    const parked = await rt.sendMessage(conv.id, 'publish', { provider: provider(), interactive: false, onEvent: (e) => events.push(e) });
    expect(parked.status).toBe('parked');
    const requests = rt.pendingSecretRequests('NPM_TOKEN');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.approval.kind).toBe('secret');
    // An input request is answered with the value, not approved blindly.
    await expect(rt.decideApproval(requests[0]!.approval.id, { approved: true })).rejects.toThrow(/type a secret/);

    const value = `npm_${'Z'.repeat(36)}`;
    const outcomes = await rt.provideSecretByName('NPM_TOKEN', value, undefined, { provider: provider(), interactive: false, onEvent: (e) => events.push(e) });
    expect(outcomes.at(-1)?.status).toBe('finished');
    expect(await vault.get('NPM_TOKEN')).toBe(value);
    expect((await vault.list()).find((s) => s.name === 'NPM_TOKEN')?.description).toBe('npm publish token');
    const result = events.find((e): e is Extract<RunEvent, { type: 'tool.result' }> => e.type === 'tool.result' && e.tool === 'ask_user_secret');
    expect(result?.output).toContain('[redacted:NPM_TOKEN]');
    expect(JSON.stringify(server.requests.map((r) => r.body))).not.toContain(value);
    expect(JSON.stringify(events)).not.toContain(value);
  });

  it('list_saved_secrets shows names and descriptions; use_saved_secret asks even under high-risk', async () => {
    await vault.set('DEPLOY_KEY', 'deploy-value-123', 'deploy key');
    const rt = createAppRuntime({ store, dataDir, vault, retryBaseMs: 10 });
    const work = tempDir('deskhand-vault-work-');
    server.enqueue(reply().tool('list_saved_secrets', {}).tool('use_saved_secret', { name: 'DEPLOY_KEY' }));
    const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
    rt.setFamilies(conv.id, ['secrets'], true); // loaded from the first request, as a person enabling them would
    const events: RunEvent[] = [];
    const outcome = await rt.sendMessage(conv.id, 'deploy', { provider: provider(), interactive: false, onEvent: (e) => events.push(e) });
    const listed = events.find((e): e is Extract<RunEvent, { type: 'tool.result' }> => e.type === 'tool.result' && e.tool === 'list_saved_secrets');
    expect(listed?.output).toBe('DEPLOY_KEY — deploy key');
    expect(outcome.status).toBe('parked');
    const ask = events.find((e): e is Extract<RunEvent, { type: 'approval.requested' }> => e.type === 'approval.requested');
    expect(ask?.tool).toBe('use_saved_secret');
    expect(ask?.reasons.join(' ')).toMatch(/always asks/);
    expect(ask?.alwaysPattern).toBeNull();
  });
});
