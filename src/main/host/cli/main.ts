/**
 * host/cli/ — the `deskhand` binary: this entry, the dispatcher (commands.ts), one module per command group, and the
 * flags, prompts and rendering they share. The top of the host: it may import every other group (it starts
 * `deskhand web` too); nothing in src/ imports it (electron.vite.config.ts builds it as out/main/cli.js).
 * Lint (HOST_GROUPS in eslint.config.js) and scripts/check-cycles.mjs hold this; docs/architecture.md, "The host".
 */
/**
 * Entry of the `deskhand` binary (built to out/main/cli.js). Help is printed from a module that imports nothing; a
 * command loads the CLI (and with it the runtime) on demand, so `deskhand --help` costs little more than node itself
 * (docs/performance.md, "CLI start"; test/cli/cli-import-cost.test.ts).
 */
import { helpAnswer } from './usage';
import { deadlineMs, exitDeadline } from '../assembly/exit-deadline';
import { packageVersion } from '../assembly/package-version';

const argv = process.argv.slice(2);
const [command] = argv;

async function run(): Promise<number> {
  // `--version`, and `--help` of any command or subcommand: answered here, without loading the command.
  const answer = helpAnswer(argv, packageVersion);
  if (answer) {
    process.stdout.write(`${answer.text}\n`);
    return answer.code;
  }
  const { main } = await import('./commands');
  return main(argv);
}

run().then(
  (code) => {
    process.exitCode = code;
    // The command closed everything it opened (AppRuntime.close); the process ends now on its own. Should anything
    // still hold it (a bug), a scheduled fire or a script must not hang: one line names it, then the exit.
    if (command !== 'web') exitDeadline({ ms: deadlineMs(10_000), what: `the command finished (exit ${code}), but the process did not end`, code });
  },
  (err: unknown) => {
    process.stderr.write(`deskhand: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
