/**
 * host/peers/ — `deskhand peers serve`: this Deskhand's Agent2Agent endpoint (peer-endpoint.ts) on the runtime and the
 * contract's implementation (host/app/), for the peers in the peer book. Off unless started; bound to 127.0.0.1
 * unless `--host` names another address (then the person puts TLS in front of it: a tunnel or a proxy they run).
 * It imports host/app/ and host/assembly/; never host/web/, host/acp/ or host/cli/ (cli/peers.ts starts it).
 * Lint (HOST_GROUPS in eslint.config.js) and scripts/check-cycles.mjs hold this; docs/peers.md says how to use it.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../../shared/errors';
import { endpointBindingProblem } from '../../../shared/peers';
import { KeytarSecretStore } from '../../services/vault/secret-store';
import { AppService } from '../app/app-service';
import { stderrLogger } from '../assembly/logger';
import { HOST_FLAG_OPTIONS, hostProviderOverride } from '../assembly/provider-choice';
import { openRuntime, resolveDataDir } from '../assembly/open-runtime';
import { deadlineMs, exitDeadline, untilStopSignal } from '../assembly/exit-deadline';
import { packageVersion } from '../assembly/package-version';
import { startPeerEndpoint } from './peer-endpoint';
import { DEFAULT_PEERS_FOLDER, peerEndpointOptions } from './peer-endpoint-host';

export const PEERS_SERVE_USAGE = `Usage: deskhand peers serve [--port N] [--host ADDR] [--tls-cert FILE --tls-key FILE | --tls-in-front] [--folder DIR]
                           [--data-dir DIR] [--json] [--provider P] [--base-url URL] [--model NAME]

Serves this Deskhand's Agent2Agent endpoint for the peers in deskhand peers list: the agent card at
/.well-known/agent-card.json and JSON-RPC at /a2a. Each peer presents the token deskhand peers add showed once.
Each peer's conversations start in DIR/NAME (default ~/Deskhand peers/NAME).
Bound to 127.0.0.1 unless --host names an address. An address that leaves this machine needs TLS: --tls-cert and
--tls-key (PEM files; it then serves HTTPS), or --tls-in-front when a tunnel or TLS proxy you run is in front of it.
Approvals of a peer's conversation wait in the app (or deskhand runs approve ID). Ctrl-C stops it.`;

const EXIT_DEADLINE_MS = 2000;

export async function peersServeCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...HOST_FLAG_OPTIONS, port: { type: 'string' }, host: { type: 'string' }, folder: { type: 'string' }, json: { type: 'boolean' }, 'tls-cert': { type: 'string' }, 'tls-key': { type: 'string' }, 'tls-in-front': { type: 'boolean' } },
  });
  if (values.help) {
    process.stdout.write(`${PEERS_SERVE_USAGE}\n`);
    return 0;
  }
  if (positionals.length) throw new DeskhandError('usage', `peers serve takes no arguments (got "${positionals.join(' ')}").`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new DeskhandError('usage', `--port is a port number 0–65535 (got "${values.port}").`);
  const host = values.host ?? '127.0.0.1';
  const tlsCert = values['tls-cert'] ? resolve(values['tls-cert']) : null;
  const tlsKey = values['tls-key'] ? resolve(values['tls-key']) : null;
  const problem = endpointBindingProblem({ host, tlsCert, tlsKey, tlsInFront: values['tls-in-front'] === true });
  if (problem) throw new DeskhandError('usage', problem);
  const override = hostProviderOverride(values);
  const dataDir = resolveDataDir(values['data-dir']);
  const runtime = openRuntime({ dataDir });
  const secrets = new KeytarSecretStore();
  const book = runtime.peers.book;
  const service = new AppService({
    runtime,
    secrets,
    dataDir,
    kind: 'web',
    answeredBy: () => 'the person at this Deskhand',
    providerOverride: override,
    version: packageVersion(),
  });
  const options = peerEndpointOptions(runtime, service, {
    folder: resolve(values.folder ?? DEFAULT_PEERS_FOLDER),
    host,
    port,
    log: stderrLogger,
    ...(tlsCert && tlsKey ? { tls: { certFile: tlsCert, keyFile: tlsKey } } : {}),
  });
  await options.learnTokens?.();
  let endpoint;
  try {
    endpoint = await startPeerEndpoint(options);
  } catch (err) {
    await runtime.close();
    throw new DeskhandError('usage', `Could not start the endpoint on ${host}:${port}: ${(err as Error).message}`);
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ url: endpoint.url, agentCard: `${endpoint.url}/.well-known/agent-card.json`, peers: book.list().map((p) => p.name) })}\n`);
  else process.stdout.write(`Deskhand's A2A endpoint: ${endpoint.url}/a2a (agent card ${endpoint.url}/.well-known/agent-card.json), ${book.list().filter((p) => p.enabled).length} peer(s) enabled.\n`);

  await untilStopSignal();
  let stage = 'the endpoint';
  exitDeadline({ ms: deadlineMs(EXIT_DEADLINE_MS), what: 'deskhand peers serve was stopped', code: 0, pending: () => [stage, ...runtime.stillClosing()].filter(Boolean) });
  await endpoint.close();
  stage = 'the runs in progress';
  await service.shutdown(EXIT_DEADLINE_MS / 2);
  stage = 'the store';
  await runtime.close();
  stage = '';
  return 0;
}
