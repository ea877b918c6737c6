/**
 * A textual git conflict at `tower_merge`, on a real git repository: the integration branch moved under a worker (a
 * commit made on it directly, as a person fixing something there would) and the worker changed the same lines. The
 * merge is aborted cleanly and escalated; the worker, spawned again, gets the integration branch merged into its own
 * with the markers to resolve; a branch that still holds markers is refused; the resolved one merges.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { reply, type ReplyInput } from '../support/model-server';
import { firstUser, lastMessage, messagesOf, openSubHarness, textOf, type SubHarness } from '../subagents/harness';
import { git, makeRepo, startAB, towerKit } from './kit';

let h: SubHarness;
afterEach(async () => {
  await h?.close();
});

const hasMergeHead = (worktree: string) => {
  try {
    execFileSync('git', ['rev-parse', '-q', '--verify', 'MERGE_HEAD'], { cwd: worktree, stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
};

describe('Tower merge conflict', () => {
  it('aborts a conflicting merge cleanly, escalates it, and lands the branch once the worker resolved the markers', async () => {
    h = await openSubHarness();
    const kit = towerKit(h);
    const repo = makeRepo();
    const personHead = git(repo, 'rev-parse', 'HEAD');
    const tower: ReplyInput[] = startAB();
    kit.route(
      {
        'worker-a': [
          reply().tool('read_file', { path: 'src/a/README' }),
          reply().tool('write_file', { path: 'src/a/README', content: 'a, as the worker wrote it\n' }),
          reply().text('done'),
          // Spawned again after the conflict: looks at the file, but ends without resolving it.
          reply().tool('read_file', { path: 'src/a/README' }),
          reply().text('looked at it'),
          // Spawned a third time: resolves it.
          reply().tool('read_file', { path: 'src/a/README' }),
          reply().tool('write_file', { path: 'src/a/README', content: 'a, as the worker wrote it, with the fix from integration\n' }),
          reply().text('resolved'),
        ],
        'worker-b': [reply().tool('write_file', { path: 'src/b/impl.txt', content: 'b\n' }), reply().text('done')],
        'reviewer-a': [reply().tool('tower_review', { mission: 'a', verdict: 'approve', body: 'ok' }), reply().text('ok')],
        'reviewer-b': [reply().tool('tower_review', { mission: 'b', verdict: 'approve', body: 'ok' }), reply().text('ok')],
        'reviewer-a-2': [reply().tool('tower_review', { mission: 'a', verdict: 'approve', body: 'careless ok' }), reply().text('ok')],
        'reviewer-a-3': [reply().tool('tower_review', { mission: 'a', verdict: 'approve', body: 'resolved' }), reply().text('ok')],
      },
      tower,
    );
    const conv = h.runtime.createConversation({ folder: repo, policy: 'high-risk' });
    h.runtime.setFamilies(conv.id, ['coordinator'], true); // loaded from the first request, as a person enabling them would
    await kit.say(conv.id, 'go');
    await kit.childrenDone(conv.id, 2);
    const session = h.runtime.tower.rows.activeFor(conv.id)!;
    const integration = session.integration_path;
    // The integration branch moves under worker-a: the same line changed there.
    writeFileSync(join(integration, 'src', 'a', 'README'), 'a, with a fix made on integration\n');
    git(integration, 'commit', '-qam', 'fix on integration');
    const integrationHead = git(integration, 'rev-parse', 'HEAD');

    tower.push(reply().tool('tower_spawn', { role: 'reviewer', mission: 'a' }), reply().tool('tower_spawn', { role: 'reviewer', mission: 'b' }), reply().text('reviewing'));
    await kit.say(conv.id, 'review');
    await kit.childrenDone(conv.id, 4);
    tower.push(reply().tool('tower_merge', { mission: 'a' }), reply().tool('tower_merge', { mission: 'b' }), reply().tool('tower_inbox', {}), reply().text('a conflicted'));
    await kit.say(conv.id, 'merge');
    const results = kit.towerRequests().slice(-3).map((r) => textOf(lastMessage(r).content));
    expect(results[0]).toMatch(/Not merged: it conflicts with tower\/tw_[0-9a-f]{8}\/integration in src\/a\/README; the merge was aborted .*tower_spawn role worker for a again/);
    // Aborted cleanly: the integration worktree as it was, nothing half-merged.
    expect(hasMergeHead(integration)).toBe(false);
    expect(results[1]).toMatch(/Merged b into/);
    expect(git(integration, 'rev-parse', 'HEAD^1')).toBe(integrationHead);
    expect(git(integration, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(integration, 'src', 'a', 'README'), 'utf8')).toBe('a, with a fix made on integration\n');
    expect(h.runtime.tower.rows.mission(session.id, 'a')!.status).toBe('conflict');
    // Escalated: the tower's inbox says what happened and what to do; the worker's inbox says why.
    expect(results[2]).toMatch(/from merge-gate: Conflict merging a into .* in src\/a\/README; the merge was aborted .* To resolve: tower_spawn its worker again/);
    expect(h.runtime.tower.rows.inbox(session.id, 'worker-a', 10).map((m) => m.body).join('\n')).toMatch(/Your branch conflicts with .* in src\/a\/README; the merge was aborted/);
    // The person's checkout: untouched.
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(personHead);
    expect(git(repo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(git(repo, 'status', '--porcelain')).toBe('');

    // Spawned again: the integration branch is merged into worker-a's branch, markers left for it.
    tower.push(reply().tool('tower_spawn', { role: 'worker', mission: 'a' }), reply().text('again'));
    await kit.say(conv.id, 'resolve');
    await kit.childrenDone(conv.id, 5);
    const workerA = h.server.requests.filter((r) => firstUser(r).includes('You are worker-a,'));
    expect(firstUser(workerA[3]!)).toMatch(/Deskhand merged that branch into yours; these files hold conflict markers .*: src\/a\/README/);
    expect(textOf(messagesOf(workerA[4]!).at(-1)!.content)).toMatch(/<<<<<<< HEAD[\s\S]*a, as the worker wrote it[\s\S]*=======[\s\S]*a, with a fix made on integration[\s\S]*>>>>>>> /);
    // A (careless) approval of a branch that still holds markers: the gate refuses it.
    tower.push(reply().tool('tower_spawn', { role: 'reviewer', mission: 'a' }), reply().text('reviewing'));
    await kit.say(conv.id, 'review');
    await kit.childrenDone(conv.id, 6);
    tower.push(reply().tool('tower_merge', { mission: 'a' }), reply().text('markers'));
    await kit.say(conv.id, 'merge a');
    expect(kit.lastToolResult()).toMatch(/Not merged: conflict markers are left in src\/a\/README/);
    expect(hasMergeHead(integration)).toBe(false);

    tower.push(reply().tool('tower_spawn', { role: 'worker', mission: 'a' }), reply().text('again'));
    await kit.say(conv.id, 'resolve');
    await kit.childrenDone(conv.id, 7);
    tower.push(reply().tool('tower_spawn', { role: 'reviewer', mission: 'a' }), reply().text('reviewing'));
    await kit.say(conv.id, 'review');
    await kit.childrenDone(conv.id, 8);
    tower.push(reply().tool('tower_merge', { mission: 'a' }), reply().text('merged'));
    await kit.say(conv.id, 'merge a');
    expect(kit.lastToolResult()).toMatch(/Merged a into/);
    expect(git(repo, 'show', `${session.integration_branch}:src/a/README`)).toBe('a, as the worker wrote it, with the fix from integration');
    expect(git(repo, 'show', `${session.integration_branch}:src/b/impl.txt`)).toBe('b');
    // No state of the integration branch ever held a conflict marker.
    for (const sha of git(repo, 'rev-list', '--first-parent', session.integration_branch).split('\n')) expect(() => git(repo, 'grep', '-q', '<<<<<<<', sha)).toThrow();
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(personHead);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });
});
