/**
 * Rules from the terminal: `runs approve --always --scope`, `rules list` (pattern, where, source, matches),
 * `policy explain --conversation` naming the rule that matched, and `rules rm` making the call ask again.
 */
import { mkdirSync } from 'node:fs';
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

describe('deskhand rules', () => {
  it('approve --always --scope workspace saves a rule that rules list shows, policy explain names, and rules rm removes', async () => {
    const dataDir = tempDir('deskhand-clirules-');
    const work = tempDir('deskhand-clirules-work-');
    mkdirSync(join(work, 'docs'));
    server.enqueue(reply().tool('write_file', { path: join(work, 'docs', 'a.md'), content: '# a' }));
    const parked = await runCli(['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--policy', 'read-only', '--cwd', work, '--data-dir', dataDir, '--json', 'write docs']);
    expect(parked.code, parked.stderr).toBe(3);
    const asked = parked.events.find((e) => e.type === 'approval.requested') as unknown as { approvalId: string };

    const badScope = await runCli(['runs', 'approve', asked.approvalId, '--always', '--scope', 'galaxy', '--data-dir', dataDir]);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toMatch(/--scope must be one of task, conversation, workspace, everywhere/);

    server.enqueue(reply().text('Written.'));
    const approved = await runCli(['runs', 'approve', asked.approvalId, '--always', '--scope', 'workspace', '--data-dir', dataDir, '--base-url', server.baseURL]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stderr).toContain(`Always: save a rule: write_file runs without asking in every conversation in ${work}, for anything in ${join(work, 'docs')}/`);

    const list = await runCli(['rules', 'list', '--json', '--data-dir', dataDir]);
    const rules = JSON.parse(list.stdout) as { id: string; pattern: string; scope: string; source: string; matchCount: number }[];
    expect(rules).toEqual([expect.objectContaining({ pattern: `${join(work, 'docs')}/*`, scope: 'workspace', matchCount: 0 })]);
    expect(rules[0]!.source).toContain(asked.approvalId);
    const text = await runCli(['rules', 'list', '--data-dir', dataDir]);
    expect(text.stdout).toMatch(/matched 0 times/);

    const explainArgs = ['policy', 'explain', '--tool', 'write_file', '--args', JSON.stringify({ path: 'docs/b.md', content: 'b' }), '--cwd', work, '--data-dir', dataDir];
    const explained = JSON.parse((await runCli(explainArgs)).stdout) as { decision: string; rules: { matched: { id: string }[] } };
    expect(explained.decision).toBe('allow');
    expect(explained.rules.matched.map((r) => r.id)).toEqual([rules[0]!.id]);

    const removed = await runCli(['rules', 'rm', rules[0]!.id, '--data-dir', dataDir]);
    expect(removed.code).toBe(0);
    const after = JSON.parse((await runCli(explainArgs)).stdout) as { decision: string };
    expect(after.decision).toBe('ask');
    const again = await runCli(['rules', 'rm', rules[0]!.id, '--data-dir', dataDir]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/No rule/);
  }, 60_000);
});
