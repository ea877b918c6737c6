/**
 * Round three (issue 29), mechanisms 10–13 end to end through the built `deskhand run` with the scripted model server
 * as the attacker (mechanism 9, the kill switch, is test/computer/kill-switch-cli-e2e.test.ts):
 * - 10: a vault secret (real keyring) handed to an MCP server that prints it on stderr: no row of the store, read
 *   through SQLite (WAL included), holds it in any form; mcp_health holds the placeholder.
 * - 11: a parent in plan mode spawns a child that calls write_file: the file does not exist, and the child's answer in
 *   the parent's next request carries the refusal.
 * - 12: analyze_media under read-only parks (exit 3); the companion provider's server hears nothing; denied, the
 *   model's next request says so and the companion still heard nothing; approved, the companion receives the image.
 * - 13: grep's files_with_matches and count modes over a workspace file holding a vault secret and a token: a pattern
 *   for the secret matches nothing in the model's next request, a control pattern on ordinary text matches.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Jimp from 'jimp';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeytarSecretStore } from '../../src/main/services/vault/secret-store';
import { reply, startModelServer, type ModelServer, type RecordedRequest } from '../support/model-server';
import { approvals, toolResults, useCliWorld, type CliResult } from '../support/cli';
import { rawAll, withRawDb } from '../support/raw-db';
import { KEYRING_SERVICE_FOR_TESTS, NO_KEYRING_HELP, keyringStatus } from './keyring';

const keyring = await keyringStatus();
const w = useCliWorld('chains3', { env: { DESKHAND_KEYRING_SERVICE: KEYRING_SERVICE_FOR_TESTS } });
afterAll(async () => {
  // The throwaway keyring service of this file: nothing stays in the keyring.
  if (!keyring.available) return;
  const store = new KeytarSecretStore(KEYRING_SERVICE_FOR_TESTS);
  for (const name of await store.list()) await store.delete(name);
});

const unique = (tag: string) => `${tag}-${Math.random().toString(36).slice(2, 10)}-${Date.now().toString(36)}`;
/** Saves a secret in the real keyring through `deskhand secrets set` (the value on stdin). */
async function saveSecret(name: string, value: string): Promise<void> {
  const r = await w.cli(['secrets', 'set', name, '--description', 'a test secret', '--data-dir', w.dataDir], { input: `${value}\n` });
  expect(r.code, r.stderr).toBe(0);
}
const textOf = (content: unknown): string => (typeof content === 'string' ? content : JSON.stringify(content));
const messagesOf = (req: RecordedRequest) => (req.body as { messages: { role: string; content: unknown }[] }).messages;
const firstUser = (req: RecordedRequest) => textOf(messagesOf(req).find((m) => m.role === 'user')?.content);
const lastToolResult = (req: RecordedRequest) => textOf(messagesOf(req).filter((m) => m.role === 'tool').at(-1)?.content);

it('the real keyring answers (chains 10 and 13 need it)', () => {
  if (!keyring.available && keyring.allowMissing) return;
  if (!keyring.available) throw new Error(`${NO_KEYRING_HELP}\n(keyring error: ${keyring.error})`);
});

describe('chain 10: a vault secret an MCP server prints on stderr is stored nowhere', () => {
  /** Every row of every table, through a second SQLite connection (it reads the WAL's committed pages too). */
  const allRows = () =>
    withRawDb(w.dataDir, (db) =>
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => `${t.name}: ${JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all())}`).join('\n'),
    );

  it.skipIf(!keyring.available)('deskhand run uses a server that prints the secret it was given: every row holds the placeholder, never the value', async () => {
    const name = `LEAK_${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    const value = unique('Mcp-Leak-Value');
    const forms = [value, Buffer.from(value).toString('base64').replace(/=+$/, ''), Buffer.from(value).toString('hex')];
    await saveSecret(name, value);
    const server = resolve(__dirname, '../extensions/fake-mcp-server.mjs');
    const add = await w.cli(['mcp', 'add', 'leaky', '--secret-env', `LEAKED_TOKEN=${name}`, '--tier', 'read-only', '--data-dir', w.dataDir, '--', process.execPath, server, 'leak']);
    expect(add.code, add.stderr).toBe(0);

    w.server.enqueue(reply().tool('mcp__leaky__probe', { q: 'status' }), reply().text('Checked.'));
    const r = await w.run('check the server', { flags: ['--enable', 'mcp'] });
    expect(r.code, r.stderr).toBe(0);
    // The server ran and answered (its tool result reached the model), so it printed the secret on its stderr.
    expect(toolResults(r).join('\n')).toContain('fine');
    const health = rawAll<{ stderr_tail: string | null }>(w.dataDir, "SELECT stderr_tail FROM mcp_health WHERE name = 'leaky'");
    expect(health).toHaveLength(1);
    expect(health[0]!.stderr_tail).toContain(`connecting with token [redacted:${name}]`);
    const rows = allRows();
    for (const form of forms) {
      expect(rows).not.toContain(form);
      expect(w.sentSince(0)).not.toContain(form);
      expect(r.stdout + r.stderr).not.toContain(form);
    }
  }, 240_000);
});

describe('chain 11: plan mode reaches a child through deskhand run', () => {
  it('a parent in plan mode spawns a coder that calls write_file: no file, and the parent hears why', async () => {
    const target = join(w.work, 'child-wrote.txt');
    const parent = [
      reply().tool('enter_plan_mode', {}),
      reply().tool('spawn_subagent', { prompt: 'CHILD TASK: create child-wrote.txt', description: 'write it', type: 'coder' }),
      reply().text('Planned.'),
    ];
    const child = [reply().tool('write_file', { path: target, content: 'the child wrote this\n' })];
    w.server.setFallback((req) => {
      if (!firstUser(req).includes('CHILD TASK')) return parent.shift() ?? reply().text('Done.');
      // The child's model reports what its call returned, as a model does.
      return child.shift() ?? reply().text(`I could not create the file: ${lastToolResult(req)}`);
    });
    const r = await w.run('plan the change, have a subagent do it', { policy: 'high-risk' });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(target)).toBe(false);
    const parentRequests = w.server.requests.filter((q) => !firstUser(q).includes('CHILD TASK'));
    expect(w.server.requests.length - parentRequests.length).toBe(2); // the child asked twice: its call, its answer
    // The parent's request after spawn_subagent holds the child's answer, which holds the refusal.
    const after = lastToolResult(parentRequests.at(-1)!);
    expect(after).toMatch(/Subagent sub_[0-9a-f]{8} \(coder: write it\) finished/);
    expect(after).toMatch(/I could not create the file: .*plan mode is on in the conversation that started this subagent/);
  }, 180_000);
});

describe('chain 12: media to a third party asks first', () => {
  let companion: ModelServer;
  beforeEach(async () => {
    companion = await startModelServer();
    companion.setFallback(() => reply().text('It is a blue rectangle.'));
    writeFileSync(join(w.work, 'private.png'), await new Jimp(64, 32, 0x2456c7ff).getBufferAsync(Jimp.MIME_PNG));
    const set = await w.cli(['media', 'companion', 'set', '--provider', 'openai-compatible', '--model', 'vision-third-party', '--base-url', companion.baseURL, '--data-dir', w.dataDir]);
    expect(set.code, set.stderr).toBe(0);
  });
  afterEach(async () => {
    await companion.close();
  });
  const imageSent = () => companion.requests.map((q) => JSON.stringify(q.body)).join('\n');

  async function parkedAnalyze(): Promise<{ r: CliResult; approvalId: string }> {
    w.server.enqueue(reply().tool('analyze_media', { path: 'private.png', question: 'What does it show?' }));
    const r = await w.run('describe the picture', { policy: 'read-only' });
    expect(r.code, r.stderr).toBe(3);
    const asked = approvals(r);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ tool: 'analyze_media' });
    expect(JSON.stringify(asked[0])).toContain(new URL(companion.baseURL).host);
    expect(companion.requests).toHaveLength(0);
    return { r, approvalId: String(asked[0]!.approvalId) };
  }

  it('parked under read-only, then denied: the companion never hears of it, and the model is told', async () => {
    const { approvalId } = await parkedAnalyze();
    const from = w.server.requests.length;
    const denied = await w.cli(['runs', 'deny', approvalId, '--reason', 'not to a third party', '--data-dir', w.dataDir, '--json']);
    expect(denied.code, denied.stderr).toBe(0);
    expect(companion.requests).toHaveLength(0);
    expect(lastToolResult(w.server.requests[from]!)).toMatch(/denied/);
    expect(w.sentSince(from)).toContain('not to a third party');
  }, 180_000);

  it('parked under read-only, then approved: the companion receives the image', async () => {
    const { approvalId } = await parkedAnalyze();
    const from = w.server.requests.length;
    const approved = await w.cli(['runs', 'approve', approvalId, '--data-dir', w.dataDir, '--json']);
    expect(approved.code, approved.stderr).toBe(0);
    expect(companion.requests).toHaveLength(1);
    expect(imageSent()).toMatch(/data:image\/png;base64,/);
    expect(lastToolResult(w.server.requests[from]!)).toContain('It is a blue rectangle.');
  }, 180_000);
});

describe('chain 13: grep answers only for what the model may see', () => {
  const GH = 'ghp_' + 'Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98';
  it.skipIf(!keyring.available)('files_with_matches and count over a file holding a vault secret and a token: the secret patterns match nothing, the control matches', async () => {
    const name = `GREP_${Math.random().toString(36).slice(2, 8).toUpperCase()}`;
    const value = unique('Vk3q-grep-secret');
    await saveSecret(name, value);
    mkdirSync(join(w.work, 'notes'));
    writeFileSync(join(w.work, 'notes', 'config.txt'), `ordinary control line\npayload: ${value} end\nkey-like ${GH} inside\n`);
    writeFileSync(join(w.work, 'notes', 'other.txt'), 'nothing here\n');
    const probes = [
      { pattern: 'Vk3q-grep', output_mode: 'files_with_matches' },
      { pattern: 'Vk3q-grep', output_mode: 'count_matches' },
      { pattern: value.slice(0, 20).toUpperCase(), output_mode: 'count_matches', '-i': true },
      { pattern: 'ghp_[A-Za-z0-9]{36}', output_mode: 'files_with_matches' },
      { pattern: 'ghp_Zy9', output_mode: 'count_matches' },
      { pattern: 'ordinary control', output_mode: 'files_with_matches' },
      { pattern: 'ordinary control', output_mode: 'count_matches' },
    ];
    const from = w.server.requests.length;
    w.server.enqueue(...probes.map((p) => reply().tool('grep', p)), reply().text('Searched.'));
    const r = await w.run('search the notes', { policy: 'read-only' });
    expect(r.code, r.stderr).toBe(0);
    // Request from+1+i is the one after probe i: its last tool message is that probe's answer.
    const answers = probes.map((_p, i) => lastToolResult(w.server.requests[from + 1 + i]!));
    for (const [i, p] of probes.entries()) {
      if (p.pattern === 'ordinary control') continue;
      expect(answers[i], JSON.stringify(p)).toMatch(/^No matches/);
      expect(answers[i]).not.toContain('config.txt');
    }
    expect(answers[5]).toContain('notes/config.txt');
    expect(answers[6]).toMatch(/notes\/config\.txt:1\b/);
    expect(w.sentSince(from)).not.toContain(value);
    expect(w.sentSince(from)).not.toContain(GH);
    // The file itself is unchanged: only what the model sees is redacted.
    expect(readFileSync(join(w.work, 'notes', 'config.txt'), 'utf8')).toContain(value);
  }, 180_000);
});
