/**
 * Issue 43, replay 11c: a vault secret (the real keyring) handed to an MCP server with `--secret-env`, which prints it
 * on its stderr (plain, base64, hex, in an assignment), reaches neither `deskhand mcp test` (plain and --json, a server
 * that connects and one that crashes) nor `deskhand mcp list` (plain and --json), nor the stored health row; the
 * placeholder stands where it was. Control: the server did print it (its stderr tail is shown with the placeholder).
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KeytarSecretStore } from '../../src/main/services/vault/secret-store';
import { BIN, cliEnv, useCliWorld } from '../support/cli';
import { rawAll } from '../support/raw-db';
import { KEYRING_SERVICE_FOR_TESTS, NO_KEYRING_HELP, keyringStatus } from './keyring';

const keyring = await keyringStatus();
const w = useCliWorld('mcpsecret', { env: { DESKHAND_KEYRING_SERVICE: KEYRING_SERVICE_FOR_TESTS } });
afterAll(async () => {
  if (!keyring.available) return;
  const store = new KeytarSecretStore(KEYRING_SERVICE_FOR_TESTS);
  for (const name of await store.list()) await store.delete(name);
});
const SERVER = resolve(__dirname, '../extensions/fake-mcp-server.mjs');

/** The CLI's whole output, read as text (runCli reads lines starting with `{` as run events; --json prints an object). */
function cliText(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv({ HOME: w.home, DESKHAND_KEYRING_SERVICE: KEYRING_SERVICE_FOR_TESTS }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => done({ code, out }));
  });
}

it('the real keyring answers (this file needs it)', () => {
  if (!keyring.available && keyring.allowMissing) return;
  if (!keyring.available) throw new Error(`${NO_KEYRING_HELP}\n(keyring error: ${keyring.error})`);
});

describe.skipIf(!keyring.available)('a secret an MCP server prints, through deskhand mcp test and mcp list', () => {
  it.each(['leak', 'leak-crash'] as const)('mode %s: no output and no stored row holds the value in any form', async (mode) => {
    const name = `MCP_${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    const value = `Mcp-Cli-Leak-${Math.random().toString(36).slice(2, 10)}-${Date.now().toString(36)}`;
    const forms = [value, Buffer.from(value).toString('base64').replace(/=+$/, ''), Buffer.from(value).toString('hex')];
    const saved = await w.cli(['secrets', 'set', name, '--description', 'a test secret', '--data-dir', w.dataDir], { input: `${value}\n` });
    expect(saved.code, saved.stderr).toBe(0);
    const add = await w.cli(['mcp', 'add', 'leaky', '--secret-env', `LEAKED_TOKEN=${name}`, '--data-dir', w.dataDir, '--', process.execPath, SERVER, mode]);
    expect(add.code, add.stderr).toBe(0);

    const outputs: string[] = [];
    for (const args of [['mcp', 'test', 'leaky'], ['mcp', 'test', 'leaky', '--json'], ['mcp', 'list'], ['mcp', 'list', '--json']]) {
      const r = await cliText([...args, '--data-dir', w.dataDir]);
      expect(r.code, `${args.join(' ')}: ${r.out}`).toBe(args[1] === 'test' && mode === 'leak-crash' ? 1 : 0);
      outputs.push(r.out);
    }
    const health = rawAll<{ status: string; last_error: string | null; stderr_tail: string | null }>(w.dataDir, "SELECT status, last_error, stderr_tail FROM mcp_health WHERE name = 'leaky'");
    expect(health).toHaveLength(1);
    // Control: the server ran and printed the secret; the placeholder stands where it was.
    expect(health[0]!.stderr_tail).toContain(`connecting with token [redacted:${name}]`);
    expect(outputs[1]).toContain(`connecting with token [redacted:${name}]`);
    if (mode === 'leak-crash') {
      expect(health[0]!.status).not.toBe('connected');
      for (const o of [outputs[0]!, outputs[2]!]) expect(o).toContain(`[redacted:${name}]`);
    }
    const everything = [...outputs, JSON.stringify(health)].join('\n');
    for (const form of forms) expect(everything).not.toContain(form);
  }, 120_000);
});
