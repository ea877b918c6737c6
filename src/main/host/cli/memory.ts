/**
 * `deskhand memory list [--status proposed|active|rejected] [--kind memory|lesson] | show ID | rm ID | accept ID |
 * reject ID | export [--json] | extraction on|off` and `deskhand goals list | show ID | budget ID --turns N…`:
 * the person's side of memory (every change leaves a receipt) and of goals.
 */
import { DeskhandError } from '../../../shared/errors';
import { StoreMemoryService } from '../../services/memory/memory-service';
import { StoreGoalService } from '../../services/goals/goal-service';
import { describeBudget } from '../../services/goals';
import type { MemoryRecord } from '../../services/memory';
import { out, parseSubcommand, usage, withStore } from './common';
const ACTOR = 'person (deskhand memory)';

function line(r: MemoryRecord): string {
  return `${r.id}  ${r.kind.padEnd(6)} ${r.scope.padEnd(9)} ${r.status.padEnd(8)} ${r.topic}`;
}

export async function memoryCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, { status: { type: 'string' }, kind: { type: 'string' } });
  return withStore(values['data-dir'], (store) => {
    const memory = new StoreMemoryService(store);
    switch (sub) {
      case 'list': {
        const status = values.status;
        if (status && !['proposed', 'active', 'rejected'].includes(status)) throw usage('--status is proposed, active or rejected.');
        const kind = values.kind;
        if (kind && kind !== 'memory' && kind !== 'lesson') throw usage('--kind is memory or lesson.');
        const rows = memory.list({ ...(status ? { status: status as MemoryRecord['status'] } : {}), ...(kind ? { kind: kind as MemoryRecord['kind'] } : {}) });
        if (values.json) out(JSON.stringify(rows));
        else if (!rows.length) out('No memory records.');
        else for (const r of rows) out(line(r));
        return 0;
      }
      case 'show': {
        const id = positionals[0];
        if (!id) throw usage('memory show needs a record ID (from `deskhand memory list`).');
        const r = memory.get(id);
        const receipts = memory.receipts(id);
        if (!r && !receipts.length) throw new DeskhandError('not_found', `No memory record ${id}.`);
        if (values.json) out(JSON.stringify({ record: r ?? null, receipts }));
        else {
          if (r) out(`${line(r)}\n${r.scope_key ? `scope folder: ${r.scope_key}\n` : ''}${r.quote ? `from: "${r.quote}"\n` : ''}\n${r.body}\n`);
          else out(`${id} was removed.\n`);
          for (const rc of receipts) out(`receipt ${rc.id} ${new Date(rc.created_at).toISOString()} ${rc.action} by ${rc.actor}\n${rc.diff}\n`);
        }
        return 0;
      }
      case 'rm':
      case 'accept':
      case 'reject': {
        const id = positionals[0];
        if (!id) throw usage(`memory ${sub} needs a record ID.`);
        const receipt = sub === 'rm' ? memory.remove(id, { actor: ACTOR }) : sub === 'accept' ? memory.accept(id, ACTOR).receipt : memory.reject(id, ACTOR).receipt;
        if (values.json) out(JSON.stringify(receipt));
        else out(`${sub === 'rm' ? 'Removed' : sub === 'accept' ? 'Accepted' : 'Rejected'} ${id} (receipt ${receipt.id}).\n${receipt.diff}`);
        return 0;
      }
      case 'export': {
        const rows = memory.list();
        out(JSON.stringify({ exportedAt: new Date().toISOString(), records: rows.map((r) => ({ ...r, receipts: memory.receipts(r.id) })) }, null, values.json ? undefined : 2));
        return 0;
      }
      case 'extraction': {
        const v = positionals[0];
        if (v !== 'on' && v !== 'off') {
          out(`Automatic extraction is ${memory.extractionEnabled() ? 'on' : 'off'}${process.env.DESKHAND_MEMORY_EXTRACTION === 'off' ? ' (DESKHAND_MEMORY_EXTRACTION=off)' : ''}.`);
          return v === undefined ? 0 : 2;
        }
        memory.setExtraction(v === 'on');
        out(`Automatic extraction is ${v}. It only proposes records; you accept them.`);
        return 0;
      }
      default:
        throw usage('memory needs list, show ID, rm ID, accept ID, reject ID, export or extraction on|off.');
    }
  });
}

export async function goalsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, { turns: { type: 'string' }, tokens: { type: 'string' }, minutes: { type: 'string' } });
  return withStore(values['data-dir'], (store) => {
    const goals = new StoreGoalService(store);
    switch (sub) {
      case 'list': {
        const rows = goals.list();
        if (values.json) out(JSON.stringify(rows));
        else if (!rows.length) out('No goals.');
        else for (const g of rows) out(`${g.id}  ${g.status.padEnd(9)} ${describeBudget(g.budget, g.used)}  ${g.objective.slice(0, 80)}`);
        return 0;
      }
      case 'show': {
        const g = positionals[0] ? goals.get(positionals[0]) : null;
        if (!g) throw new DeskhandError('not_found', `No goal ${positionals[0] ?? ''}. List them with \`deskhand goals list\`.`);
        if (values.json) out(JSON.stringify(g));
        else {
          out(`${g.id} ${g.status}${g.endedReason ? `: ${g.endedReason}` : ''}\n${g.objective}\n${g.criteria.map((c) => `- ${c}`).join('\n')}\nBudget: ${describeBudget(g.budget, g.used)}`);
          for (const c of g.cycles) out(`cycle ${c.n}  ${c.reported.padEnd(10)} ${c.tokens} tokens  ${c.summary}${c.evidence.length ? `  evidence: ${c.evidence.map((e) => e.call_id).join(', ')}` : ''}`);
        }
        return 0;
      }
      case 'budget': {
        const g = positionals[0] ? goals.get(positionals[0]) : null;
        if (!g) throw new DeskhandError('not_found', `No goal ${positionals[0] ?? ''}.`);
        const n = (v: string | undefined, what: string) => {
          const x = Number(v);
          if (!Number.isFinite(x) || x <= 0) throw usage(`--${what} needs a positive number.`);
          return x;
        };
        let next = g;
        if (values.turns !== undefined) next = goals.setBudget(g.id, 'turns', Math.round(n(values.turns, 'turns')), true);
        if (values.tokens !== undefined) next = goals.setBudget(g.id, 'tokens', Math.round(n(values.tokens, 'tokens')), true);
        if (values.minutes !== undefined) next = goals.setBudget(g.id, 'ms', Math.round(n(values.minutes, 'minutes') * 60_000), true);
        out(`Budget: ${describeBudget(next.budget, next.used)}`);
        return 0;
      }
      default:
        throw usage('goals needs list, show ID or budget ID --turns N|--tokens N|--minutes N.');
    }
  });
}
