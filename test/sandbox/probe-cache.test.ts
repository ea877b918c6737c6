/**
 * The sandbox probe remembered for `policy explain` (services/sandbox/probe-cache.ts): a second explanation answers
 * from the file the first one wrote while the bwrap binary and the user-namespace settings are unchanged, and any
 * other key, a damaged file or DESKHAND_SANDBOX=none gives what a fresh probe (what a host that runs the command) says.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeKey, rememberedSandboxSupport } from '../../src/main/services/sandbox/probe-cache';
import { resetSandboxSupport, sandboxSupport } from '../../src/main/services/sandbox/sandbox';
import { explainingSandbox } from '../../src/main/services/sandbox';
import { tempDir } from '../support/tool-context';

const linux = process.platform === 'linux' && process.env.DESKHAND_ALLOW_NO_SANDBOX !== '1';
const FILE = 'sandbox-probe.json';
type Saved = { key: string; support: { kind: string | null; available: boolean; detail: string; binary: string | null } };
const read = (dir: string) => JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as Saved;

afterEach(() => {
  delete process.env.DESKHAND_SANDBOX;
  resetSandboxSupport();
});

describe.skipIf(!linux)('the remembered sandbox probe (Linux)', () => {
  it('the first answer is a real probe, written with its key; the second is read back from the file', () => {
    const dir = tempDir('deskhand-probe-');
    const first = rememberedSandboxSupport(dir);
    expect(first).toEqual(sandboxSupport());
    const saved = read(dir);
    expect(saved).toEqual({ key: probeKey(), support: first });
    expect(JSON.parse(saved.key)).toMatchObject({ bwrap: first.binary, boot: expect.any(String) });
    // Proof that the second answer comes from the file: a detail no probe writes is what it returns.
    writeFileSync(join(dir, FILE), JSON.stringify({ ...saved, support: { ...saved.support, detail: 'REMEMBERED-1' } }));
    expect(rememberedSandboxSupport(dir).detail).toBe('REMEMBERED-1');
    expect(explainingSandbox(dir).support().detail).toBe('REMEMBERED-1');
  });

  it.each([
    { what: 'another binary', edit: (k: Record<string, unknown>) => ({ ...k, bwrap: '/opt/other/bwrap' }) },
    { what: 'another mtime of the binary', edit: (k: Record<string, unknown>) => ({ ...k, mtimeMs: 1 }) },
    { what: 'another size of the binary', edit: (k: Record<string, unknown>) => ({ ...k, size: 1 }) },
    { what: 'another mode (setuid changed)', edit: (k: Record<string, unknown>) => ({ ...k, mode: 0o104755 }) },
    { what: 'another boot', edit: (k: Record<string, unknown>) => ({ ...k, boot: '00000000-0000-0000-0000-000000000000' }) },
    { what: 'other user-namespace settings', edit: (k: Record<string, unknown>) => ({ ...k, userns: ['0', '0', '1'] }) },
    { what: 'another user', edit: (k: Record<string, unknown>) => ({ ...k, uid: 424242 }) },
  ])('a file written under $what is not trusted: the answer is a fresh probe, which replaces it', ({ edit }) => {
    const dir = tempDir('deskhand-probe-');
    const key = JSON.stringify(edit(JSON.parse(probeKey()!) as Record<string, unknown>));
    const stale = { kind: null, available: false, detail: 'STALE: no OS sandbox', binary: null };
    writeFileSync(join(dir, FILE), JSON.stringify({ key, support: stale }));
    const answer = rememberedSandboxSupport(dir);
    expect(answer).toEqual(sandboxSupport());
    expect(answer.detail).not.toBe(stale.detail);
    expect(read(dir)).toEqual({ key: probeKey(), support: answer });
  });

  it.each([
    { what: 'not JSON', text: '{"key":' },
    { what: 'no support', text: () => JSON.stringify({ key: probeKey() }) },
    { what: 'a support of the wrong shape', text: () => JSON.stringify({ key: probeKey(), support: { available: 'yes' } }) },
    { what: 'an array', text: '[]' },
  ])('a damaged file ($what) means a fresh probe, no crash', ({ text }) => {
    const dir = tempDir('deskhand-probe-');
    writeFileSync(join(dir, FILE), typeof text === 'function' ? text() : text);
    expect(rememberedSandboxSupport(dir)).toEqual(sandboxSupport());
    expect(read(dir).key).toBe(probeKey());
  });

  it('DESKHAND_SANDBOX=none is never answered from the file', () => {
    const dir = tempDir('deskhand-probe-');
    rememberedSandboxSupport(dir);
    const before = statSync(join(dir, FILE)).mtimeMs;
    process.env.DESKHAND_SANDBOX = 'none';
    resetSandboxSupport();
    expect(probeKey()).toBeNull();
    expect(rememberedSandboxSupport(dir)).toMatchObject({ available: false, detail: expect.stringContaining('DESKHAND_SANDBOX=none') });
    expect(statSync(join(dir, FILE)).mtimeMs).toBe(before);
  });

  it('an unwritable cache folder only costs the probe', () => {
    const dir = join(tempDir('deskhand-probe-'), 'file');
    writeFileSync(dir, 'not a folder');
    expect(rememberedSandboxSupport(dir)).toEqual(sandboxSupport());
  });
});
