/**
 * End to end: a secret stored in the vault, used in a command (`echo [redacted:NAME]` through execute_command, after
 * the person approves loading it and approves the command), and echoed back by that command (plain, base64, hex, on
 * stdout and stderr, split across writes) never appears in what the model receives (the scripted model server's
 * recorded requests), in the database (the SQLite files' bytes and every row of every table), in any other file of
 * the data folder (task logs), or in the events and terminal output.
 *
 * Twice: in-process with the real runtime and an in-memory SecretStore (always runs), and through the built
 * `deskhand` binary against the real OS keyring (`deskhand secrets set` from stdin, `run`, `runs approve`).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppRuntime } from '../../src/main/host/assembly/open-runtime';
import { Store } from '../../src/main/services/store/store';
import { MemorySecretStoreForTests } from '../../src/main/services/vault/secret-store';
import { Vault } from '../../src/main/services/vault/vault';
import type { RunEvent } from '../../src/shared/events';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { KEYRING_SERVICE_FOR_TESTS, NO_KEYRING_HELP, keyringStatus } from './keyring';

const VALUE = `Sx9-${Math.random().toString(36).slice(2)}-vault-e2e`;
/** Every form of the value the command prints. */
const FORMS = [VALUE, Buffer.from(VALUE).toString('base64').replace(/=+$/, ''), Buffer.from(VALUE).toString('hex')];

// Echo it back every way: plain, base64, hex, on stderr, and split across two writes to two streams.
const COMMAND =
  'echo "token: [redacted:E2E_TOKEN]"; printf %s [redacted:E2E_TOKEN] | base64; printf %s [redacted:E2E_TOKEN] | od -An -tx1 | tr -d " \\n"; echo; ' +
  'printf %s [redacted:E2E_TOKEN] >&2; v=[redacted:E2E_TOKEN]; printf %s "${v:0:7}"; printf %s "${v:7}" >&2; ' +
  // The proof that the value (not the placeholder) reached the command: its hash, written where only the test looks.
  'printf %s [redacted:E2E_TOKEN] | sha256sum | cut -c1-64 > secret.sha256';

/** The command's effect: the file holds the sha256 of the real value (the placeholder would hash differently). */
function expectSubstituted(work: string): void {
  const written = readFileSync(join(work, 'secret.sha256'), 'utf8').trim();
  expect(written).toBe(createHash('sha256').update(VALUE).digest('hex'));
  expect(written).not.toBe(createHash('sha256').update('[redacted:E2E_TOKEN]').digest('hex'));
}

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => server.close());

function script(): void {
  server.enqueue(
    reply().tool('use_saved_secret', { name: 'E2E_TOKEN' }),
    reply().tool('execute_command', { command: COMMAND }),
    reply().text('The command ran.'),
  );
}

/** Every byte of every file under `dir` (SQLite main file, WAL, task logs…). */
function filesUnder(dir: string): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...filesUnder(p));
    else if (st.isFile()) out.push({ path: p, bytes: readFileSync(p) });
  }
  return out;
}

/** Every row of every table, as text. */
function allRows(dbPath: string): string {
  const db = new Database(dbPath, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all())).join('\n');
  } finally {
    db.close();
  }
}

function expectNowhere(where: string, text: string | Buffer): void {
  for (const form of FORMS) {
    const found = typeof text === 'string' ? text.includes(form) : text.includes(Buffer.from(form));
    expect(found, `${where} contains the secret (${form === VALUE ? 'plain' : 'encoded'})`).toBe(false);
  }
}

function expectModelNeverSawIt(fromRequest: number): void {
  const bodies = server.requests.slice(fromRequest).map((r) => JSON.stringify(r.body));
  for (const [i, body] of bodies.entries()) expectNowhere(`model request ${i}`, body);
  // The model did get the command's result, with placeholders where the secret was.
  const last = bodies.at(-1) ?? '';
  expect(last).toContain('[redacted:E2E_TOKEN]');
  expect(last).toContain('exit code: 0');
}

function expectDataDirClean(dataDir: string): void {
  for (const f of filesUnder(dataDir)) expectNowhere(f.path, f.bytes);
  expectNowhere('database rows', allRows(join(dataDir, 'deskhand.db')));
}

describe('a vault secret used in a command never leaks (in-process)', () => {
  it('model requests, database, data folder and events hold only the placeholder', async () => {
    const dataDir = tempDir('deskhand-e2e-data-');
    const work = tempDir('deskhand-e2e-work-');
    const store = new Store(dataDir);
    const vault = new Vault(new MemorySecretStoreForTests(), store);
    await vault.set('E2E_TOKEN', VALUE, 'e2e token');
    // Every family over real background tasks, as a host assembles them.
    const rt = createAppRuntime({ store, dataDir, vault, retryBaseMs: 10 });
    const events: RunEvent[] = [];
    const options = { provider: { provider: 'openai' as const, model: 'gpt-test', baseURL: server.baseURL, apiKey: 'sk-test' }, interactive: false, onEvent: (e: RunEvent) => events.push(e) };
    const first = server.requests.length;
    script();
    const conv = rt.createConversation({ folder: work, policy: 'high-risk' });
    rt.setFamilies(conv.id, ['secrets'], true); // loaded from the first request, as a person enabling them would

    let outcome = await rt.sendMessage(conv.id, 'use the token', options);
    expect(outcome.status).toBe('parked');
    expect(store.pendingApprovals(outcome.runId)[0]!.tool).toBe('use_saved_secret');
    outcome = (await rt.decideApproval(outcome.approvalIds[0]!, { approved: true }, options))!;
    // The command carries a placeholder: it asks even under high-risk, and the approval shows the placeholder.
    expect(outcome.status).toBe('parked');
    const approval = store.pendingApprovals(outcome.runId)[0]!;
    expect(approval.tool).toBe('execute_command');
    expect(approval.preview).toContain('[redacted:E2E_TOKEN]');
    outcome = (await rt.decideApproval(approval.id, { approved: true }, options))!;
    expect(outcome.status).toBe('finished');

    const result = events.find((e): e is Extract<RunEvent, { type: 'tool.result' }> => e.type === 'tool.result' && e.tool === 'execute_command');
    expect(result?.output).toContain('token: [redacted:E2E_TOKEN]');
    expectSubstituted(work);
    expect(events.some((e) => e.type === 'tool.output')).toBe(true);
    expectModelNeverSawIt(first);
    expectNowhere('events', JSON.stringify(events));
    await rt.tasks.shutdown();
    store.close();
    expectDataDirClean(dataDir);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Through the binary, on the real keyring.

const CLI = resolve(__dirname, '../../out/main/cli.js');
const BIN = resolve(__dirname, '../../bin/deskhand.js');
const status = await keyringStatus();

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin?: string): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    const env: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: 'sk-test-openai', DESKHAND_RETRY_BASE_MS: '10', DESKHAND_KEYRING_SERVICE: KEYRING_SERVICE_FOR_TESTS };
    delete env.DESKHAND_HOME;
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(stdin ?? '');
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

const events = (r: CliResult) => r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; approvalIds?: string[] });

describe('a vault secret used in a command never leaks (deskhand binary, real keyring)', () => {
  it('the keyring answers', () => {
    if (!status.available && status.allowMissing) return;
    if (!status.available) throw new Error(`${NO_KEYRING_HELP}\n(keyring error: ${status.error})`);
  });

  it.skipIf(!status.available)('secrets set → run → approve → approve: nothing but placeholders anywhere', async () => {
    if (!existsSync(CLI)) throw new Error('out/main/cli.js is missing: run `npm run build` before these tests (npm test does).');
    const dataDir = tempDir('deskhand-e2e-cli-data-');
    const work = tempDir('deskhand-e2e-cli-work-');
    const transcript: string[] = [];
    const keep = (r: CliResult) => {
      transcript.push(r.stdout, r.stderr);
      return r;
    };

    const set = keep(await cli(['secrets', 'set', 'E2E_TOKEN', '--description', 'e2e token', '--data-dir', dataDir], `${VALUE}\n`));
    expect(set.code, set.stderr).toBe(0);
    const list = keep(await cli(['secrets', 'list', '--json', '--data-dir', dataDir]));
    expect(JSON.parse(list.stdout)).toMatchObject({ secrets: [{ name: 'E2E_TOKEN', description: 'e2e token' }] });

    const first = server.requests.length;
    script();
    const run = keep(
      await cli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'high-risk', '--cwd', work, '--data-dir', dataDir, '--json', 'use the token']),
    );
    expect(run.code, run.stderr).toBe(3);
    const parked1 = events(run).find((e) => e.type === 'run.parked')!;
    const approve1 = keep(await cli(['runs', 'approve', parked1.approvalIds![0]!, '--json', '--data-dir', dataDir]));
    expect(approve1.code, approve1.stderr).toBe(3);
    const parked2 = events(approve1).find((e) => e.type === 'run.parked')!;
    const approve2 = keep(await cli(['runs', 'approve', parked2.approvalIds![0]!, '--json', '--data-dir', dataDir]));
    expect(approve2.code, approve2.stderr).toBe(0);
    expect(approve2.stdout).toContain('[redacted:E2E_TOKEN]');
    expectSubstituted(work);

    expectModelNeverSawIt(first);
    expectNowhere('CLI output (events and logs)', transcript.join('\n'));
    expectDataDirClean(dataDir);

    const del = await cli(['secrets', 'delete', 'E2E_TOKEN', '--data-dir', dataDir]);
    expect(del.code).toBe(0);
    // Six CLI processes, each opening the whole runtime before it does anything: on the loaded 2-core test machine
    // each took 20–33 s (`secrets list`, which runs no model and no command, as long as `run`), so 30 s is too short.
  }, 240_000);
});
