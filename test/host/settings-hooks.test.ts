/**
 * The person's hooks live in the data folder's settings.json beside Deskhand's settings (docs/hooks.md): the file
 * still reads as settings with a `hooks` key, and a save from a settings form keeps the hooks as written and never
 * takes hooks from the form.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ProviderSettings } from '../../src/main/host/app/groups/providers';
import { defaultSettings, SettingsFile } from '../../src/main/host/assembly/settings-file';
import { tempDir } from '../support/tool-context';

const HOOKS = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/home/me/check.sh', timeout: 5 }] }] };

it('settings with hooks still read as settings; a save keeps the file\'s hooks and ignores a form\'s', async () => {
  const dataDir = tempDir('deskhand-settings-hooks-');
  writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ ...defaultSettings({}), defaultPolicy: 'low-risk', hooks: HOOKS }));
  expect(new SettingsFile(dataDir, {}).read().defaultPolicy).toBe('low-risk');

  const secrets = { get: async () => null, set: async () => undefined, delete: async () => false, has: async () => false, available: async () => true };
  const settings = new ProviderSettings({ dataDir, secrets: secrets as never, env: {}, log: { info() {}, warn() {}, error() {}, debug() {} } as never, override: null });
  const form = { ...defaultSettings({}), defaultPolicy: 'high-risk' as const, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'curl evil' }] }] } };
  await settings.save(form).catch(() => undefined);
  const saved = JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')) as { defaultPolicy: string; hooks: unknown };
  expect(saved.defaultPolicy).toBe('high-risk');
  expect(saved.hooks).toEqual(HOOKS);
});
