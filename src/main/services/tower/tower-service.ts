/**
 * Tower (coordinator mode): one conversation (the tower) plans a mission split into parts with disjoint scope globs,
 * hands each to a worker subagent in its own git worktree and branch (created and removed here, never the person's
 * checkout), and merges a branch into the session's integration branch only behind the review gate: dependencies
 * merged, every changed file inside the mission's scope, the mission's tests passing in its worktree, and a
 * reviewer's approving verdict written against the branch's current tip. Conflicts abort the merge and are
 * escalated. The protocol lives here, not in prompts; the scope of a worker's edits is also enforced per call by the
 * approval engine (scope-inspector.ts).
 */
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DeskhandError } from '../../../shared/errors';
import type { Store } from '../store/store';
import { towerModule, type MissionRow, type TowerAgentRow, type TowerSessionRow } from '../store/modules/tower';
import type { SubagentService } from '../subagents/subagent-service';
import { SUBAGENT_TERMINAL } from '../store/modules/subagents';
import { checkGlob, globsOverlap, inScope } from './scope';
import { commitAll, commonGitDir, git, gitAt, gitAtOk, worktreeGitDir, type GitPlace } from './git';
import { sandboxedTestRunner, type TestRunner } from './test-command';
import { osSandbox } from '../sandbox/index';

export interface MissionPlan {
  id: string;
  title: string;
  scope: string[];
  tasks: string[];
  depends?: string[];
}

export interface TowerCallContext {
  runId: string;
  conversationId: string;
  callId: string;
  signal: AbortSignal;
}

/** Who is calling: the tower (the session's conversation) or a roster agent. */
export interface Caller {
  session: TowerSessionRow;
  name: string;
  agent: TowerAgentRow | null;
}

export interface TowerServiceOptions {
  store: Store;
  subagents: Pick<SubagentService, 'spawn' | 'cancel' | 'get' | 'steer'>;
  dataDir: string;
  /** Runs a mission's tests command (default: in the OS sandbox, the mission's worktree its only writable root). */
  runTests?: TestRunner;
}

const TERMINAL = new Set<string>(SUBAGENT_TERMINAL);
const usage = (m: string) => new DeskhandError('usage', m);

export class TowerService {
  readonly rows: ReturnType<typeof towerModule.queries>;

  private readonly runTests: TestRunner;

  constructor(private readonly opts: TowerServiceOptions) {
    this.rows = opts.store.module(towerModule);
    this.runTests = opts.runTests ?? sandboxedTestRunner({ sandbox: osSandbox, dataDir: opts.dataDir });
  }

  /** The session's tests command (shown on the plan's approval card), or null. */
  testsCommandOf(conversationId: string): string | null {
    return this.rows.activeFor(conversationId)?.tests_command ?? null;
  }

  // ── Identity ──────────────────────────────────────────────────────────────────────────────────────────────────

  caller(conversationId: string): Caller {
    const own = this.rows.activeFor(conversationId);
    if (own) return { session: own, name: 'tower', agent: null };
    const agent = this.rows.agentByConversation(conversationId);
    const session = agent && this.rows.session(agent.session_id);
    if (agent && session && session.status === 'active') return { session, name: agent.id, agent };
    throw new DeskhandError('conflict', 'No active Tower session here: the coordinator starts one with tower_init.');
  }

  private tower(conversationId: string): TowerSessionRow {
    const c = this.caller(conversationId);
    if (c.agent) throw new DeskhandError('conflict', `Only the tower (the coordinating conversation) may do this; you are ${c.name}. Ask it with tower_send.`);
    return c.session;
  }

  /** The mission scope a conversation's edits are held to (a worker's), or null. */
  scopeOf(conversationId: string): { root: string; globs: string[]; mission: string } | null {
    return missionScopeOf(this.rows, conversationId);
  }

  // ── Coordinator tools ─────────────────────────────────────────────────────────────────────────────────────────

  async init(input: { conversationId: string; cwd: string; objective: string; testsCommand?: string }): Promise<TowerSessionRow> {
    if (this.rows.activeFor(input.conversationId)) throw new DeskhandError('conflict', 'A Tower session is already active in this conversation; tower_status shows it, tower_teardown ends it.');
    const top = await git(input.cwd, ['rev-parse', '--show-toplevel']);
    if (top.code !== 0) throw usage(`${input.cwd} is not inside a git repository; Tower needs one (git init, and a first commit).`);
    const repo = realpathSync(top.stdout.trim());
    const place = await repoPlace(repo);
    const head = await gitAt(place, ['rev-parse', '--verify', 'HEAD']);
    if (head.code !== 0) throw usage('The repository has no commit yet; Tower branches from a commit.');
    const branch = (await gitAt(place, ['symbolic-ref', '--short', '-q', 'HEAD'])).stdout.trim() || 'HEAD';
    const id = `tw_${randomBytes(4).toString('hex')}`;
    const integrationBranch = `tower/${id}/integration`;
    const integrationPath = join(this.opts.dataDir, 'tower', id, 'integration');
    mkdirSync(join(this.opts.dataDir, 'tower', id), { recursive: true, mode: 0o700 });
    await gitAtOk(place, ['worktree', 'add', '-b', integrationBranch, integrationPath, head.stdout.trim()]);
    const row = this.rows.insertSession({ id, conversation_id: input.conversationId, repo, base_branch: branch, base_commit: head.stdout.trim(), integration_branch: integrationBranch, integration_path: integrationPath, objective: input.objective, tests_command: input.testsCommand ?? null });
    this.rows.log(id, `tower started on ${branch} at ${row.base_commit.slice(0, 10)}; merges go to ${integrationBranch}`);
    return row;
  }

  /** Checks a plan (disjoint scopes, known and acyclic dependencies); returns it in words. Throws what to fix. */
  checkPlan(missions: readonly MissionPlan[]): string {
    if (missions.length === 0) throw usage('A plan needs at least one mission.');
    const ids = new Set<string>();
    for (const m of missions) {
      if (!/^[a-z][a-z0-9-]{0,30}$/.test(m.id)) throw usage(`mission id "${m.id}" must be lowercase letters, digits and dashes (e.g. api, ui-forms).`);
      if (ids.has(m.id)) throw usage(`mission id "${m.id}" appears twice.`);
      ids.add(m.id);
      if (m.scope.length === 0) throw usage(`mission ${m.id} needs at least one scope glob.`);
      for (const g of m.scope) {
        const bad = checkGlob(g);
        if (bad) throw usage(`mission ${m.id}: ${bad}.`);
      }
    }
    for (let i = 0; i < missions.length; i++)
      for (let j = i + 1; j < missions.length; j++)
        for (const a of missions[i]!.scope)
          for (const b of missions[j]!.scope)
            if (globsOverlap(a, b)) throw usage(`missions ${missions[i]!.id} and ${missions[j]!.id} overlap: "${a}" and "${b}" may match the same files. Give each mission scopes no other mission touches.`);
    for (const m of missions) for (const d of m.depends ?? []) if (!ids.has(d) || d === m.id) throw usage(`mission ${m.id} depends on "${d}", which is not another mission of this plan.`);
    const seen = new Set<string>();
    const visiting = new Set<string>();
    const visit = (id: string) => {
      if (seen.has(id)) return;
      if (visiting.has(id)) throw usage(`the dependencies form a cycle through ${id}.`);
      visiting.add(id);
      for (const d of missions.find((x) => x.id === id)!.depends ?? []) visit(d);
      visiting.delete(id);
      seen.add(id);
    };
    for (const m of missions) visit(m.id);
    return missions.map((m) => `${m.id}: ${m.title}\n  scope: ${m.scope.join(', ')}\n  tasks: ${m.tasks.map((t) => `\n    - ${t}`).join('')}${m.depends?.length ? `\n  after: ${m.depends.join(', ')}` : ''}`).join('\n');
  }

  plan(conversationId: string, missions: readonly MissionPlan[]): MissionRow[] {
    const s = this.tower(conversationId);
    this.checkPlan(missions);
    if (this.rows.missions(s.id).some((m) => m.status !== 'planned')) throw new DeskhandError('conflict', 'Missions are already under way; a plan is replaced only before any worker starts.');
    this.rows.replaceMissions(s.id, missions.map((m) => ({ id: m.id, title: m.title, scope: JSON.stringify(m.scope), tasks: JSON.stringify(m.tasks.map((t) => ({ text: t, done: false }))), depends: JSON.stringify(m.depends ?? []) })));
    this.rows.updateSession(s.id, { plan_status: 'approved' });
    this.rows.log(s.id, `plan approved by the person: ${missions.map((m) => m.id).join(', ')}`);
    return this.rows.missions(s.id);
  }

  /**
   * Spawns a worker (type coder) or a reviewer (explore) for a mission; `type` names an agent definition instead
   * (services/agents), held within the role's built-in type and keeping the Tower tools (facts.roles tower-member).
   */
  async spawn(input: { role: 'worker' | 'reviewer'; mission: string; instructions?: string; type?: string }, ctx: TowerCallContext): Promise<TowerAgentRow> {
    const s = this.tower(ctx.conversationId);
    if (s.plan_status !== 'approved') throw new DeskhandError('conflict', 'No approved plan yet: call tower_plan first (the person approves it).');
    const m = this.rows.mission(s.id, input.mission);
    if (!m) throw new DeskhandError('not_found', `No mission ${input.mission}; tower_status lists them.`);
    if (m.status === 'merged' || m.status === 'cancelled') throw new DeskhandError('conflict', `Mission ${m.id} is ${m.status}.`);
    for (const a of this.rows.agents(s.id)) {
      const child = this.opts.subagents.get(a.subagent_id);
      if (a.mission_id === m.id && a.role === input.role && child && !TERMINAL.has(child.status)) throw new DeskhandError('conflict', `${a.id} is still working on ${m.id}; steer it with tower_send or wait for it.`);
    }
    let worktree = m.worktree;
    let branch = m.branch;
    if (input.role === 'worker' && !worktree) {
      const deps = (JSON.parse(m.depends) as string[]).filter((d) => this.rows.mission(s.id, d)?.status !== 'merged');
      if (deps.length) throw new DeskhandError('conflict', `Mission ${m.id} waits for ${deps.join(', ')} to merge first.`);
      branch = `tower/${s.id}/${m.id}`;
      worktree = join(this.opts.dataDir, 'tower', s.id, m.id);
      const tip = await gitAtOk(await worktreePlace(s, s.integration_path), ['rev-parse', 'HEAD']);
      await gitAtOk(await repoPlace(s.repo), ['worktree', 'add', '-b', branch, worktree, tip]);
      this.rows.updateMission(s.id, m.id, { branch, worktree });
    }
    if (!worktree || !branch) throw new DeskhandError('conflict', `Mission ${m.id} has no branch yet: spawn its worker first.`);
    // A branch whose merge conflicted: the integration branch is merged into it, conflict markers left for the worker.
    let conflicted: string[] = [];
    if (input.role === 'worker' && m.status === 'conflict') conflicted = await bringIntegrationIn(s, m, worktree);
    // A reviewer reviews committed work: the worker's edits are committed on its branch first.
    if (input.role === 'reviewer') {
      const scope = JSON.parse(m.scope) as string[];
      const done = await commitAll(await worktreePlace(s, worktree), `Tower mission ${m.id}: work of its worker`, (f) => inScope(f, scope));
      if (done.outside.length) throw new DeskhandError('conflict', `Mission ${m.id}'s worktree holds changes outside its scope (${done.outside.join(', ')}); nothing was committed. tower_send its worker to undo them.`);
    }
    // A mission has one worker (spawned again, it keeps its name and inbox); reviewers are numbered.
    const n = this.rows.agents(s.id).filter((a) => a.mission_id === m.id && a.role === input.role).length + 1;
    const name = input.role === 'worker' ? `worker-${m.id}` : `reviewer-${m.id}${n > 1 ? `-${n}` : ''}`;
    // The mission as it is now: a first worker's branch and worktree were made just above.
    const now = { ...m, branch, worktree };
    const prompt = input.role === 'worker' ? this.workerPrompt(s, now, name, input.instructions, conflicted) : this.reviewerPrompt(s, now, name, input.instructions);
    const builtIn = input.role === 'worker' ? 'coder' : 'explore';
    const child = await this.opts.subagents.spawn(
      {
        prompt,
        description: `${name}: ${m.title}`.slice(0, 120),
        type: input.type ?? builtIn,
        ...(input.type ? { within: { type: builtIn, keepRole: 'tower-member' } } : {}),
        background: true,
        workspace: { folder: worktree, cwd: worktree, roots: [worktree] },
      },
      { runId: ctx.runId, conversationId: ctx.conversationId, callId: ctx.callId, signal: ctx.signal },
    );
    const agent = { id: name, session_id: s.id, role: input.role, mission_id: m.id, subagent_id: child.id, conversation_id: child.conversation_id };
    this.rows.addAgent(agent);
    if (input.role === 'worker') this.rows.updateMission(s.id, m.id, { status: 'working' });
    this.rows.log(s.id, `${name} spawned for ${m.id} (${child.id}, task ${child.task_id})${input.type ? ` as ${input.type}` : ''}`);
    return { ...agent, created_at: Date.now() };
  }

  private workerPrompt(s: TowerSessionRow, m: MissionRow, name: string, extra?: string, conflicted: readonly string[] = []): string {
    const tasks = (JSON.parse(m.tasks) as { text: string; done: boolean }[]).map((t) => `- [${t.done ? 'x' : ' '}] ${t.text}`).join('\n');
    return [
      `You are ${name}, a Tower worker. Objective of the whole team: ${s.objective}`,
      `Your mission ${m.id}: ${m.title}\nTasks:\n${tasks}`,
      `You work in your own git worktree (your working folder), on branch ${m.branch}. You may change only files matching: ${(JSON.parse(m.scope) as string[]).join(', ')} — edits elsewhere are refused.`,
      s.tests_command ? `The mission's tests (run before a merge): ${s.tests_command}` : '',
      'When done: tick your tasks with tower_mission and tell the tower with tower_send (Deskhand commits your edits on your branch). Problems outside your scope: tower_finding. You cannot ask the person; ask the tower.',
      conflicted.length
        ? `Your branch conflicted with ${s.integration_branch}. Deskhand merged that branch into yours; these files hold conflict markers (<<<<<<< … ======= … >>>>>>>): ${conflicted.join(', ')}. Edit each so it keeps what both sides meant and no marker is left; Deskhand commits the merge. A branch with markers left is never merged.`
        : '',
      extra ? `From the tower: ${extra}` : '',
    ].filter(Boolean).join('\n\n');
  }

  private reviewerPrompt(s: TowerSessionRow, m: MissionRow, name: string, extra?: string): string {
    return [
      `You are ${name}, a Tower reviewer. Review branch ${m.branch} (mission ${m.id}: ${m.title}) in your working folder (its worktree).`,
      `See the change with: git diff ${s.integration_branch}...HEAD`,
      'Then submit exactly one verdict with tower_review: approve, or changes with what must change.',
      extra ? `From the tower: ${extra}` : '',
    ].filter(Boolean).join('\n\n');
  }

  /** The review gate, then a merge into the integration branch; what stopped it is said and recorded. */
  async merge(conversationId: string, missionId: string): Promise<{ merged: boolean; message: string }> {
    const s = this.tower(conversationId);
    const m = this.rows.mission(s.id, missionId);
    if (!m || !m.branch || !m.worktree) throw new DeskhandError('not_found', `Mission ${missionId} has no branch to merge (spawn its worker first).`);
    if (m.status === 'merged') return { merged: true, message: `${m.id} is already merged.` };
    const refuse = (status: MissionRow['status'] | null, why: string) => {
      if (status) this.rows.updateMission(s.id, m.id, { status });
      this.rows.log(s.id, `merge of ${m.id} refused: ${why}`);
      return { merged: false, message: `Not merged: ${why}` };
    };
    const deps = (JSON.parse(m.depends) as string[]).filter((d) => this.rows.mission(s.id, d)?.status !== 'merged');
    if (deps.length) return refuse(null, `it depends on ${deps.join(', ')}, not merged yet.`);
    // Uncommitted edits are committed (a new tip: a review of the old one no longer counts).
    // The scope check comes first: nothing outside the mission's scope is ever added or committed.
    const scope = JSON.parse(m.scope) as string[];
    const wt = await worktreePlace(s, m.worktree);
    const integration = await worktreePlace(s, s.integration_path);
    const repo = await repoPlace(s.repo);
    const committed = await commitAll(wt, `Tower mission ${m.id}: work of its worker`, (f) => inScope(f, scope));
    if (committed.outside.length) return refuse('changes', `files outside the mission's scope changed: ${committed.outside.join(', ')} (nothing was committed).`);
    const tip = committed.tip;
    const base = await gitAtOk(integration, ['rev-parse', 'HEAD']);
    const changed = (await gitAtOk(repo, ['diff', '--no-ext-diff', '--no-textconv', '--name-only', `${base}...${tip}`])).split('\n').filter(Boolean);
    if (changed.length === 0) return refuse(null, 'the branch changes nothing.');
    const outside = changed.filter((f) => !inScope(f, scope));
    if (outside.length) return refuse('changes', `files outside the mission's scope changed: ${outside.join(', ')}.`);
    const markers = await gitAt(repo, ['grep', '-l', '-E', '^(<{7}|>{7})( |$)', tip, '--', ...changed]);
    if (markers.code === 0) {
      const files = markers.stdout.split('\n').filter(Boolean).map((l) => l.slice(tip.length + 1));
      return refuse('changes', `conflict markers are left in ${files.join(', ')}; the worker must resolve them (tower_send it, or tower_spawn it again), then review again.`);
    }
    const review = this.rows.latestReview(s.id, m.id);
    if (!review) return refuse(null, 'no review yet: spawn a reviewer (tower_spawn role reviewer).');
    if (review.commit_sha !== tip) return refuse(null, `the latest review (${review.reviewer}) was written against ${review.commit_sha.slice(0, 10)}, not the branch tip ${tip.slice(0, 10)}: review again.`);
    if (review.verdict !== 'approve') return refuse('changes', `${review.reviewer} asked for changes: ${review.body}`);
    if (s.tests_command) {
      const t = await this.runTests({ worktree: m.worktree, command: s.tests_command });
      if (t.code !== 0) {
        const worker = this.rows.agents(s.id).find((a) => a.mission_id === m.id && a.role === 'worker');
        if (worker) this.rows.send(s.id, 'tower', worker.id, `Your mission's tests failed (exit ${t.code}); fix them and commit:\n${t.output.slice(-1500)}`);
        return refuse('changes', `the mission's tests failed (exit ${t.code}); the worker was sent back:\n${t.output.slice(-1500)}`);
      }
    }
    const merge = await gitAt(integration, ['merge', '--no-ff', '-m', `Tower: merge mission ${m.id} (${m.title})`, tip]);
    if (merge.code !== 0) {
      const conflicted = (await gitAt(integration, ['diff', '--name-only', '--diff-filter=U'])).stdout.trim().split('\n').filter(Boolean);
      await abortMerge(integration, base);
      const files = conflicted.join(', ') || 'its files';
      const worker = this.rows.agents(s.id).find((a) => a.mission_id === m.id && a.role === 'worker');
      if (worker) this.rows.send(s.id, 'tower', worker.id, `Your branch conflicts with ${s.integration_branch} in ${files}; the merge was aborted. When the tower spawns you again, ${s.integration_branch} is merged into your branch and you resolve the conflict markers.`);
      this.rows.send(s.id, 'merge-gate', 'tower', `Conflict merging ${m.id} into ${s.integration_branch} in ${files}; the merge was aborted and ${s.integration_branch} is as it was. To resolve: tower_spawn its worker again (it gets ${s.integration_branch} merged into its branch with the conflict markers to resolve), then a review, then tower_merge.`);
      if (merge.stdout.includes('CONFLICT') || conflicted.length)
        return refuse('conflict', `it conflicts with ${s.integration_branch} in ${files}; the merge was aborted (${s.integration_branch} is unchanged). tower_spawn role worker for ${m.id} again: Deskhand merges ${s.integration_branch} into its branch and the worker resolves the conflict markers; then review it again and tower_merge.`);
      return refuse(null, `git could not merge it (${(merge.stderr || merge.stdout).trim().slice(0, 400)}); the merge was aborted (${s.integration_branch} is unchanged).`);
    }
    const merged = await gitAtOk(integration, ['rev-parse', 'HEAD']);
    this.rows.updateMission(s.id, m.id, { status: 'merged', merged_commit: merged });
    this.rows.log(s.id, `${m.id} merged into ${s.integration_branch} at ${merged.slice(0, 10)} (reviewed by ${review.reviewer})`);
    return { merged: true, message: `Merged ${m.id} into ${s.integration_branch} (${merged.slice(0, 10)}), ${changed.length} files.` };
  }

  /** Stops every agent, removes every worktree and mission branch Deskhand made; the integration branch stays. */
  async teardown(conversationId: string, reason = 'tower torn down'): Promise<string> {
    const s = this.tower(conversationId);
    return teardownSession(this.rows, s, reason, async (a) => {
      const child = this.opts.subagents.get(a.subagent_id);
      if (child && !TERMINAL.has(child.status)) await this.opts.subagents.cancel(a.subagent_id, reason).catch(() => undefined);
    });
  }

  // ── Tools for every agent ─────────────────────────────────────────────────────────────────────────────────────

  send(conversationId: string, to: string, body: string): string {
    const c = this.caller(conversationId);
    const names = new Set(['tower', 'all', ...this.rows.agents(c.session.id).map((a) => a.id)]);
    if (!names.has(to)) throw usage(`No agent "${to}"; send to tower, all, or one of: ${[...names].filter((n) => n !== 'tower' && n !== 'all').join(', ') || '(no agents yet)'}.`);
    this.rows.send(c.session.id, c.name, to, body);
    // A running agent reads it before its next model call.
    const target = this.rows.agents(c.session.id).find((a) => a.id === to);
    if (target && c.agent === null) {
      const child = this.opts.subagents.get(target.subagent_id);
      if (child && !TERMINAL.has(child.status)) this.opts.subagents.steer(child.parent_conversation_id, child.id, `[tower_send from tower] ${body}`);
    }
    return `Sent to ${to}.`;
  }

  inbox(conversationId: string, limit = 20): string {
    const c = this.caller(conversationId);
    const msgs = this.rows.inbox(c.session.id, c.name, limit);
    return msgs.length ? msgs.map((m) => `#${m.id} ${new Date(m.at).toISOString().slice(11, 19)} from ${m.sender}${m.recipient === 'all' ? ' (to all)' : ''}: ${m.body}`).join('\n') : 'Your inbox is empty.';
  }

  finding(conversationId: string, kind: string, title: string, body: string): string {
    const c = this.caller(conversationId);
    const id = this.rows.finding(c.session.id, c.name, kind, title, body);
    this.rows.log(c.session.id, `${c.name} filed finding #${id} (${kind}): ${title}`);
    return `Finding #${id} filed for the tower.`;
  }

  async review(conversationId: string, missionId: string, verdict: 'approve' | 'changes', body: string): Promise<string> {
    const c = this.caller(conversationId);
    if (!c.agent || c.agent.role !== 'reviewer' || c.agent.mission_id !== missionId) throw new DeskhandError('conflict', `Only a reviewer assigned to ${missionId} may review it${c.agent ? `; you are ${c.agent.id}` : ''}.`);
    const m = this.rows.mission(c.session.id, missionId)!;
    const tip = await gitAtOk(await worktreePlace(c.session, m.worktree!), ['rev-parse', 'HEAD']);
    this.rows.review({ session_id: c.session.id, mission_id: missionId, reviewer: c.name, verdict, commit_sha: tip, body });
    if (m.status === 'working' || m.status === 'changes' || m.status === 'conflict') this.rows.updateMission(c.session.id, missionId, { status: verdict === 'approve' ? 'review' : 'changes' });
    this.rows.log(c.session.id, `${c.name}: ${verdict} on ${missionId} at ${tip.slice(0, 10)}`);
    return `Verdict "${verdict}" recorded for ${missionId} at ${tip.slice(0, 10)}.`;
  }

  mission(conversationId: string, missionId: string | undefined, patch: { done?: number[]; note?: string; blocker?: string }): string {
    const c = this.caller(conversationId);
    const id = missionId ?? c.agent?.mission_id;
    if (!id) throw usage('Name the mission (tower_status lists them).');
    const m = this.rows.mission(c.session.id, id);
    if (!m) throw new DeskhandError('not_found', `No mission ${id}.`);
    if (patch.done?.length || patch.note || patch.blocker) {
      if (c.agent && (c.agent.mission_id !== id || c.agent.role !== 'worker')) throw new DeskhandError('conflict', `Only ${id}'s worker (or the tower) may change it.`);
      const tasks = JSON.parse(m.tasks) as { text: string; done: boolean }[];
      for (const i of patch.done ?? []) {
        if (!tasks[i - 1]) throw usage(`Mission ${id} has no task ${i} (tasks are numbered from 1).`);
        tasks[i - 1]!.done = true;
      }
      const notes = JSON.parse(m.notes) as { kind: string; text: string; at: number }[];
      if (patch.note) notes.push({ kind: 'note', text: patch.note, at: Date.now() });
      if (patch.blocker) {
        notes.push({ kind: 'blocker', text: patch.blocker, at: Date.now() });
        this.rows.send(c.session.id, c.name, 'tower', `Blocker on ${id}: ${patch.blocker}`);
      }
      this.rows.updateMission(c.session.id, id, { tasks: JSON.stringify(tasks), notes: JSON.stringify(notes) });
    }
    const now = this.rows.mission(c.session.id, id)!;
    return missionText(now);
  }

  status(conversationId: string): string {
    const c = this.caller(conversationId);
    const s = c.session;
    const missions = this.rows.missions(s.id);
    const roster = this.rows.agents(s.id).map((a) => {
      const child = this.opts.subagents.get(a.subagent_id);
      return `${a.id} (${a.role}, ${a.mission_id}): ${child?.status ?? 'unknown'}`;
    });
    const gate = missions.map((m) => {
      const r = this.rows.latestReview(s.id, m.id);
      return `${m.id}: ${m.status}${r ? `, last review ${r.verdict} by ${r.reviewer} at ${r.commit_sha.slice(0, 10)}` : ', no review'}`;
    });
    const inbox = this.rows.inbox(s.id, c.name, 500).length;
    const activity = this.rows.activity(s.id, 10).map((a) => `${new Date(a.at).toISOString().slice(11, 19)} ${a.text}`);
    return [
      `Tower ${s.id} on ${s.repo} (base ${s.base_branch}, merges into ${s.integration_branch}); plan ${s.plan_status}; you are ${c.name}.`,
      `Objective: ${s.objective}`,
      `Missions:\n${missions.map((m) => `  ${missionLine(m)}`).join('\n') || '  (no plan yet)'}`,
      `Roster:\n${roster.map((r) => `  ${r}`).join('\n') || '  (nobody yet)'}`,
      `Review gate:\n${gate.map((g) => `  ${g}`).join('\n') || '  -'}`,
      `Inbox: ${inbox} message(s) (tower_inbox)`,
      `Activity:\n${activity.map((a) => `  ${a}`).join('\n')}`,
    ].join('\n');
  }

  /** Every worktree path this data dir holds for Tower (tests and teardown checks). */
  worktreesOf(sessionId: string): string[] {
    const s = this.rows.session(sessionId);
    if (!s) return [];
    return [s.integration_path, ...this.rows.missions(sessionId).map((m) => m.worktree).filter((p): p is string => !!p)].filter((p) => existsSync(p));
  }
}

/**
 * Ends a session from any process (the tower's tool, `deskhand tower teardown`): stops every agent through `stop`,
 * removes every worktree and mission branch; the integration branch stays when something was merged into it.
 */
export async function teardownSession(rows: TowerService['rows'], s: TowerSessionRow, reason: string, stop: (agent: TowerAgentRow) => Promise<void>): Promise<string> {
  for (const a of rows.agents(s.id)) await stop(a);
  const removed: string[] = [];
  const repo = await repoPlace(s.repo);
  for (const m of rows.missions(s.id)) {
    if (m.worktree) {
      await gitAt(repo, ['worktree', 'remove', '--force', m.worktree]);
      removed.push(m.worktree);
    }
    if (m.branch) await gitAt(repo, ['branch', '-D', m.branch]);
    if (m.status !== 'merged') rows.updateMission(s.id, m.id, { status: 'cancelled' });
    rows.updateMission(s.id, m.id, { worktree: null });
  }
  await gitAt(repo, ['worktree', 'remove', '--force', s.integration_path]);
  await gitAt(repo, ['worktree', 'prune']);
  const merged = rows.missions(s.id).filter((m) => m.status === 'merged').map((m) => m.id);
  if (merged.length === 0) await gitAt(repo, ['branch', '-D', s.integration_branch]);
  rows.updateSession(s.id, { status: 'torn_down' });
  rows.log(s.id, `torn down (${reason}); ${removed.length + 1} worktrees removed`);
  return merged.length
    ? `Tower ${s.id} torn down. Merged missions (${merged.join(', ')}) are on branch ${s.integration_branch}; merge it into ${s.base_branch} when you are satisfied. Every worktree is removed.`
    : `Tower ${s.id} torn down; nothing was merged, and every worktree and branch it made is removed.`;
}

/** Undoes a failed merge in the integration worktree: no MERGE_HEAD, no conflicted or staged file, HEAD where it was. */
async function abortMerge(place: GitPlace, head: string): Promise<void> {
  await gitAt(place, ['merge', '--abort']);
  const clean = (await gitAt(place, ['status', '--porcelain'])).stdout.trim() === '' && (await gitAt(place, ['rev-parse', 'HEAD'])).stdout.trim() === head;
  if (!clean) await gitAtOk(place, ['reset', '--hard', '-q', head]);
}

/** The person's repository as host git sees it: its common git dir (asked of git once per repository) and top level. */
const commonDirs = new Map<string, Promise<string>>();
export async function repoPlace(repo: string): Promise<GitPlace> {
  let common = commonDirs.get(repo);
  if (!common) {
    common = commonGitDir(repo);
    commonDirs.set(repo, common);
    common.catch(() => commonDirs.delete(repo));
  }
  return { gitDir: await common, workTree: repo };
}

/** A worktree Deskhand added: git's own admin entry for it, never the worktree's `.git` file. */
export async function worktreePlace(s: Pick<TowerSessionRow, 'repo'>, worktree: string): Promise<GitPlace> {
  const { gitDir } = await repoPlace(s.repo);
  return { gitDir: worktreeGitDir(gitDir, worktree), workTree: worktree };
}

/** Merges the integration branch into a mission's branch in its worktree; returns the files left with conflict markers. */
async function bringIntegrationIn(s: TowerSessionRow, m: MissionRow, worktree: string): Promise<string[]> {
  const place = await worktreePlace(s, worktree);
  const scope = JSON.parse(m.scope) as string[];
  const done = await commitAll(place, `Tower mission ${m.id}: work of its worker`, (f) => inScope(f, scope));
  if (done.outside.length) throw new DeskhandError('conflict', `Mission ${m.id}'s worktree holds changes outside its scope (${done.outside.join(', ')}); nothing was committed.`);
  const r = await gitAt(place, ['merge', '--no-ff', '--no-edit', '-m', `Tower: merge ${s.integration_branch} into mission ${m.id}`, s.integration_branch]);
  if (r.code === 0) return [];
  const conflicted = (await gitAt(place, ['diff', '--name-only', '--diff-filter=U'])).stdout.trim().split('\n').filter(Boolean);
  if (conflicted.length) return conflicted;
  await gitAt(place, ['merge', '--abort']);
  throw new DeskhandError('conflict', `git could not merge ${s.integration_branch} into ${m.branch}: ${(r.stderr || r.stdout).trim().slice(0, 400)}`);
}

function missionLine(m: MissionRow): string {
  const tasks = JSON.parse(m.tasks) as { done: boolean }[];
  return `${m.id} [${m.status}] ${m.title} (${tasks.filter((t) => t.done).length}/${tasks.length} tasks; scope ${(JSON.parse(m.scope) as string[]).join(', ')}${m.branch ? `; branch ${m.branch}` : ''})`;
}

export function missionText(m: MissionRow): string {
  const tasks = (JSON.parse(m.tasks) as { text: string; done: boolean }[]).map((t, i) => `  ${i + 1}. [${t.done ? 'x' : ' '}] ${t.text}`);
  const notes = (JSON.parse(m.notes) as { kind: string; text: string }[]).map((n) => `  ${n.kind}: ${n.text}`);
  return `${missionLine(m)}\ntasks:\n${tasks.join('\n')}${(JSON.parse(m.depends) as string[]).length ? `\nafter: ${(JSON.parse(m.depends) as string[]).join(', ')}` : ''}${notes.length ? `\nnotes:\n${notes.join('\n')}` : ''}`;
}

/**
 * The mission scope a conversation's edits are held to (a worker's), or null: TowerService.scopeOf, and what
 * `policy explain` reads without building the service (host/assembly/explain-host.ts).
 */
export function missionScopeOf(rows: Pick<ReturnType<typeof towerModule.queries>, 'agentByConversation' | 'mission'>, conversationId: string): { root: string; globs: string[]; mission: string } | null {
  const agent = rows.agentByConversation(conversationId);
  if (!agent || agent.role !== 'worker') return null;
  const m = rows.mission(agent.session_id, agent.mission_id);
  if (!m?.worktree) return null;
  return { root: m.worktree, globs: JSON.parse(m.scope) as string[], mission: m.id };
}
