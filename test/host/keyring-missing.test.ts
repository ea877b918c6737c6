/**
 * No OS keyring (web mode on a machine without a Secret Service): one clear sentence instead of the raw D-Bus error,
 * and a key can still be entered — kept for this session in memory, never written — and the next run uses it
 * (the model server receives it). With a keyring the same call saves to it as before.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyringProblem } from '../../src/main/host/app/groups/providers';
import { MemorySecretStoreForTests } from '../../src/main/services/vault/secret-store';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

const DBUS_ERROR =
  'Could not list the secret in the OS keyring: The name org.freedesktop.secrets was not provided by any .service files. Is a keyring (Secret Service, Keychain, Credential Manager) running and unlocked?';

/** A secret store whose every call fails as keytar does without a Secret Service. */
class NoKeyring extends MemorySecretStoreForTests {
  override async get(): Promise<string | null> {
    throw new Error(DBUS_ERROR);
  }
  override async set(): Promise<void> {
    throw new Error(DBUS_ERROR);
  }
  override async delete(): Promise<boolean> {
    throw new Error(DBUS_ERROR);
  }
  override async list(): Promise<string[]> {
    throw new Error(DBUS_ERROR);
  }
}

let server: ModelServer;
let h: Harness;
beforeEach(async () => {
  server = await startModelServer({ apiKey: 'sk-typed-in-settings' });
  h = openHarness({ dataDir: tempDir('deskhand-nokeyring-'), secrets: new NoKeyring(), env: {} });
});
afterEach(async () => {
  h.close();
  await server.close();
});

describe('without an OS keyring', () => {
  it('says why in one sentence, keeps a typed key for the session, and the next run uses it', async () => {
    const before = await h.service.getSettings({});
    expect(before.keyring).toMatchObject({ available: false, message: 'no Secret Service (such as gnome-keyring or KWallet) is running in this session' });
    expect(before.keyring.detail).toContain('org.freedesktop.secrets');
    expect(before.keys.openai).toEqual({ set: false, source: null });

    const after = await h.service.setApiKey({ provider: 'openai', key: 'sk-typed-in-settings' });
    expect(after.keys.openai).toEqual({ set: true, source: 'session' });
    await h.service.saveSettings({ ...after.settings, activeProvider: 'openai', providers: { ...after.settings.providers, openai: { model: 'test-model', baseURL: server.baseURL } } });

    server.enqueue(reply().text('Hello with the session key.'));
    const c = await h.service.createConversation({ folder: tempDir('deskhand-nokeyring-work-'), policy: 'read-only' });
    const { runId } = await h.service.sendMessage({ conversationId: c.id, text: 'hi' });
    await h.waitFor((e) => e.event === 'run' && e.payload.type === 'run.finished' && e.payload.runId === runId && e.payload);
    expect(server.requests.at(-1)!.headers.authorization).toBe('Bearer sk-typed-in-settings');
    expect(h.store.getRun(runId)!.status).toBe('finished');

    expect((await h.service.clearApiKey({ provider: 'openai' })).keys.openai).toEqual({ set: false, source: null });
  });

  it('turns other keyring errors into one line each', () => {
    expect(keyringProblem(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY'))).toBe('this session has no D-Bus, which the OS keyring needs');
    expect(keyringProblem(new Error('Could not save the secret in the OS keyring: Cannot create an item in a locked collection'))).toBe(
      'the OS keyring is locked; unlock it and try again',
    );
  });
});
