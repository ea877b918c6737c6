/** Shell builtins that are read-only with checks: cd, set, wait, printf, test and `[`, read. */
import { scanOptions } from './options';
import { SAFE_SHELL_OPTIONS } from './tables';
import { highRisk, notLiteral, readOnly, type Verdict } from './verdict';
import type { WordInfo } from './words';

export function builtinVerdict(name: string, rest: readonly WordInfo[], literal: readonly string[] | null): Verdict | null {
  switch (name) {
    case 'cd':
    case 'pushd':
    case 'popd':
      return readOnly(name, 'changes the working directory of this command only');
    case 'set': {
      if (!literal) return notLiteral(name);
      for (let i = 0; i < literal.length; i++) {
        const a = literal[i]!;
        // Clusters like -eu, +x, and -o NAME / -euo NAME (o last, taking the next word).
        if (!/^[-+][euxvfC]*o?$/.test(a) || a.length < 2) {
          return highRisk('set', `${a} is not a known-safe shell option (set -k, set -a and positional changes can alter later commands)`);
        }
        if (a.endsWith('o')) {
          const opt = literal[++i];
          if (opt !== undefined && !SAFE_SHELL_OPTIONS.has(opt)) return highRisk('set', `shell option ${opt} is not known to be safe`);
        }
      }
      return readOnly('set', 'sets shell error-handling options');
    }
    case 'wait':
      if (!literal) return notLiteral(name);
      return literal.some((a) => a.startsWith('-') && a.includes('p')) ? highRisk('wait', '-p assigns a variable') : readOnly('wait');
    case 'printf': {
      const first = rest[0];
      if (first && (first.value === null || (first.value.startsWith('-v') && first.value !== '--'))) {
        return highRisk('printf', first.value === null ? 'the first argument is not a literal and could be -v (assigns a variable)' : '-v assigns a shell variable');
      }
      return readOnly('printf');
    }
    case 'test':
    case '[':
      return testBuiltin(name, rest);
    default:
      return null;
  }
}

/** `while IFS= read -r line` is common: plain lower-case names (no subscripts, no special variables) are allowed. */
export function readBuiltin(literal: readonly string[]): Verdict | null {
  const scan = scanOptions(literal, { short: 'dnNtpua' });
  const names = [...scan.operands, ...scan.options.filter((o) => o.name === 'a').map((o) => o.value ?? '')];
  if (scan.options.every((o) => 'rsdnNtpua'.includes(o.name) && !o.long) && names.every((n) => /^[a-z_][a-z0-9_]*$/.test(n))) {
    return readOnly('read', 'reads input into shell variables');
  }
  return null;
}

function testBuiltin(name: string, rest: readonly WordInfo[]): Verdict {
  const args = name === '[' && rest.at(-1)?.value === ']' ? rest.slice(0, -1) : rest;
  if (args.some((a) => a.value === '-v' || a.value === '-R')) return highRisk(name, '-v evaluates array subscripts, which can run code');
  if (args.some((a) => !a.single)) return highRisk(name, 'unquoted expansions could split into operators such as -v');
  // Expansions may only sit where an operand is expected, never where test looks for an operator.
  const operatorAt = args.length === 2 ? [0] : args.length === 3 ? [1] : args.length >= 4 ? args.map((_, i) => i) : [];
  if (operatorAt.some((i) => args[i]?.value === null)) return highRisk(name, 'an expansion sits where test expects an operator');
  return readOnly(name);
}
