/** Entry of the `deskhand` binary (built to out/main/cli.js). */
import { main } from './cli';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`deskhand: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
