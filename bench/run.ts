/**
 * Runs every bench/*.bench.ts (or those named on the command line) and prints `name: value` lines.
 * Each benchmark measures its ratios side by side in one run, since these machines are noisy.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort();

let failed = false;
for (const file of files) {
  try {
    const mod = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<Record<string, number | string>> };
    const figures = await mod.default();
    for (const [name, value] of Object.entries(figures)) {
      process.stdout.write(`${name}: ${typeof value === 'number' ? Number(value.toFixed(3)) : value}\n`);
    }
  } catch (err) {
    failed = true;
    process.stderr.write(`${file} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
}
process.exitCode = failed ? 1 : 0;
