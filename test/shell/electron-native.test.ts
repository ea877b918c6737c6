/**
 * The Electron build of better-sqlite3 outside the app: the e2e harness checks for it before launching Electron (else
 * the Electron specs are skipped with one line instead of failing at start), and a build for the wrong ABI — what
 * npm's nodedir=/usr silently produces — is never taken for the right one.
 */
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import globalSetup, { ELECTRON_SKIP_ENV } from '../../e2e/global-setup';
import { builtAbi, electronTarget, ensureElectronNative, sqliteBindingPath } from '../../scripts/electron-native.mjs';
import { electronSqliteBindingPath } from '../../src/main/electron/desktop-app';
import { tempDir } from '../support/tool-context';
import { captured, nodeSqliteBuild } from './harness';

const saved = { ...process.env };
afterEach(() => {
  for (const k of [ELECTRON_SKIP_ENV, 'ELECTRON_OVERRIDE_DIST_PATH', 'DESKHAND_NO_NATIVE_BUILD']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

/** Runs the e2e global setup and returns what it printed (its one line, kept out of this suite's output). */
async function runGlobalSetup(): Promise<string> {
  return (await captured(process.stdout, () => globalSetup())).text;
}

/** A checkout-like root with the electron package's metadata and, optionally, a file at the native build's place. */
function fakeRoot(native?: string | Buffer): string {
  const root = tempDir('deskhand-native-root-');
  mkdirSync(join(root, 'node_modules', 'electron'), { recursive: true });
  writeFileSync(join(root, 'node_modules', 'electron', 'package.json'), JSON.stringify({ name: 'electron', version: '42.11.18' }));
  writeFileSync(join(root, 'node_modules', 'electron', 'abi_version'), '146');
  if (native !== undefined) {
    const target = sqliteBindingPath(root);
    mkdirSync(dirname(target), { recursive: true });
    if (typeof native === 'string') copyFileSync(native, target);
    else writeFileSync(target, native);
  }
  return root;
}

describe('the e2e harness', () => {
  it('with an Electron binary but no native build for it, skips the Electron specs with one line instead of launching', async () => {
    const dist = tempDir('deskhand-electron-dist-');
    writeFileSync(join(dist, 'electron'), '#!/bin/sh\nexit 1\n');
    chmodSync(join(dist, 'electron'), 0o755);
    process.env.ELECTRON_OVERRIDE_DIST_PATH = dist;
    process.env.DESKHAND_NO_NATIVE_BUILD = '1';
    const printed = await runGlobalSetup();
    const { version, abi } = electronTarget();
    const reason = `no better-sqlite3 build for Electron ${version} (ABI ${abi}) in out/native; run \`npm run rebuild:electron\` once (needs the network)`;
    expect(process.env[ELECTRON_SKIP_ENV]).toBe(reason);
    expect(printed).toBe(`Electron e2e: skipped — ${reason}.\n`);
  });

  it('without an Electron binary, says so', async () => {
    process.env.ELECTRON_OVERRIDE_DIST_PATH = tempDir('deskhand-empty-dist-');
    await runGlobalSetup();
    expect(process.env[ELECTRON_SKIP_ENV]).toMatch(/^no Electron binary on this machine/);
  });
});

describe('the native build check', () => {
  it('reads the ABI a build was made for', () => {
    expect(builtAbi(nodeSqliteBuild())).toBe(process.versions.modules);
    expect(builtAbi(join(tempDir('deskhand-none-'), 'missing.node'))).toBeNull();
  });

  it('refuses a Node-ABI build in the Electron slot (the nodedir=/usr trap) and takes one made for Electron', () => {
    expect(ensureElectronNative(fakeRoot(), { build: false })).toMatchObject({ ok: false, reason: expect.stringMatching(/npm run rebuild:electron/) });
    expect(ensureElectronNative(fakeRoot(nodeSqliteBuild()), { build: false })).toMatchObject({ ok: false });
    const electronBuilt = Buffer.concat([Buffer.from('\x7fELF fake '), Buffer.from('node_register_module_v146\0')]);
    const root = fakeRoot(electronBuilt);
    expect(ensureElectronNative(root, { build: false })).toEqual({ ok: true, binding: sqliteBindingPath(root), reason: '' });
  });

  it('the app and the scripts agree on where the build lives', () => {
    const root = fakeRoot();
    expect(electronSqliteBindingPath(join(root, 'out', 'native'), '146')).toBe(sqliteBindingPath(root));
  });
});
