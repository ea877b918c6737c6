/**
 * Every row written is redacted (issue 29, mechanism 10): text from outside that the store keeps — an MCP server's
 * stderr and last error (its health), task summaries and job tails, a child's answer and error, blackboard posts,
 * workflow and Tower text — passes the same redactor as everything else. The proof reads the database through a
 * second SQLite connection (it sees what sits in the WAL), never the file's bytes.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { extensionsModule } from '../../src/main/services/store/modules/extensions';
import { subagentsModule } from '../../src/main/services/store/modules/subagents';
import { workflowsModule } from '../../src/main/services/store/modules/workflows';
import { towerModule } from '../../src/main/services/store/modules/tower';
import { Store } from '../../src/main/services/store/store';
import { MemorySecretStoreForTests } from '../../src/main/services/vault/secret-store';
import { Vault } from '../../src/main/services/vault/vault';
import { tempDir } from '../support/tool-context';
import { addServer, fake, makeRuntime, until } from '../extensions/helpers';

const VALUE = `Vq7-${Math.random().toString(36).slice(2)}-mcp-leak-value`;
/** Each form the leaking server prints; none may be stored. */
const FORMS = [VALUE, Buffer.from(VALUE).toString('base64').replace(/=+$/, ''), Buffer.from(VALUE).toString('hex')];

/** Every row of every table, as text, through a second connection (it reads committed WAL pages too). */
function allRows(dataDir: string): string {
  const db = new Database(join(dataDir, 'deskhand.db'), { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.map((t) => `${t.name}: ${JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all())}`).join('\n');
  } finally {
    db.close();
  }
}

function healthRow(dataDir: string, name: string): { status: string; last_error: string | null; stderr_tail: string | null } | undefined {
  const db = new Database(join(dataDir, 'deskhand.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT status, last_error, stderr_tail FROM mcp_health WHERE name = ?').get(name) as never;
  } finally {
    db.close();
  }
}

let runtime: AppRuntime | undefined;
afterEach(async () => {
  await runtime?.mcp.close();
  await runtime?.tasks.shutdown();
  runtime?.store.close();
  runtime = undefined;
});

describe('MCP health keeps what a server printed, redacted', () => {
  it.each(['leak', 'leak-crash'])('a stdio server (%s) printing the vault secret it was given: the stored health holds the placeholder, never the value', async (mode) => {
    const dataDir = tempDir('deskhand-data-');
    const store = new Store(dataDir);
    const vault = new Vault(new MemorySecretStoreForTests(), store);
    await vault.set('LEAK_TOKEN', VALUE, 'a token for the test server');
    runtime = makeRuntime(dataDir, { store, vault });
    addServer(store, 'leaky', fake(mode, { secretEnv: { LEAKED_TOKEN: 'LEAK_TOKEN' } }));
    await runtime.startMcp();
    await until(() => {
      const h = healthRow(dataDir, 'leaky');
      return !!h?.stderr_tail && h.stderr_tail.includes('API_TOKEN') && (mode === 'leak' || (h.stderr_tail.includes('fatal') && h.status === 'failed'));
    });
    const health = healthRow(dataDir, 'leaky')!;
    // The server did print it (the lines are there), and what the store keeps is the placeholder.
    expect(health.stderr_tail).toContain('connecting with token [redacted:LEAK_TOKEN]');
    if (mode === 'leak-crash') expect(health.stderr_tail).toContain('rejected [redacted:LEAK_TOKEN]');
    const rows = allRows(dataDir);
    for (const form of FORMS) expect(rows).not.toContain(form);
    // The in-memory view other parts of this process show is the stored one's source: the CLI and the UI read rows.
    expect(JSON.stringify(runtime.store.module(extensionsModule).health())).not.toContain(VALUE);
  });
});

describe('every module write of outside text passes the store redactor', () => {
  const TOKEN = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
  const HELD = `held-${Math.random().toString(36).slice(2)}-secret-value`;
  const dirty = `saw ${TOKEN} and ${HELD} in the output`;

  function open(): { store: Store; dataDir: string } {
    const dataDir = tempDir('deskhand-data-');
    const store = new Store(dataDir);
    const redactor = new SecretRedactor();
    redactor.addSecret('HELD', HELD);
    store.setRedactor((t) => redactor.redact(t));
    return { store, dataDir };
  }

  const WRITES: { name: string; write(store: Store): void }[] = [
    { name: 'mcp health last_error and stderr_tail', write: (s) => s.module(extensionsModule).putHealth({ name: 'x', status: 'failed', tool_count: 0, last_error: dirty, stderr_tail: dirty, restarts: 0 }) },
    {
      name: 'a task\'s title, summary and progress (start, update, finish)',
      write: (s) => {
        const conv = s.createConversation({ id: `c_${Math.random().toString(36).slice(2)}`, folder: '/tmp', policy: 'low-risk', title: 't' });
        const t = s.tasks.insertTask({ id: `task_${conv.id}`, notify: 0, conversation_id: conv.id, run_id: null, call_id: null, kind: 'command', title: dirty, spec: '{}', background: 1, output_path: null, owner_pid: process.pid, owner_start: 'x' } as never);
        s.tasks.updateTask(t.id, { progress: JSON.stringify({ line: dirty }) });
        s.tasks.finishTask(t.id, 'failed', { summary: dirty });
      },
    },
    {
      name: 'a job\'s note and tail',
      write: (s) => {
        const conv = s.createConversation({ id: `c_${Math.random().toString(36).slice(2)}`, folder: '/tmp', policy: 'low-risk', title: 't' });
        const t = s.tasks.insertTask({ id: `task_${conv.id}`, notify: 0, conversation_id: conv.id, run_id: null, call_id: null, kind: 'batch', title: 'b', spec: '{}', background: 1, output_path: null, owner_pid: process.pid, owner_start: 'x' } as never);
        s.tasks.insertJob({ task_id: t.id, idx: 0, command: 'true', cwd: '/tmp', retries: 0, timeout_ms: 1000, output_path: null });
        s.tasks.updateJob(t.id, 0, { tail: dirty, note: dirty });
      },
    },
    {
      name: 'a child\'s result and error, a steering message, a blackboard post',
      write: (s) => {
        const q = s.module(subagentsModule);
        const row = q.insert({ id: 'sub_00000001', parent_conversation_id: 'c1', parent_run_id: null, parent_call_id: null, root_conversation_id: 'c1', conversation_id: 'c2', task_id: null, type: 'coder', description: 'd', prompt: 'p', background: 0, policy: 'low-risk', tools: '[]', result_schema: null, limits: '{}', owner_pid: 1, owner_start: 'x' } as never);
        q.update(row.id, { result: dirty });
        q.finish(row.id, 'failed', { error: dirty });
        q.steer(row.id, dirty);
        q.post('c1', 'child', dirty, dirty, true);
      },
    },
    {
      name: 'a workflow\'s progress, result, error and events',
      write: (s) => {
        const q = s.module(workflowsModule);
        q.insert({ id: 'wf_1', conversation_id: 'c1', run_id: 'r1', call_id: 'k1', name: null, script: 'x', args: '{}', limits: '{}' } as never);
        q.update('wf_1', { progress: dirty });
        q.event('wf_1', 'log' as never, dirty);
        q.finish('wf_1', 'failed' as never, { result: dirty, error: dirty });
      },
    },
    {
      name: 'Tower messages, findings, reviews and activity',
      write: (s) => {
        const q = s.module(towerModule);
        q.send('ts_1', 'worker', 'lead', dirty);
        q.finding('ts_1', 'worker', 'bug', dirty, dirty);
        q.review({ session_id: 'ts_1', mission_id: 'm1', reviewer: 'r', verdict: 'changes', commit_sha: 'abc', body: dirty } as never);
        q.log('ts_1', dirty);
      },
    },
  ];

  it.each(WRITES)('$name', ({ write }) => {
    const { store, dataDir } = open();
    try {
      write(store);
      const rows = allRows(dataDir);
      expect(rows).toContain('[redacted:HELD]');
      expect(rows).not.toContain(HELD);
      expect(rows).not.toContain(TOKEN);
    } finally {
      store.close();
    }
  });
});
