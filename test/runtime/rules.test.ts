/**
 * Always-allow rules people can manage: command prefixes matched per part of a command (never covering a part the
 * policy would not clear), folders for file tools, scopes (conversation, workspace, everywhere), match counts, and
 * revocation — through the real runtime, store and scripted model server.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../src/shared/contract';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import { commandPatternMatches, joinPattern, offerCommandPattern, splitPattern, type GrantLifetime, type GrantScope } from '../../src/shared/rules';
import { rawRun } from '../support/raw-db';
import { builtinTool } from '../support/tools';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from '../host/helpers';

describe('rule patterns', () => {
  it('quotes and splits words losslessly; a trailing * means any further arguments', () => {
    const words = ['grep', '-r', 'a b', "it's", '*'];
    const p = joinPattern(words);
    expect(p).toBe(`grep -r 'a b' 'it'\\''s' '*'`);
    expect(splitPattern(p)).toEqual({ words, any: false });
    expect(splitPattern('git diff *')).toEqual({ words: ['git', 'diff'], any: true });
    expect(splitPattern("unterminated 'quote")).toBeNull();
    expect(splitPattern('* npm')).toBeNull();
  });

  it('matches exactly, or by prefix with *', () => {
    expect(commandPatternMatches('npm test', ['npm', 'test'])).toBe(true);
    expect(commandPatternMatches('npm test', ['npm', 'test', '--watch'])).toBe(false);
    expect(commandPatternMatches('git diff *', ['git', 'diff'])).toBe(true);
    expect(commandPatternMatches('git diff *', ['git', 'diff', 'HEAD~1', '--stat'])).toBe(true);
    expect(commandPatternMatches('git diff *', ['git', 'difftool'])).toBe(false);
    // A quoted star is a literal argument, not a wildcard.
    expect(commandPatternMatches(`echo '*'`, ['echo', 'anything'])).toBe(false);
  });

  it('offers a subcommand prefix for build tools, exact commands for everything else', () => {
    expect(offerCommandPattern(['npm', 'test'])).toBe('npm test *');
    expect(offerCommandPattern(['npm', 'run', 'build', '--', '--watch'])).toBe('npm run build *');
    expect(offerCommandPattern(['git', 'commit', '-m', 'x'])).toBe('git commit *');
    expect(offerCommandPattern(['rm', '-rf', 'build'])).toBe('rm -rf build');
    expect(offerCommandPattern(['bash', 'script.sh'])).toBe('bash script.sh');
    expect(offerCommandPattern(['npm', '--version'])).toBe('npm --version');
  });
});

describe('rules in the approval engine: per part of a command', () => {
  const ws = tempDir('deskhand-rules-ws-');
  const ctx = { cwd: ws, workspaceRoots: [ws], dataDir: tempDir('deskhand-rules-data-') };
  const exec = builtinTool('execute_command', { dataDir: ctx.dataDir });
  const rule = { id: 'rule_npm', tool: 'execute_command', pattern: 'npm test *' };
  const decideCmd = (command: string, policy: 'read-only' | 'low-risk', rules = [rule]) => decideCall({ tool: exec, args: { command }, policy, tainted: false, ctx, rules });

  it('offers `npm test *` for npm test (high-risk), which asked with no rule before', async () => {
    const d = await decideCmd('npm test', 'low-risk', []);
    expect(d).toMatchObject({ decision: 'ask', rulePattern: 'npm test *' });
  });

  it('covers the rule part and lets the policy clear the rest: redirect and pipe under low-risk', async () => {
    for (const command of ['npm test', 'npm test -- --grep x', 'npm test > out.txt', 'npm test 2>&1 | tail -5']) {
      const d = await decideCmd(command, 'low-risk');
      expect(d.decision, `${command}: ${d.reasons.join(' | ')}`).toBe('allow');
      expect(d.ruleIds).toEqual(['rule_npm']);
    }
  });

  it('never covers a part the policy does not clear, an expansion, or a nested shell', async () => {
    const cases: [string, 'read-only' | 'low-risk'][] = [
      ['npm test > out.txt', 'read-only'], // the redirect writes: read-only does not clear it
      ['npm test && curl http://example.com', 'low-risk'],
      ['npm test $(cat list)', 'low-risk'],
      ['sh -c "npm test"', 'low-risk'],
      ['npm install left-pad', 'low-risk'],
      ['echo x > ~/.bashrc; npm test', 'low-risk'],
    ];
    for (const [command, policy] of cases) {
      const d = await decideCmd(command, policy);
      expect(d.decision, `${command} under ${policy}`).toBe('ask');
      expect(d.ruleIds).toEqual([]);
    }
  });
});

describe('rules end to end: scopes, counts, revoke', () => {
  let server: ModelServer;
  let h: Harness;
  let work: string;

  beforeEach(async () => {
    server = await startModelServer();
    work = tempDir('deskhand-rules-work-');
    mkdirSync(join(work, 'notes'));
    h = openHarness({ dataDir: tempDir('deskhand-rules-data-'), override: { provider: 'openai-compatible', model: 'scripted', baseURL: server.baseURL, apiKey: null } });
  });
  afterEach(async () => {
    h.close();
    await server.close();
  });

  /** Sends a message whose model writes `file`; resolves with the approval it asked for, or null when it ran. */
  async function write(conversationId: string, file: string): Promise<PendingApproval | null> {
    server.enqueue(reply().tool('write_file', { path: join('notes', file), content: file }), reply().text('ok'));
    const { runId } = await h.service.sendMessage({ conversationId, text: `write ${file}` });
    for (let i = 0; i < 200; i++) {
      const pending = (await h.service.listPendingApprovals({})).approvals.find((a) => a.runId === runId);
      if (pending) return pending;
      const status = h.store.getRun(runId)?.status;
      if (status && status !== 'running') return null;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`run ${runId} neither asked nor finished`);
  }

  /** Answers "always" and waits for the run to end. */
  async function always(approval: PendingApproval, scope?: GrantScope, lifetime?: GrantLifetime): Promise<void> {
    await h.service.decideApproval({ approvalId: approval.approvalId, decision: 'always', ...(scope ? { scope } : {}), ...(lifetime ? { lifetime } : {}) });
    for (let i = 0; i < 200 && h.store.getRun(approval.runId)?.status === 'running'; i++) await new Promise((r) => setTimeout(r, 25));
  }

  it('a conversation rule covers only its conversation; a workspace rule every conversation in the folder; counts matches; revoke asks again', async () => {
    const a = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const first = await write(a.id, 'a1.txt');
    expect(first!.alwaysPattern).toBe(`${join(work, 'notes')}/*`);
    await always(first!, 'conversation');
    expect(existsSync(join(work, 'notes', 'a1.txt'))).toBe(true);

    // Same conversation, another file in the folder: runs without asking.
    expect(await write(a.id, 'a2.txt')).toBeNull();
    expect(existsSync(join(work, 'notes', 'a2.txt'))).toBe(true);

    // Another conversation in the same folder still asks; saved for the workspace, it no longer does anywhere there.
    const b = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const asked = await write(b.id, 'b1.txt');
    expect(asked).not.toBeNull();
    await always(asked!, 'workspace');
    const c = await h.service.createConversation({ folder: work, policy: 'read-only' });
    expect(await write(c.id, 'c1.txt')).toBeNull();

    const { rules } = await h.service.listRules({});
    expect(rules.map((r) => [r.scope, r.pattern])).toEqual([
      ['conversation', `${join(work, 'notes')}/*`],
      ['workspace', `${join(work, 'notes')}/*`],
    ]);
    // Conversation a matched both its own rule and the workspace rule for a2; c matched the workspace rule.
    expect(rules.find((r) => r.scope === 'workspace')!.matchCount).toBeGreaterThanOrEqual(1);
    expect(rules.find((r) => r.scope === 'conversation')!.matchCount).toBe(1);
    expect(rules[0]!.source).toMatch(/^approval apr_/);
    expect(rules[1]!.where).toBe(`in every conversation in ${work}`);

    // Revoking both: the next write asks again.
    for (const r of rules) await h.service.revokeRule({ id: r.id });
    expect((await h.service.listRules({})).rules).toEqual([]);
    expect(await write(a.id, 'a3.txt')).not.toBeNull();
    await expect(h.service.revokeRule({ id: 'rule_missing' })).rejects.toThrow(/No rule rule_missing/);
  }, 60_000);

  it('a grant for an hour runs until it expires, then asks again; a task grant ends with its run (issue 46)', async () => {
    const a = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const first = await write(a.id, 'h1.txt');
    await always(first!, 'conversation', 'hour');
    const [saved] = (await h.service.listRules({})).rules;
    expect(saved).toMatchObject({ scope: 'conversation', expired: false });
    // An hour from when it was saved (a minute of slack for a loaded machine).
    expect(saved!.expiresAt! - saved!.createdAt).toBeGreaterThan(3_600_000 - 60_000);
    expect(saved!.expiresAt! - saved!.createdAt).toBeLessThanOrEqual(3_600_000);
    expect(await write(a.id, 'h2.txt')).toBeNull();
    expect(existsSync(join(work, 'notes', 'h2.txt'))).toBe(true);
    // The hour passes (its end is moved into the past, as another process's clock would find it): it asks again.
    rawRun(h.store.dataDir, 'UPDATE rules SET expires_at = ? WHERE id = ?', Date.now() - 1000, saved!.id);
    expect((await h.service.listRules({})).rules[0]).toMatchObject({ id: saved!.id, expired: true });
    const again = await write(a.id, 'h3.txt');
    expect(again).not.toBeNull();
    expect(existsSync(join(work, 'notes', 'h3.txt'))).toBe(false);

    // This task: saved for the run that asked; the next message is a new run, which asks again.
    await always(again!, 'task');
    const task = (await h.service.listRules({})).rules.find((r) => r.scope === 'task')!;
    expect(task).toMatchObject({ expiresAt: null, expired: true });
    expect(task.where).toMatch(/while run run_/);
    expect(await write(a.id, 'h4.txt')).not.toBeNull();
  }, 60_000);

  it('deleting a conversation deletes its conversation rules', async () => {
    const a = await h.service.createConversation({ folder: work, policy: 'read-only' });
    const first = await write(a.id, 'x.txt');
    await always(first!);
    expect((await h.service.listRules({})).rules).toHaveLength(1);
    await h.service.deleteConversation({ conversationId: a.id });
    expect((await h.service.listRules({})).rules).toEqual([]);
  }, 30_000);
});
