/**
 * host/acp/ — `deskhand acp`: Deskhand as an Agent Client Protocol agent on stdio, for editors (Zed, JetBrains,
 * Neovim, Emacs clients). The command (this file), the agent (acp-agent.ts) and the mapping between the contract and
 * the protocol (acp-mapping.ts). It imports host/app/, host/background/ and host/assembly/; never host/web/ or
 * host/cli/ (cli/commands.ts starts it). Lint (HOST_GROUPS in eslint.config.js) and scripts/check-cycles.mjs hold this;
 * docs/editor.md says how to use it.
 */
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { DeskhandError } from '../../../shared/errors';
import { KeytarSecretStore } from '../../services/vault/secret-store';
import { AppService } from '../app/app-service';
import { stderrLogger } from '../assembly/logger';
import { HOST_FLAG_OPTIONS, hostProviderOverride } from '../assembly/provider-choice';
import { openRuntime, resolveDataDir } from '../assembly/open-runtime';
import { deadlineMs, exitDeadline, untilStopSignal } from '../assembly/exit-deadline';
import { packageVersion } from '../assembly/package-version';
import { AcpAgent } from './acp-agent';
import { parseServerConfig } from '../../services/mcp/config';

export const ACP_USAGE = `Usage: deskhand acp [--data-dir DIR] [--provider anthropic|openai|openai-compatible] [--base-url URL] [--model NAME]

Runs Deskhand as an Agent Client Protocol agent on stdin/stdout, for an editor to start (Zed: add it to
"agent_servers" in settings.json with "command": "deskhand", "args": ["acp"]). Sessions are Deskhand conversations:
they show in the app and resume from the editor. Approvals appear in the editor; questions, file picks and secrets
wait in the app or the CLI. It ends when the editor closes stdin (or on Ctrl-C).`;

/** How long a closed `deskhand acp` may take to stop its runs and close the store before it exits anyway. */
const ACP_EXIT_DEADLINE_MS = 2000;

export async function acpCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...HOST_FLAG_OPTIONS,
    },
  });
  if (values.help) {
    process.stdout.write(`${ACP_USAGE}\n`);
    return 0;
  }
  if (positionals.length) throw new DeskhandError('usage', `acp takes no arguments (got "${positionals.join(' ')}").`);
  const override = hostProviderOverride(values);

  // stdout is the protocol's channel: whatever else would print there (a library's stray line) goes to stderr.
  const out = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => (process.stderr.write as (...a: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stdout.write;
  const output = new WritableStream<Uint8Array>({
    write: (chunk) => new Promise<void>((resolve, reject) => void out(chunk, (err) => (err ? reject(err) : resolve()))),
  });
  const input = Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>;

  const sdk = await import('@agentclientprotocol/sdk');
  const dataDir = resolveDataDir(values['data-dir']);
  const runtime = openRuntime({ dataDir });
  let answeredBy = 'the editor';
  const service = new AppService({
    runtime,
    secrets: new KeytarSecretStore(),
    dataDir,
    kind: 'acp',
    answeredBy: () => answeredBy,
    providerOverride: override,
    defaultFolder: process.cwd(),
    version: packageVersion(),
  });
  const mcp = {
    names: () => [...runtime.mcp.configured().map((c) => c.name), ...runtime.mcp.servers().map((s) => s.config.name)],
    connect: async (config: Record<string, unknown>) => (await runtime.mcp.connect(parseServerConfig(config))).health,
  };
  const agent = new AcpAgent({ service, mcp, linkEditor: (id, files) => runtime.linkEditor(id, files), version: packageVersion(), log: stderrLogger, setAnsweredBy: (by) => (answeredBy = by), commands: (cwd) => runtime.commands?.list([cwd]) ?? [] });
  const connection = agent.app(sdk).connect(sdk.ndJsonStream(output, input));

  await untilStopSignal(connection.closed);
  let stage = 'the runs in progress';
  exitDeadline({ ms: deadlineMs(ACP_EXIT_DEADLINE_MS), what: 'Deskhand acp was closed', code: 0, pending: () => [stage, ...runtime.stillClosing()].filter(Boolean) });
  agent.close();
  connection.close();
  await service.shutdown(ACP_EXIT_DEADLINE_MS / 2);
  stage = 'the store';
  await runtime.close();
  stage = '';
  process.stdin.destroy();
  return 0;
}
