/**
 * `deskhand usage`: the usage ledger (tokens and cost per day, conversation, model, provider or kind of work), the
 * person's price overrides, and budgets. Reads and writes the store only; a budget hold is answered with
 * `deskhand runs answer HOLD_ID` (cli/agent.ts), which resumes the run.
 */
import { formatTotalCost, CAUSE_LABELS, type UsageEntry, type UsageReport } from '../../../shared/usage';
import { PRICES } from '../../../shared/prices';
import { usageReportOf } from '../app/usage-projection';
import { holdMessage } from '../../runtime/loop/usage-budget';
import { out, parseSubcommand, usage, withRecords } from './common';
import { EXIT, print } from './flags';
import { type BudgetScope, type Records } from '../../runtime/records';

const BY = ['day', 'conversation', 'model', 'provider', 'cause'] as const;
type By = (typeof BY)[number];

const OPTIONS = {
  since: { type: 'string' },
  by: { type: 'string' },
  input: { type: 'string' },
  output: { type: 'string' },
  'cache-read': { type: 'string' },
  'cache-write': { type: 'string' },
  conversation: { type: 'string' },
  day: { type: 'boolean' },
  usd: { type: 'string' },
  tokens: { type: 'string' },
} as const;

export async function usageCommand(args: string[]): Promise<number> {
  const verb = args[0] && !args[0].startsWith('-') ? args[0] : 'report';
  const { values, positionals } = parseSubcommand(verb === 'report' ? args : args.slice(1), OPTIONS);
  return withRecords(values['data-dir'], (store) => {
    switch (verb) {
      case 'report':
        return report(store, values.since, values.by, !!values.json);
      case 'prices':
        return prices(store, positionals, values, !!values.json);
      case 'budget':
        return budget(store, positionals, values, !!values.json);
      default:
        throw usage(`Unknown usage command "${verb}". Use deskhand usage [--since D] [--by ${BY.join('|')}] [--json], usage prices …, or usage budget ….`);
    }
  });
}

function report(store: Records, since: string | undefined, by: string | undefined, json: boolean): number {
  if (by !== undefined && !(BY as readonly string[]).includes(by)) throw usage(`--by must be one of ${BY.join(', ')} (got "${by}").`);
  const r = usageReportOf(store, { since: since ?? null });
  if (json) {
    print(r);
    return EXIT.finished;
  }
  const t = r.total;
  out(`Usage${r.since ? ` since ${r.since}` : ''}: ${t.calls} model calls, ${t.inputTokens.toLocaleString('en-US')} in (${t.cacheReadTokens.toLocaleString('en-US')} cache read, ${t.cacheWriteTokens.toLocaleString('en-US')} cache write) / ${t.outputTokens.toLocaleString('en-US')} out${t.reasoningTokens ? ` (${t.reasoningTokens.toLocaleString('en-US')} reasoning)` : ''}, cost ${formatTotalCost(t)}`);
  if (t.calls === 0) return EXIT.finished;
  const views: [By, UsageEntry[]][] = by ? [[by as By, viewOf(r, by as By)]] : [['day', r.byDay], ['model', r.byModel], ['cause', r.byCause]];
  for (const [name, entries] of views) {
    out(`\nBy ${name}:`);
    for (const e of entries) {
      const label = name === 'cause' ? (CAUSE_LABELS[e.key] ?? e.key) : name === 'conversation' ? `${e.key}${e.label ? `  "${e.label}"` : ''}` : e.key;
      out(`  ${label.padEnd(30)} ${String(e.calls).padStart(5)} calls ${(e.inputTokens + e.outputTokens).toLocaleString('en-US').padStart(12)} tokens ${`${Math.round(e.share * 100)}%`.padStart(5)}  ${formatTotalCost(e)}`);
    }
  }
  return EXIT.finished;
}

function viewOf(r: UsageReport, by: By): UsageEntry[] {
  return { day: r.byDay, conversation: r.byConversation, model: r.byModel, provider: r.byProvider, cause: r.byCause }[by];
}

function money(name: string, value: string | undefined, required: boolean): number | undefined {
  if (value === undefined) {
    if (required) throw usage(`usage prices set needs --${name} (US dollars per million tokens).`);
    return undefined;
  }
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw usage(`--${name} must be a number of US dollars per million tokens, 0 or more (got "${value}").`);
  return n;
}

function prices(store: Records, positionals: string[], values: Record<string, string | boolean | undefined>, json: boolean): number {
  const q = store.usage;
  const [sub = 'list', model] = positionals;
  if (sub === 'list') {
    const overrides = q.prices();
    if (json) print({ overrides, builtIn: PRICES });
    else {
      out('Your prices (US dollars per million tokens: input, output, cache read, cache write):');
      if (overrides.length === 0) out('  none; the maintained table applies');
      for (const o of overrides) out(`  ${o.model.padEnd(28)} ${o.input_per_mtok} / ${o.output_per_mtok} / ${o.cache_read_per_mtok} / ${o.cache_write_per_mtok}`);
      out('Maintained table:');
      for (const [name, p] of Object.entries(PRICES)) out(`  ${name.padEnd(28)} ${p.inputPerMTok} / ${p.outputPerMTok} / ${p.cacheReadPerMTok} / ${p.cacheWritePerMTok}`);
    }
    return EXIT.finished;
  }
  if (!model) throw usage(`usage prices ${sub} needs a MODEL (a name, or a prefix such as claude-sonnet-4).`);
  if (sub === 'set') {
    const input = money('input', values.input as string | undefined, true)!;
    const output = money('output', values.output as string | undefined, true)!;
    const row = {
      model,
      input_per_mtok: input,
      output_per_mtok: output,
      cache_read_per_mtok: money('cache-read', values['cache-read'] as string | undefined, false) ?? input,
      cache_write_per_mtok: money('cache-write', values['cache-write'] as string | undefined, false) ?? input,
    };
    q.setPrice(row);
    if (json) print(row);
    else out(`Price for ${model} set: $${row.input_per_mtok} in, $${row.output_per_mtok} out per million tokens (cache read $${row.cache_read_per_mtok}, write $${row.cache_write_per_mtok}).`);
    return EXIT.finished;
  }
  if (sub === 'rm') {
    if (!q.removePrice(model)) throw usage(`You set no price for ${model}; see deskhand usage prices list.`);
    out(`Your price for ${model} removed.`);
    return EXIT.finished;
  }
  throw usage(`usage prices needs list, set MODEL --input N --output N [--cache-read N] [--cache-write N], or rm MODEL.`);
}

function budget(store: Records, positionals: string[], values: Record<string, string | boolean | undefined>, json: boolean): number {
  const q = store.usage;
  const [sub = 'list'] = positionals;
  if (sub === 'list') {
    const budgets = q.budgets();
    const holds = q.pendingHolds();
    if (json) print({ budgets, holds: holds.map((h) => ({ ...h, message: holdMessage(h) })) });
    else {
      if (budgets.length === 0) out('No budgets. Set one with deskhand usage budget set (--conversation ID | --day) (--usd N | --tokens N).');
      for (const b of budgets) out(`${b.scope === 'day' ? 'every day' : `conversation ${b.scope_id}`}: ${[b.limit_usd !== null ? `$${b.limit_usd}` : '', b.limit_tokens !== null ? `${b.limit_tokens} tokens` : ''].filter(Boolean).join(' and ')}`);
      for (const h of holds) out(`waiting: ${h.id}  run ${h.run_id}  ${holdMessage(h)}`);
    }
    return EXIT.finished;
  }
  const conversation = values.conversation as string | undefined;
  if (!!conversation === !!values.day) throw usage(`usage budget ${sub} needs --conversation ID or --day (one of them).`);
  const scope: BudgetScope = conversation ? 'conversation' : 'day';
  const scopeId = conversation ?? '';
  if (conversation && !store.getConversation(conversation)) throw usage(`No conversation ${conversation}; see deskhand runs list.`);
  if (sub === 'set') {
    const usd = values.usd === undefined ? null : Number(values.usd);
    const tokens = values.tokens === undefined ? null : Number(values.tokens);
    if (usd === null && tokens === null) throw usage('usage budget set needs --usd N (US dollars) or --tokens N, or both.');
    if (usd !== null && !(Number.isFinite(usd) && usd > 0)) throw usage(`--usd must be a positive number of US dollars (got "${String(values.usd)}").`);
    if (tokens !== null && !(Number.isInteger(tokens) && tokens > 0)) throw usage(`--tokens must be a positive whole number (got "${String(values.tokens)}").`);
    q.setBudget({ scope, scope_id: scopeId, limit_usd: usd, limit_tokens: tokens });
    if (json) print(q.budget(scope, scopeId));
    else out(`Budget set for ${scope === 'day' ? 'every day' : `conversation ${scopeId}`}: runs park before a model call that would cross it.`);
    return EXIT.finished;
  }
  if (sub === 'rm') {
    if (!q.removeBudget(scope, scopeId)) throw usage(`No budget for ${scope === 'day' ? 'every day' : `conversation ${scopeId}`}.`);
    out('Budget removed.');
    return EXIT.finished;
  }
  throw usage('usage budget needs list, set (--conversation ID | --day) (--usd N | --tokens N), or rm (--conversation ID | --day).');
}
