/**
 * `deskhand changes CONVERSATION_ID [--turn N] [--json]`, `deskhand changes prune` and `deskhand rewind` (the change
 * ledger, docs/rewind.md): read and rewound on the store and the ledger alone, no runtime.
 */
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../../shared/errors';
import { ChangeLedger, renderDiff, type ChangedPath } from '../../services/ledger';
import { conversationOrThrow } from '../app/chat-host';
import { changesOfTurn, rewindConversation, turnFor, turnsOf, type RewindOutcome } from '../app/groups/changes';
import { SettingsFile } from '../assembly/settings-file';
import { resolveDataDir } from '../assembly/data-dir';
import { withStore } from './common';
import { print } from './flags';

const KIND_WIDTH = 9;

function describeChange(c: ChangedPath): string {
  const note = c.after?.type === 'ignored' || c.before?.type === 'ignored' ? '  (ignored folder: contents not kept)' : !c.restorable ? '  (previous bytes not kept: not restorable)' : '';
  return `  ${c.kind.padEnd(KIND_WIDTH)} ${c.path}${note}`;
}

export async function changesCommand(args: string[]): Promise<number> {
  if (args[0] === 'prune') return pruneCommand(args.slice(1));
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { 'data-dir': { type: 'string' }, turn: { type: 'string' }, json: { type: 'boolean' } } });
  const id = positionals[0];
  if (!id) throw new DeskhandError('usage', 'changes needs a conversation ID (the CLI prints it after each run), or `changes prune`.');
  const dataDir = resolveDataDir(values['data-dir']);
  return withStore(dataDir, (store, records) => {
    const conv = conversationOrThrow(records, id);
    const ledger = new ChangeLedger(store, dataDir);
    const turns = turnsOf(records, conv.id);
    const chosen = values.turn !== undefined ? [turnFor(turns, { turn: values.turn })] : turns;
    const sets = ledger.setsOf(conv.id);
    const out = chosen.map((t) => {
      const changes = changesOfTurn(sets, t);
      return { turn: t.turn, messageId: t.messageId, runId: t.runId, changes: changes.map((c) => ({ ...c, diff: renderDiff(c.path, c.before, c.after, ledger.blobs) })) };
    });
    const rewinds = values.turn === undefined ? sets.filter((s) => s.source === 'rewind').map((s) => ({ id: s.id, at: s.createdAt, note: s.note, changes: s.changes })) : [];
    if (values.json) {
      print({ conversationId: conv.id, turns: out, rewinds });
      return 0;
    }
    for (const t of out) {
      process.stdout.write(`Turn ${t.turn} (message ${t.messageId}): ${t.changes.length} file${t.changes.length === 1 ? '' : 's'} changed\n`);
      for (const c of t.changes) process.stdout.write(`${describeChange(c)}\n`);
      for (const c of t.changes) if (c.diff) process.stdout.write(`\n${c.diff}`);
      process.stdout.write('\n');
    }
    for (const r of rewinds) process.stdout.write(`Rewind ${r.id}: ${r.changes.length} path${r.changes.length === 1 ? '' : 's'} put back\n`);
    return 0;
  });
}

/** Retention: the settings' `changeRetention` (or the flags), else 1 GiB and 30 days. */
async function pruneCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { 'data-dir': { type: 'string' }, 'max-mb': { type: 'string' }, 'max-days': { type: 'string' }, json: { type: 'boolean' } } });
  const dataDir = resolveDataDir(values['data-dir']);
  const saved = new SettingsFile(dataDir).read().changeRetention;
  const number = (flag: string | undefined, fallback: number, name: string) => {
    if (flag === undefined) return fallback;
    const n = Number(flag);
    if (!Number.isFinite(n) || n < 0) throw new DeskhandError('usage', `--${name} takes a number, not "${flag}".`);
    return n;
  };
  const maxMb = number(values['max-mb'], saved?.maxMegabytes ?? 1024, 'max-mb');
  const maxDays = number(values['max-days'], saved?.maxDays ?? 30, 'max-days');
  return withStore(dataDir, (store) => {
    const result = new ChangeLedger(store, dataDir).prune({ maxBytes: maxMb * 1024 * 1024, maxAgeMs: maxDays * 24 * 3600_000 });
    if (values.json) print(result);
    else process.stdout.write(`Dropped ${result.setsDropped} change set(s), freed ${result.freedBytes} bytes; ${result.keptBytes} bytes kept.\n`);
    return 0;
  });
}

export async function rewindCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      to: { type: 'string' },
      turn: { type: 'string' },
      redo: { type: 'boolean' },
      files: { type: 'boolean' },
      conversation: { type: 'boolean' },
      both: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  const id = positionals[0];
  if (!id) throw new DeskhandError('usage', 'rewind needs a conversation ID: deskhand rewind ID (--to MESSAGE_ID | --turn N | --redo) [--files | --conversation | --both] [--dry-run] [--json].');
  const targets = [values.to !== undefined, values.turn !== undefined, !!values.redo].filter(Boolean).length;
  if (targets !== 1) throw new DeskhandError('usage', 'rewind takes exactly one of --to MESSAGE_ID, --turn N (the person\'s Nth message) or --redo (undo the last rewind).');
  const modes = [values.files, values.conversation, values.both].filter(Boolean).length;
  if (modes > 1) throw new DeskhandError('usage', 'rewind takes one of --files, --conversation or --both (the default).');
  if (values.redo && values.conversation) throw new DeskhandError('usage', '--redo puts files back; a conversation rewound stays a kept branch (docs/rewind.md).');
  const files = values.redo || !values.conversation;
  const conversation = !values.redo && !values.files;
  const dryRun = !!values['dry-run'];
  const dataDir = resolveDataDir(values['data-dir']);
  return withStore(dataDir, async (store, records) => {
    const conv = conversationOrThrow(records, id);
    const target = values.redo ? null : turnFor(turnsOf(records, conv.id), { ...(values.turn !== undefined ? { turn: values.turn } : {}), ...(values.to !== undefined ? { to: values.to } : {}) });
    const ledger = new ChangeLedger(store, dataDir);
    let outcome: RewindOutcome;
    try {
      outcome = await rewindConversation(records, ledger, conv, { target, files, conversation, dryRun });
    } finally {
      ledger.close();
    }
    const filesResult = outcome.files;
    const branch = outcome.conversation?.branch ?? null;
    if (values.json) {
      print({ conversationId: conv.id, ...outcome });
      return 0;
    }
    const w = (s: string) => process.stdout.write(`${s}\n`);
    if (filesResult) {
      const verb = dryRun ? 'would be' : 'were';
      for (const item of filesResult.items) w(`  ${item.action.padEnd(15)} ${item.path}${item.reason ? `  (${item.reason})` : ''}`);
      const changed = filesResult.items.filter((i) => i.action === 'restored' || i.action === 'removed' || i.action === 'recreated').length;
      const kept = filesResult.items.filter((i) => i.action === 'kept' || i.action === 'not-restorable').length;
      w(`${changed} path${changed === 1 ? '' : 's'} ${verb} put back${kept ? `; ${kept} left as they are (named above)` : ''}.`);
      if (!dryRun && filesResult.setId) w(`Undo this rewind with: deskhand rewind ${conv.id} --redo`);
    }
    if (conversation && target) w(dryRun ? `The conversation would go back to before message ${target.messageId} (later messages kept as a branch).` : `The conversation is back to before message ${target.messageId}; later messages are kept as branch ${branch}.`);
    return 0;
  });
}
