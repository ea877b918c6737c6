/**
 * CLI start (issue 30), each figure a spawned `deskhand` process from spawn to exit, measured side by side with
 * `node -e 0` in the same rounds (paired, alternating order):
 * - cli_help_ms: `deskhand --help` (target ≤ 250 ms and ≤ 3× node -e 0: cli_help_vs_node_x);
 * - cli_explain_ms: `deskhand policy explain` of a shell command (target ≤ 400 ms): `ls -la`, one plain command, which
 *   the classifier reads without starting the bash parser; cli_explain_compound_ms the same for a pipeline with a
 *   redirection (`git diff | grep x > out.txt`), for which the parser starts (from its code cache in the data folder);
 * - cli_runs_list_ms: `deskhand runs list` on a store with 1,000 runs (target ≤ 400 ms).
 * Needs `npm run build` (out/main/cli.cjs, which bin/deskhand.js runs). fire_to_notification_ms is measured by bench/fire-notification.bench.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Store } from '../src/main/services/store/store';
import { tempDir } from '../test/support/tool-context';
import { figure, paired, ratio, type BenchResult } from './lib';

const ROUNDS = 20;
const WARMUP = 2;
const BIN = resolve(import.meta.dirname, '../bin/deskhand.js');

function exec(args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { stdio: 'ignore', env: { ...process.env, DESKHAND_HOME: '' } });
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

export default async function cliStartBench(): Promise<BenchResult> {
  if (!existsSync(resolve(import.meta.dirname, '../out/main/cli.cjs'))) throw new Error('Run `npm run build` first (out/main/cli.cjs is missing).');
  const dataDir = tempDir('deskhand-bench-cli-');
  const store = new Store(dataDir);
  store.createConversation({ id: 'conv_bench', title: 'bench', folder: dataDir, policy: 'read-only' });
  store.transaction(() => {
    for (let i = 0; i < 1000; i++) store.createRun({ id: `run_${String(i).padStart(4, '0')}`, conversation_id: 'conv_bench', policy: 'read-only', provider: 'openai', model: 'm', base_url: null });
  });
  store.close();
  const node = () => exec(['-e', '0']);
  const help = await paired(ROUNDS, WARMUP, () => exec([BIN, '--help']), node);
  const explain = await paired(ROUNDS, WARMUP, () => exec([BIN, 'policy', 'explain', '--tool', 'execute_command', '--args', '{"command":"ls -la"}', '--data-dir', dataDir]), node);
  const compound = await paired(ROUNDS, WARMUP, () => exec([BIN, 'policy', 'explain', '--tool', 'execute_command', '--args', '{"command":"git diff | grep x > out.txt"}', '--data-dir', dataDir]), node);
  const list = await paired(ROUNDS, WARMUP, () => exec([BIN, 'runs', 'list', '--data-dir', dataDir]), node);
  return {
    cli_help_ms: figure(help.a, { unit: 'ms', baseline: 'node_e0_ms (same rounds)', target: '≤ 250' }),
    cli_help_vs_node_x: ratio(help.a, help.b, { baseline: 'node -e 0, paired per round', target: '≤ 3' }),
    node_e0_ms: figure(help.b, { unit: 'ms' }),
    cli_explain_ms: figure(explain.a, { unit: 'ms', baseline: 'node -e 0 in the same rounds', target: '≤ 400' }),
    cli_explain_vs_node_x: ratio(explain.a, explain.b),
    cli_explain_compound_ms: figure(compound.a, { unit: 'ms', baseline: 'node -e 0 in the same rounds; a pipeline with a redirection', target: '≤ 400' }),
    cli_explain_compound_vs_node_x: ratio(compound.a, compound.b),
    cli_runs_list_ms: figure(list.a, { unit: 'ms', baseline: 'node -e 0 in the same rounds; 1,000 runs', target: '≤ 400' }),
    cli_runs_list_vs_node_x: ratio(list.a, list.b),
  };
}
