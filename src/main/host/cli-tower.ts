/**
 * `deskhand tower list | show ID`: Tower sessions (coordinator mode) and one session's mission board — missions with
 * scope, tasks and status, the review gate, roster, inbox, findings and activity — read from the store.
 */
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../shared/errors';
import { towerModule } from '../services/store/modules/tower';
import { subagentsModule } from '../services/store/modules/subagents';
import { missionText } from '../services/tower/tower-service';
import { Store } from '../services/store/store';
import { resolveDataDir } from './open-runtime';

const usage = (message: string) => new DeskhandError('usage', message);
const t = (at: number) => new Date(at).toISOString().slice(11, 19);

export async function towerCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' } } });
  const store = new Store(resolveDataDir(values['data-dir']));
  const rows = store.module(towerModule);
  const out = (text: string) => process.stdout.write(`${text}\n`);
  try {
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
        const children = store.module(subagentsModule);
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
      default:
        throw usage('tower needs list or show.');
    }
  } finally {
    store.close();
  }
}
