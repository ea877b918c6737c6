/**
 * `deskhand peers add|list|show|rm|allow|tier|enable|disable|budget|token|serve`: other people's agents over
 * Agent2Agent (services/peers). A peer's inbound token (what it presents to us) is made by `add` and `token --rotate`
 * and printed once; it lives only in the OS keyring. The token we present to them is read from stdin
 * (`--token-stdin`), never from an argument (arguments show in the process table).
 */
import type { PeerView } from '../../../shared/peers';
import { DeskhandError } from '../../../shared/errors';
import { PeerBook, checkTier, type PeerRecord } from '../../services/peers/index';
import { KeytarSecretStore } from '../../services/vault/secret-store';
import { parseSubcommand, usage, withStore } from './common';

export const PEERS_USAGE = `Usage:
  deskhand peers add NAME [--endpoint URL] [--tier public|internal|private] [--allow TOOL,TOOL] [--turns N] [--tokens N] [--cost USD] [--token-stdin]
  deskhand peers list | show NAME                      [--json]
  deskhand peers rm NAME
  deskhand peers allow NAME TOOL... [--remove]         (what the tier does not grant: writes, egress, bookkeeping)
  deskhand peers tier NAME public|internal|private
  deskhand peers enable|disable NAME
  deskhand peers budget NAME [--turns N] [--tokens N] [--cost USD|none]  (per UTC day; cost by the price table)
  deskhand peers token NAME --rotate | --outbound-stdin | --clear-outbound
  deskhand peers serve [--port N] [--host ADDR] [--tls-cert FILE --tls-key FILE | --tls-in-front] [provider flags as in run]
                                                       (the A2A endpoint; off unless started)`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').trim();
}

function count(raw: string | undefined, what: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw usage(`--${what} is a whole number of at least 0 (got "${raw.slice(0, 40)}").`);
  return n;
}

/** `--cost USD`: dollars per day (0 or more), or `none` for no cost limit. */
function dollars(raw: string | undefined): number | null | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim().toLowerCase() === 'none') return null;
  const n = Number(raw.replace(/^\$/, ''));
  if (!Number.isFinite(n) || n < 0 || n > 100_000 || raw.trim() === '') throw usage(`--cost is dollars per day, 0 or more (e.g. 2.50), or none (got "${raw.slice(0, 40)}").`);
  return n;
}

const list = (raw: string | undefined) => (raw ?? '').split(/[\s,]+/).filter(Boolean);

function describe(p: PeerView): string {
  const allow = p.allow.length ? p.allow.join(', ') : 'nothing beyond the tier';
  return [
    `${p.name}  ${p.enabled ? 'enabled' : 'disabled'}  tier ${p.tier}`,
    `  endpoint: ${p.endpoint ?? '(none: they only call us)'}${p.endpoint ? (p.hasOutboundToken ? ', token saved' : ', no token saved') : ''}`,
    `  allow: ${allow}`,
    `  budget per day: ${p.budget.turnsPerDay} turns, ${p.budget.tokensPerDay} tokens, ${p.budget.costPerDay === null ? 'no cost limit' : `$${p.budget.costPerDay}`}; used today ${p.usedToday.turns} turns, ${p.usedToday.tokens} tokens, $${p.usedToday.costUsd.toFixed(4)}`,
    `  ceiling: read-only tools that reveal ${p.tier === 'public' ? 'only public material' : p.tier === 'internal' ? 'public or internal material' : 'any material'}; never egress, bookkeeping, secrets, memory or writes unless allowed`,
  ].join('\n');
}

export async function peersCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'serve') return (await import('../peers/peers-serve')).peersServeCommand(rest);
  if (!sub || sub === 'help' || sub === '--help' || sub === '-h' || rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${PEERS_USAGE}\n`);
    return sub ? 0 : 2;
  }
  const { values, positionals } = parseSubcommand(rest, {
    endpoint: { type: 'string' },
    tier: { type: 'string' },
    allow: { type: 'string' },
    turns: { type: 'string' },
    tokens: { type: 'string' },
    cost: { type: 'string' },
    'token-stdin': { type: 'boolean' },
    remove: { type: 'boolean' },
    rotate: { type: 'boolean' },
    'outbound-stdin': { type: 'boolean' },
    'clear-outbound': { type: 'boolean' },
  });
  const json = values.json === true;
  return withStore(values['data-dir'], async (store) => {
    const book = new PeerBook(store, new KeytarSecretStore());
    const name = positionals[0];
    const need = (what: string) => {
      if (!name) throw usage(`peers ${sub} needs a peer NAME${what}.`);
      return name;
    };
    const print = async (peer: PeerRecord, extra: Record<string, unknown> = {}) => {
      const view = await book.view(peer);
      process.stdout.write(json ? `${JSON.stringify({ ...view, ...extra })}\n` : `${describe(view)}\n`);
    };
    switch (sub) {
      case 'add': {
        const outbound = values['token-stdin'] ? await readStdin() : null;
        if (values['token-stdin'] && !outbound) throw usage('--token-stdin read nothing: pipe the token the peer gave you.');
        const turns = count(values.turns, 'turns');
        const tokens = count(values.tokens, 'tokens');
        const cost = dollars(values.cost);
        const { peer, inboundToken } = await book.add({
          name: need(''),
          endpoint: values.endpoint ?? null,
          tier: checkTier(values.tier ?? 'public'),
          allow: list(values.allow),
          budget: { ...(turns !== undefined ? { turnsPerDay: turns } : {}), ...(tokens !== undefined ? { tokensPerDay: tokens } : {}), ...(cost !== undefined ? { costPerDay: cost } : {}) },
          outboundToken: outbound,
        });
        if (json) await print(peer, { inboundToken });
        else {
          await print(peer);
          process.stdout.write(`\nThe token ${peer.name} presents to this Deskhand (shown once; give it to them, it is kept only in the keyring):\n${inboundToken}\n`);
        }
        return 0;
      }
      case 'list': {
        const peers = await Promise.all(book.list().map((p) => book.view(p)));
        if (json) process.stdout.write(`${JSON.stringify(peers)}\n`);
        else if (!peers.length) process.stdout.write('No peers. Add one with deskhand peers add NAME --tier public.\n');
        else process.stdout.write(`${peers.map(describe).join('\n')}\n`);
        return 0;
      }
      case 'show':
        await print(book.require(need('')));
        return 0;
      case 'rm':
      case 'remove': {
        const had = await book.remove(need(''));
        process.stderr.write(had ? `Removed peer ${name} and its tokens.\n` : `No peer ${name} (see deskhand peers list).\n`);
        return had ? 0 : 1;
      }
      case 'allow': {
        const tools = positionals.slice(1).flatMap((t) => list(t));
        if (!tools.length) throw usage(`peers allow ${name ?? 'NAME'} needs at least one TOOL name (e.g. write_file).`);
        const peer = values.remove ? book.changeAllow(need(''), [], tools) : book.changeAllow(need(''), tools);
        await print(peer);
        return 0;
      }
      case 'tier': {
        const tier = positionals[1];
        if (!tier) throw usage(`peers tier ${name ?? 'NAME'} needs a TIER: public, internal or private.`);
        await print(book.setTier(need(''), tier));
        return 0;
      }
      case 'enable':
      case 'disable':
        await print(book.setEnabled(need(''), sub === 'enable'));
        return 0;
      case 'budget': {
        const turns = count(values.turns, 'turns');
        const tokens = count(values.tokens, 'tokens');
        const cost = dollars(values.cost);
        await print(book.setBudget(need(''), { ...(turns !== undefined ? { turnsPerDay: turns } : {}), ...(tokens !== undefined ? { tokensPerDay: tokens } : {}), ...(cost !== undefined ? { costPerDay: cost } : {}) }));
        return 0;
      }
      case 'token': {
        const peerName = need('');
        if (values.rotate) {
          const token = await book.rotateInbound(peerName);
          process.stdout.write(json ? `${JSON.stringify({ name: peerName, inboundToken: token })}\n` : `New token for ${peerName} (shown once; the old one no longer works):\n${token}\n`);
          return 0;
        }
        if (values['outbound-stdin']) {
          const token = await readStdin();
          if (!token) throw usage('--outbound-stdin read nothing: pipe the token the peer gave you.');
          await book.setOutboundToken(peerName, token);
          process.stderr.write(`Saved the token for calling ${peerName} in the keyring.\n`);
          return 0;
        }
        if (values['clear-outbound']) {
          await book.setOutboundToken(peerName, null);
          process.stderr.write(`Removed the token for calling ${peerName}.\n`);
          return 0;
        }
        throw usage('peers token NAME needs --rotate, --outbound-stdin or --clear-outbound.');
      }
      default:
        throw new DeskhandError('usage', `Unknown peers command "${sub}".\n${PEERS_USAGE}`);
    }
  });
}
