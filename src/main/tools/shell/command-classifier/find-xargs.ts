/** find and fd (their actions run commands or delete), and xargs (its command gets arguments read from input). */
import type { ProgramContext } from './context';
import { findLong, findShort, scanOptions } from './options';
import { highRisk, notLiteral, readOnly, type Verdict } from './verdict';
import type { WordInfo } from './words';

export function findXargsVerdict(ctx: ProgramContext, name: string, argv: readonly WordInfo[], literal: readonly string[] | null): Verdict | null {
  switch (name) {
    case 'xargs': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, {
        short: 'EILnPsda',
        optionalShort: 'eil',
        long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var', 'replace', 'eof', 'max-lines'],
        stopAtOperand: true,
      });
      const risky = scan.options.find((o) => ['p', 'o'].includes(o.name) || (o.long && ['interactive', 'open-tty', 'process-slot-var'].some((d) => d.startsWith(o.name))));
      if (risky) return highRisk('xargs', `option ${risky.long ? '--' : '-'}${risky.name} is not known to be safe`);
      if (scan.operands.length === 0) return readOnly('xargs', 'runs echo on its input');
      const inner = ctx.classifyArgv(argv.slice(argv.length - scan.operands.length), true);
      return { ...inner, reasons: inner.reasons.map((r) => `xargs → ${r}`) };
    }
    case 'find': {
      if (!literal) return notLiteral(name, 'checks find actions (-exec, -delete…)');
      const bad = literal.find((a) => /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(a));
      if (bad) return highRisk('find', `${bad} runs commands or changes files`);
      return readOnly('find');
    }
    case 'fd':
    case 'fdfind': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'edtEScop', long: ['exec', 'exec-batch'] });
      const bad = findShort(scan, 'xX') ?? findLong(scan, ['exec', 'exec-batch']);
      return bad ? highRisk(name, `${bad} runs commands`) : readOnly(name);
    }
    default:
      return null;
  }
}
