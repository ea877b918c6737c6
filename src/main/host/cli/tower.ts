/**
 * `deskhand tower list | show ID | teardown ID [--yes] [--reason TEXT]`: Tower sessions (coordinator mode), one
 * session's mission board — missions with scope, tasks and status, the review gate, roster, inbox, findings and
 * activity — read from the store; and ending a session from outside its conversation: every agent stopped (the process
 * running it notices), every worktree and `tower/*` branch it made removed, merged work kept on its integration branch.
 */
import { createInterface } from 'node:readline/promises';
import { missionText, teardownSession } from '../../services/tower/tower-service';
import { out, parseSubcommand, usage, withRecords } from './common';
import { cancelSubagentRow } from './subagents';
import { type Records, SUBAGENT_TERMINAL, type TowerSessionRow } from '../../runtime/records';

const t = (at: number) => new Date(at).toISOString().slice(11, 19);

export async function towerCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, { yes: { type: 'boolean', short: 'y' }, reason: { type: 'string' } });
  return withRecords(values['data-dir'], async (store) => {
    const rows = store.tower;
    switch (sub) {
      case 'list': {
        const list = rows.sessions(50);
        if (values.json) out(JSON.stringify(list));
        else
          out(
            list.length
              ? list.map((s) => `${s.id}  ${s.status.padEnd(9)}  ${rows.missions(s.id).filter((m) => m.status === 'merged').length}/${rows.missions(s.id).length} merged  ${s.integration_branch}  ${s.repo}  ${s.objective.slice(0, 60)}`).join('\n')
              : 'No Tower sessions.',
          );
        return 0;
      }
      case 'show': {
        const s = positionals[0] ? rows.session(positionals[0]) : undefined;
        if (!s) throw usage('tower show needs a session id (deskhand tower list shows them).');
        const children = store.subagents;
        const board = {
          session: s,
          missions: rows.missions(s.id),
          reviews: rows.reviews(s.id),
          roster: rows.agents(s.id).map((a) => ({ ...a, status: children.get(a.subagent_id)?.status ?? 'unknown' })),
          inbox: rows.messages(s.id, 50),
          findings: rows.findings(s.id),
          activity: rows.activity(s.id, 50),
        };
        if (values.json) out(JSON.stringify(board));
        else
          out(
            [
              `${s.id} ${s.status} on ${s.repo} (base ${s.base_branch}, merges into ${s.integration_branch}); plan ${s.plan_status}`,
              `objective: ${s.objective}`,
              '--- missions ---',
              ...board.missions.map((m) => {
                const r = rows.latestReview(s.id, m.id);
                return `${missionText(m)}\n  review: ${r ? `${r.verdict} by ${r.reviewer} at ${r.commit_sha.slice(0, 10)}` : 'none'}`;
              }),
              '--- roster ---',
              ...board.roster.map((a) => `${a.id} (${a.role}, ${a.mission_id}) ${a.status}`),
              '--- inbox ---',
              ...board.inbox.map((m) => `${t(m.at)} ${m.sender} -> ${m.recipient}: ${m.body.split('\n')[0]}`),
              ...(board.findings.length ? ['--- findings ---', ...board.findings.map((f) => `#${f.id} ${f.kind} ${f.title} (${f.sender})`)] : []),
              '--- activity ---',
              ...board.activity.map((a) => `${t(a.at)} ${a.text}`),
            ].join('\n'),
          );
        return 0;
      }
      case 'teardown': {
        const s = positionals[0] ? rows.session(positionals[0]) : undefined;
        if (!s) throw usage('tower teardown needs a session id (deskhand tower list shows them).');
        if (s.status === 'torn_down') {
          out(values.json ? JSON.stringify({ id: s.id, status: s.status, message: `${s.id} is already torn down.` }) : `${s.id} is already torn down.`);
          return 0;
        }
        if (!values.yes && !(await confirm(teardownPreview(store, s)))) {
          process.stderr.write('Not torn down.\n');
          return 1;
        }
        const reason = values.reason ?? 'torn down from the command line';
        const children = store.subagents;
        const message = await teardownSession(rows, s, reason, async (a) => {
          const child = children.get(a.subagent_id);
          if (child && !(SUBAGENT_TERMINAL as readonly string[]).includes(child.status)) cancelSubagentRow(store, child, `the Tower session was torn down: ${reason}`);
        });
        out(values.json ? JSON.stringify({ id: s.id, status: 'torn_down', message }) : message);
        return 0;
      }
      default:
        throw usage('tower needs list, show or teardown.');
    }
  });
}

/** What a teardown removes, in words: running agents, worktrees, branches, and which unmerged work is lost. */
function teardownPreview(store: Records, s: TowerSessionRow): string {
  const rows = store.tower;
  const children = store.subagents;
  const missions = rows.missions(s.id);
  const running = rows.agents(s.id).filter((a) => {
    const c = children.get(a.subagent_id);
    return c && !(SUBAGENT_TERMINAL as readonly string[]).includes(c.status);
  });
  const unmerged = missions.filter((m) => m.branch && m.status !== 'merged').map((m) => m.id);
  const merged = missions.some((m) => m.status === 'merged');
  return [
    `Tear down Tower ${s.id} on ${s.repo}?`,
    `  stops ${running.length} running agent${running.length === 1 ? '' : 's'}${running.length ? ` (${running.map((a) => a.id).join(', ')})` : ''}`,
    `  removes ${missions.filter((m) => m.worktree).length + 1} worktrees and the branches ${[...missions.filter((m) => m.branch).map((m) => m.branch!), ...(merged ? [] : [s.integration_branch])].join(', ') || '(none)'}`,
    unmerged.length ? `  unmerged work of ${unmerged.join(', ')} is lost` : '',
    merged ? `  keeps ${s.integration_branch} (merged work)` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** Asks on the terminal; without one, the caller must pass --yes. */
async function confirm(preview: string): Promise<boolean> {
  if (!process.stdin.isTTY) throw usage(`${preview}\nNo terminal to ask on: run it again with --yes to tear it down.`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${preview}\nTear it down? [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
