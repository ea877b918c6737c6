/**
 * What the store-backed `deskhand` subcommands share: their flags parsed with `--data-dir` and `--json` added, a
 * store opened on the data dir for the call and closed after it, a line printed, a usage error (exit 2 in cli.ts).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DeskhandError } from '../../../shared/errors';
export { withRecords, withStore } from '../assembly/open-store';

export const usage = (message: string) => new DeskhandError('usage', message);

/** Prints one line to stdout. */
export const out = (text: string): void => void process.stdout.write(`${text}\n`);

const COMMON = { 'data-dir': { type: 'string' }, json: { type: 'boolean' } } as const;

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof COMMON & O }>>;

/** A subcommand's arguments (after its verb): positionals allowed, `--data-dir` and `--json` besides its own flags. */
export function parseSubcommand<O extends Options>(args: string[], options: O): Parsed<O> {
  return parseArgs({ args, allowPositionals: true, options: { ...COMMON, ...options } });
}
