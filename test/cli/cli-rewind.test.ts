/**
 * The change ledger end to end through the built binary and the scripted model server (docs/rewind.md): one turn
 * writes a new file, edits another and runs a sandboxed command that appends to a third, deletes a fourth and
 * creates a folder; `deskhand changes` lists the five paths with their kind; `deskhand rewind --turn 1 --files` puts
 * every byte back and removes what was created, except a file the person edited afterwards (kept and named); a second
 * rewind (`--redo`) brings the turn's state back. Every effect is proven by the file system's bytes.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../support/cli';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';

let server: ModelServer;
beforeAll(async () => {
  requireBuild();
  server = await startModelServer();
});
afterAll(async () => server.close());

const env = { DESKHAND_MEMORY_EXTRACTION: 'off' };

interface RewindJson {
  files: { items: { path: string; action: string; reason?: string }[]; setId: string | null };
  conversation: { branch: string | null } | null;
}

describe('deskhand changes and rewind', () => {
  it('records a turn of file tools and a sandboxed command, rewinds it byte for byte, keeps the person\'s edit, and redoes', async () => {
    const dataDir = tempDir('deskhand-rewind-data-');
    const work = tempDir('deskhand-rewind-work-');
    const p = (name: string) => join(work, name);
    writeFileSync(p('edit.txt'), 'alpha\nbeta\ngamma\n');
    writeFileSync(p('append.txt'), 'first line\n');
    writeFileSync(p('delete.txt'), 'delete me\n');
    writeFileSync(p('keep.bin'), Buffer.from([0, 1, 2, 255]));
    mkdirSync(p('sub'));
    writeFileSync(p('sub/untouched.txt'), 'untouched\n');
    const original = { edit: readFileSync(p('edit.txt')), append: readFileSync(p('append.txt')), del: readFileSync(p('delete.txt')) };
    const deleteMode = statSync(p('delete.txt')).mode;

    server.enqueue(
      reply().tool('read_file', { path: 'edit.txt' }),
      reply()
        .tool('write_file', { path: 'new.txt', content: 'brand new\n' })
        .tool('edit_file', { path: 'edit.txt', old_string: 'beta', new_string: 'BETA' })
        .tool('execute_command', { command: 'echo appended >> append.txt && rm delete.txt && mkdir made' }),
      reply().text('Done.'),
    );
    const run = await runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'high-risk', '--cwd', work, '--data-dir', dataDir, '--json', 'change things'], { env });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const results = run.events.filter((e) => e.type === 'tool.result');
    expect(results.map((e) => e.status), JSON.stringify(results)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const conv = (run.events.find((e) => e.type === 'run.started') as unknown as { conversationId: string }).conversationId;

    // The turn's effects, on disk.
    expect(readFileSync(p('new.txt'), 'utf8')).toBe('brand new\n');
    expect(readFileSync(p('edit.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(readFileSync(p('append.txt'), 'utf8')).toBe('first line\nappended\n');
    expect(existsSync(p('delete.txt'))).toBe(false);
    expect(statSync(p('made')).isDirectory()).toBe(true);

    // `deskhand changes` lists the five paths with their kind, and diffs the text files.
    const listed = await runCli(['changes', conv, '--turn', '1', '--json', '--data-dir', dataDir]);
    expect(listed.code, listed.stderr).toBe(0);
    const turns = (JSON.parse(listed.stdout) as { turns: { turn: number; messageId: string; changes: { path: string; kind: string; diff: string | null }[] }[] }).turns;
    expect(turns).toHaveLength(1);
    const kinds = Object.fromEntries(turns[0]!.changes.map((c) => [c.path, c.kind]));
    expect(kinds).toEqual({ [p('append.txt')]: 'modified', [p('delete.txt')]: 'deleted', [p('edit.txt')]: 'modified', [p('made')]: 'created', [p('new.txt')]: 'created' });
    const editDiff = turns[0]!.changes.find((c) => c.path === p('edit.txt'))!.diff!;
    expect(editDiff).toContain('-beta');
    expect(editDiff).toContain('+BETA');
    const text = await runCli(['changes', conv, '--data-dir', dataDir]);
    expect(text.stdout).toContain('Turn 1 (message m');
    expect(text.stdout).toContain('5 files changed');
    expect(text.stdout).toMatch(/deleted\s+.*delete\.txt/);
    // The message id `--to` takes is in the export.
    const exportFile = join(dataDir, 'export.md');
    const exported = await runCli(['conversations', 'export', conv, '--out', exportFile, '--data-dir', dataDir]);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(exportFile, 'utf8')).toContain(`message ${turns[0]!.messageId}`);

    // The person edits one of the turn's files afterwards.
    writeFileSync(p('new.txt'), 'brand new\nand the person added this\n');

    // A dry run changes nothing and says what would happen.
    const dry = await runCli(['rewind', conv, '--turn', '1', '--files', '--dry-run', '--json', '--data-dir', dataDir]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(readFileSync(p('edit.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(existsSync(p('made'))).toBe(true);
    const dryItems = Object.fromEntries((JSON.parse(dry.stdout) as RewindJson).files.items.map((i) => [i.path, i.action]));
    expect(dryItems[p('made')]).toBe('removed');

    const rewound = await runCli(['rewind', conv, '--turn', '1', '--files', '--json', '--data-dir', dataDir]);
    expect(rewound.code, rewound.stderr).toBe(0);
    const out = JSON.parse(rewound.stdout) as RewindJson;
    expect(Object.fromEntries(out.files.items.map((i) => [i.path, i.action]))).toEqual({
      [p('append.txt')]: 'restored',
      [p('delete.txt')]: 'recreated',
      [p('edit.txt')]: 'restored',
      [p('made')]: 'removed',
      [p('new.txt')]: 'kept',
    });
    expect(out.files.items.find((i) => i.path === p('new.txt'))!.reason).toContain('changed since');
    expect(out.conversation).toBeNull();
    // Byte for byte, the mode included; what the turn created is gone; the person's edit is there.
    expect(readFileSync(p('edit.txt')).equals(original.edit)).toBe(true);
    expect(readFileSync(p('append.txt')).equals(original.append)).toBe(true);
    expect(readFileSync(p('delete.txt')).equals(original.del)).toBe(true);
    expect(statSync(p('delete.txt')).mode).toBe(deleteMode);
    expect(existsSync(p('made'))).toBe(false);
    expect(readFileSync(p('new.txt'), 'utf8')).toBe('brand new\nand the person added this\n');
    expect(readFileSync(p('sub/untouched.txt'), 'utf8')).toBe('untouched\n');
    expect(readFileSync(p('keep.bin')).equals(Buffer.from([0, 1, 2, 255]))).toBe(true);

    // The rewind is itself undoable: the turn's state comes back (the person's file still theirs).
    const redo = await runCli(['rewind', conv, '--redo', '--json', '--data-dir', dataDir]);
    expect(redo.code, redo.stderr).toBe(0);
    expect(readFileSync(p('edit.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n');
    expect(readFileSync(p('append.txt'), 'utf8')).toBe('first line\nappended\n');
    expect(existsSync(p('delete.txt'))).toBe(false);
    expect(statSync(p('made')).isDirectory()).toBe(true);
    expect(readFileSync(p('new.txt'), 'utf8')).toBe('brand new\nand the person added this\n');

    // --conversation: later messages move to a kept branch; the model's next request no longer holds them.
    const convRewind = await runCli(['rewind', conv, '--turn', '1', '--conversation', '--json', '--data-dir', dataDir]);
    expect(convRewind.code, convRewind.stderr).toBe(0);
    expect((JSON.parse(convRewind.stdout) as RewindJson).conversation!.branch).toMatch(/^branch_/);
    expect(readFileSync(p('edit.txt'), 'utf8')).toBe('alpha\nBETA\ngamma\n'); // files untouched by --conversation
    server.enqueue(reply().text('Fresh start.'));
    const before = server.requests.length;
    const next = await runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'high-risk', '--conversation', conv, '--cwd', work, '--data-dir', dataDir, '--json', 'again'], { env });
    expect(next.code, next.stderr).toBe(0);
    const body = JSON.stringify(server.requests[before]!.body);
    expect(body).toContain('again');
    expect(body).not.toContain('change things');
  }, 240_000);

  it('counts what a background command of the turn wrote after its call returned as the turn\'s, and rewinds it', async () => {
    const dataDir = tempDir('deskhand-rewind-data-');
    const work = tempDir('deskhand-rewind-work-');
    writeFileSync(join(work, 'log.txt'), 'before\n');
    server.enqueue(reply().tool('execute_command', { command: 'sleep 1; echo later >> log.txt; touch late.txt', run_in_background: true, description: 'slow writer' }), reply().text('Started.'));
    server.enqueue(reply().text('It finished.'));
    const run = await runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'high-risk', '--cwd', work, '--data-dir', dataDir, '--json', 'write later'], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(work, 'log.txt'), 'utf8')).toBe('before\nlater\n');
    const conv = (run.events.find((e) => e.type === 'run.started') as unknown as { conversationId: string }).conversationId;
    const listed = JSON.parse((await runCli(['changes', conv, '--turn', '1', '--json', '--data-dir', dataDir])).stdout) as { turns: { changes: { path: string; kind: string }[] }[] };
    expect(Object.fromEntries(listed.turns[0]!.changes.map((c) => [c.path, c.kind]))).toEqual({ [join(work, 'late.txt')]: 'created', [join(work, 'log.txt')]: 'modified' });
    const rewound = await runCli(['rewind', conv, '--turn', '1', '--files', '--data-dir', dataDir]);
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(readFileSync(join(work, 'log.txt'), 'utf8')).toBe('before\n');
    expect(existsSync(join(work, 'late.txt'))).toBe(false);
  }, 180_000);

  it('refuses a turn that does not exist and a rewind without a target, with a clear message', async () => {
    const dataDir = tempDir('deskhand-rewind-data-');
    const work = tempDir('deskhand-rewind-work-');
    server.enqueue(reply().text('Hi.'));
    const run = await runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--cwd', work, '--data-dir', dataDir, '--json', 'hello'], { env });
    const conv = (run.events.find((e) => e.type === 'run.started') as unknown as { conversationId: string }).conversationId;
    const missing = await runCli(['rewind', conv, '--turn', '4', '--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('there is no turn 4');
    const noTarget = await runCli(['rewind', conv, '--data-dir', dataDir]);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('exactly one of --to MESSAGE_ID, --turn N');
  }, 120_000);
});
