/** Readers that are read-only only with the right arguments: less, man, rg, sort, uniq, date, hostname, file, tree, xxd. */
import { findLong, findShort, scanOptions } from './options';
import { highRisk, notLiteral, readOnly, type Verdict } from './verdict';

export function readerVerdict(name: string, literal: readonly string[] | null): Verdict | null {
  switch (name) {
    case 'rg': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'efgmACBMjrETtg', long: ['regexp', 'file', 'glob', 'type', 'max-count', 'replace'] });
      const bad = findLong(scan, ['pre', 'pre-glob', 'hostname-bin']);
      return bad ? highRisk('rg', `${bad} runs other programs`) : readOnly('rg');
    }
    case 'sort': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'kStTo', long: ['key', 'buffer-size', 'field-separator', 'temporary-directory', 'output', 'compress-program', 'files0-from', 'random-source', 'parallel', 'batch-size'] });
      const bad = findShort(scan, 'o') ?? findLong(scan, ['output', 'compress-program']);
      return bad ? highRisk('sort', `${bad} writes a file or runs a program`) : readOnly('sort');
    }
    case 'uniq': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'fsw', long: ['skip-fields', 'skip-chars', 'check-chars', 'group', 'all-repeated'] });
      return scan.operands.length > 1 ? highRisk('uniq', `writes its output to ${scan.operands[1]}`) : readOnly('uniq');
    }
    case 'date': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'dfr', optionalShort: 'I', long: ['date', 'file', 'reference', 'iso-8601', 'rfc-3339'] });
      const bad = findShort(scan, 's') ?? findLong(scan, ['set']);
      if (bad || scan.operands.some((o) => !o.startsWith('+'))) return highRisk('date', 'sets the system clock');
      return readOnly('date');
    }
    case 'hostname':
      if (!literal) return notLiteral(name);
      return literal.every((a) => /^-[fsidAI]+$|^--(fqdn|short|ip-address|domain|all-fqdns|all-ip-addresses|long)$/.test(a))
        ? readOnly('hostname')
        : highRisk('hostname', 'can change the host name');
    case 'file': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'mfFeP', long: ['magic-file', 'files-from', 'separator', 'exclude', 'parameter'] });
      const bad = findShort(scan, 'C') ?? findLong(scan, ['compile']);
      return bad ? highRisk('file', `${bad} writes a compiled magic file`) : readOnly('file');
    }
    case 'tree': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'LPIoHT', long: ['filelimit', 'timefmt', 'charset', 'fromfile', 'sort', 'hintro', 'houtro'] });
      const bad = findShort(scan, 'oR') ?? findLong(scan, ['output']);
      return bad ? highRisk('tree', `${bad} writes files`) : readOnly('tree');
    }
    case 'xxd': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'cglnosC', long: ['cols', 'groupsize', 'len', 'name', 'seek', 'offset'] });
      if (scan.options.some((o) => o.name === 'r' || o.name === 'revert')) return highRisk('xxd', '-r writes binary data (and can patch files)');
      return scan.operands.length > 1 ? highRisk('xxd', `writes its output to ${scan.operands[1]}`) : readOnly('xxd');
    }
    default:
      return null;
  }
}

/** `less` with display options only (no log file, no tags, no initial commands) and files: prints them. */
export function lessIsReadOnly(args: readonly string[]): boolean {
  return args.every((a) => (!a.startsWith('-') && !a.startsWith('+')) || /^-[FRrSXNniIMmsq~eEQKLfWwaBcCdgGJuUV]+$/.test(a) || /^--(quit-if-one-screen|RAW-CONTROL-CHARS|raw-control-chars|chop-long-lines|no-init|LINE-NUMBERS|line-numbers|ignore-case|IGNORE-CASE|LONG-PROMPT|squeeze-blank-lines|quit-at-eof|QUIT-AT-EOF|quiet|silent|no-lessopen|force|no-keypad|tilde)$/.test(a));
}

/** `man` showing pages (by name and section, or apropos/whatis): no pager option, no local files, no config. */
export function manIsReadOnly(args: readonly string[]): boolean {
  return args.length > 0 && args.every((a) => /^-[kfawW]+$/.test(a) || /^--(apropos|whatis|all|where|where-cat|path)$/.test(a) || /^[A-Za-z0-9_.:+@-]+$/.test(a) && !a.startsWith('-') && !a.includes('..'));
}

/** `tsc --noEmit`: type-checks; refused with options that build, watch, trace or write build info. */
export function tscIsReadOnly(args: readonly string[]): boolean {
  return !args.some((a) => /^--?(b|build|w|watch|generateTrace|generateCpuProfile|init|tsBuildInfoFile|incremental|composite|plugins?|locale)(=.*)?$/i.test(a));
}
