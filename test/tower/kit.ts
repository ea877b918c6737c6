/** Shared by the Tower tests: a real git repository, the scripted model split by who asks, and waits. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { reply, type ReplyInput } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { firstUser, lastMessage, textOf, type SubHarness } from '../subagents/harness';
import type { RunOutcome } from '../../src/main/runtime/runtime';

export const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

export function makeRepo(): string {
  const repo = tempDir('deskhand-repo-');
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.email', 'person@example.com');
  git(repo, 'config', 'user.name', 'Person');
  for (const d of ['a', 'b', 'c']) {
    mkdirSync(join(repo, 'src', d), { recursive: true });
    writeFileSync(join(repo, 'src', d, 'README'), `${d}\n`);
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'start');
  return repo;
}

export async function until<T>(what: () => T | undefined | null | false, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const PLAN = {
  missions: [
    { id: 'a', title: 'Part A', scope: ['src/a/**'], tasks: ['write A'] },
    { id: 'b', title: 'Part B', scope: ['src/b/**'], tasks: ['write B'] },
    { id: 'c', title: 'Part C', scope: ['src/c/**'], tasks: ['write C'] },
  ],
};

/** The tower's replies that start missions a and b (plan approved by the person) with a worker each. */
export const startAB = (): ReplyInput[] => [
  reply().tool('tower_init', { objective: 'A and B' }),
  reply().tool('tower_plan', { missions: PLAN.missions.slice(0, 2) }),
  reply().tool('tower_spawn', { role: 'worker', mission: 'a' }),
  reply().tool('tower_spawn', { role: 'worker', mission: 'b' }),
  reply().text('started'),
];

/** The tower's requests and its last tool result; routing, messages as the person, waiting for children. */
export function towerKit(h: SubHarness) {
  const towerRequests = () => h.server.requests.filter((r) => !/You are (worker|reviewer)-/.test(firstUser(r)));
  return {
    towerRequests,
    lastToolResult: () => textOf(lastMessage(towerRequests().at(-1)!).content),
    /** Tower, workers and reviewers from separate queues: a request's first user message names who is asking. */
    route(queues: Record<string, ReplyInput[]>, tower: ReplyInput[]): void {
      h.server.setFallback((req) => {
        const first = firstUser(req);
        for (const [key, q] of Object.entries(queues)) if (first.includes(`You are ${key},`)) return q.shift() ?? { status: 500, message: `no reply left for ${key}` };
        return tower.shift() ?? { status: 500, message: 'no tower reply left' };
      });
    },
    /** Sends a message as the person; approves every approval the tower asks for (the plan). */
    async say(conv: string, text: string): Promise<RunOutcome> {
      let out = await h.runtime.sendMessage(conv, text, { provider: h.provider(), interactive: false });
      while (out.status === 'parked') out = (await h.runtime.decideApproval(out.approvalIds[0]!, { approved: true }, { provider: h.provider(), interactive: false }))!;
      return out;
    },
    childrenDone: (conv: string, n: number) =>
      until(() => {
        const list = h.runtime.subagents.list(conv);
        return list.length >= n && list.every((c) => ['finished', 'failed', 'cancelled', 'timed_out'].includes(c.status)) ? list : null;
      }),
  };
}
