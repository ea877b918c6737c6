/** sed and awk: read-only only when their program writes no file and runs no command. */
import { findLong, findShort, scanOptions } from './options';
import { highRisk, notLiteral, readOnly, type Verdict } from './verdict';

export function sedVerdict(literal: readonly string[] | null): Verdict {
  const name = 'sed';
  if (!literal) return notLiteral(name, 'checks sed scripts');
  const scan = scanOptions(literal, { short: 'efl', optionalShort: 'i', long: ['expression', 'file', 'line-length'] });
  const inPlace = findShort(scan, 'i') ?? findLong(scan, ['in-place']);
  if (inPlace) return highRisk('sed', `${inPlace} edits files in place`);
  if (scan.options.some((o) => o.name === 'f' || (o.long && o.name !== '' && 'file'.startsWith(o.name)))) {
    return highRisk('sed', 'runs a script from a file, which cannot be checked');
  }
  const scripts = scan.options.filter((o) => o.name === 'e' || (o.long && o.name !== '' && 'expression'.startsWith(o.name))).map((o) => o.value ?? '');
  if (scripts.length === 0 && scan.operands[0] !== undefined) scripts.push(scan.operands[0]);
  if (scripts.some((s) => !sedScriptIsSafe(s))) return highRisk('sed', 'the script writes files (w, W, s///w) or runs commands (e, s///e), or could not be checked');
  return readOnly('sed');
}

export function awkVerdict(name: string, literal: readonly string[] | null): Verdict {
  const why = literal ? awkUnsafe(literal) : 'has arguments that are not plain literals, so the awk program cannot be checked';
  return why ? highRisk(name, why) : readOnly(name, 'the awk program has no system(), pipes or output redirections');
}

// sed scripts: read-only only when no command or flag writes files (w, W, s///w) or runs commands (e, s///e).
function sedScriptIsSafe(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipSpace = (): void => {
    while (i < n && (script[i] === ' ' || script[i] === '\t')) i++;
  };
  const readDelimited = (delim: string): boolean => {
    // Up to the next unescaped delimiter (GNU sed does not treat brackets specially here).
    while (i < n) {
      const c = script[i]!;
      if (c === '\\') {
        i += 2;
        continue;
      }
      if (c === '\n' && delim !== '\n') return false;
      i++;
      if (c === delim) return true;
    }
    return false;
  };
  const readAddress = (): boolean => {
    const c = script[i];
    if (c === undefined) return true;
    if (/[0-9]/.test(c)) {
      while (i < n && /[0-9~]/.test(script[i]!)) i++;
    } else if (c === '$') {
      i++;
    } else if (c === '/' || c === '\\') {
      let delim = '/';
      if (c === '\\') {
        i++;
        delim = script[i] ?? '';
        if (delim === '' || delim === '\n' || delim === '\\') return false;
      }
      i++;
      if (!readDelimited(delim)) return false;
      while (i < n && (script[i] === 'I' || script[i] === 'M')) i++;
    } else if (c === '+' || c === '~') {
      i++;
      while (i < n && /[0-9]/.test(script[i]!)) i++;
    }
    return true;
  };
  const toEndOfCommand = (): void => {
    // Labels and b/t/T targets end at `;` or newline in GNU sed.
    while (i < n && script[i] !== ';' && script[i] !== '\n') i++;
  };
  const toEndOfLine = (): void => {
    while (i < n && script[i] !== '\n') {
      if (script[i] === '\\') i++;
      i++;
    }
  };

  while (i < n) {
    const c = script[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === ';') {
      i++;
      continue;
    }
    if (c === '#') {
      toEndOfLine();
      continue;
    }
    const before = i;
    if (!readAddress()) return false;
    if (i > before) {
      skipSpace();
      if (script[i] === ',') {
        i++;
        skipSpace();
        if (!readAddress()) return false;
      }
    }
    skipSpace();
    while (script[i] === '!') {
      i++;
      skipSpace();
    }
    const cmd = script[i];
    if (cmd === undefined) return before === i; // an address with no command is an error; nothing runs
    i++;
    switch (cmd) {
      case '{':
        continue; // a block opens; the next command follows directly
      case '}':
      case '=':
      case 'd':
      case 'D':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
      case 'F':
        break;
      case 'l':
      case 'q':
      case 'Q':
      case 'L':
        skipSpace();
        while (i < n && /[0-9]/.test(script[i]!)) i++;
        break;
      case 'a':
      case 'i':
      case 'c':
        toEndOfLine();
        break;
      case ':':
      case 'b':
      case 't':
      case 'T':
      case 'v':
        toEndOfCommand();
        break;
      case 'r':
      case 'R':
        // Reads a file into the output: still read-only.
        toEndOfLine();
        break;
      case 's': {
        const delim = script[i];
        if (delim === undefined || delim === '\n' || delim === '\\') return false;
        i++;
        if (!readDelimited(delim)) return false;
        // The replacement may span escaped newlines.
        while (i < n) {
          const r = script[i]!;
          if (r === '\\') {
            i += 2;
            continue;
          }
          i++;
          if (r === delim) break;
          if (i >= n) return false;
        }
        while (i < n && /[gpiImM0-9]/.test(script[i]!)) i++;
        const flag = script[i];
        if (flag === 'e' || flag === 'w' || flag === 'W') return false;
        break;
      }
      case 'y': {
        const delim = script[i];
        if (delim === undefined || delim === '\n' || delim === '\\') return false;
        i++;
        if (!readDelimited(delim) || !readDelimited(delim)) return false;
        break;
      }
      default:
        // e, w, W and anything unknown.
        return false;
    }
    skipSpace();
    const end = script[i];
    if (end !== undefined && end !== ';' && end !== '\n' && end !== '}' && end !== '#') return false;
  }
  return true;
}

/**
 * Why an awk invocation is not read-only, or null: its program (given inline) must have no system(), no pipes to or
 * from commands, no output redirection in print/printf, no extension loading; options that run files or write
 * (-f, -i, -l, -o, -p, -d, -E, -D) are refused.
 */
export function awkUnsafe(args: readonly string[]): string | null {
  const programs: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    if (a === '-F' || a === '-v') {
      i++;
      continue;
    }
    if (/^-[Fv]./.test(a) || /^--(field-separator|assign)=/.test(a)) continue;
    if (a === '-e' || a === '--source') {
      programs.push(args[++i] ?? '');
      continue;
    }
    if (/^--source=/.test(a)) {
      programs.push(a.slice(9));
      continue;
    }
    if (/^-(b|c|P|M|S|s|n|r|t|N|g|h|V|U)$|^--(characters-as-bytes|traditional|posix|bignum|sandbox|no-optimize|re-interval|lint|version|help|copyright|use-lc-numeric|non-decimal-data)$/.test(a)) continue;
    return `option ${a} can run a program file, load an extension or write a file`;
  }
  if (programs.length === 0) {
    const program = args[i];
    if (program === undefined) return 'no program given';
    programs.push(program);
  }
  for (const program of programs) {
    const why = awkProgramUnsafe(program);
    if (why) return why;
  }
  return null;
}

function awkProgramUnsafe(program: string): string | null {
  // Strings and regular expression literals cannot run anything: blank them before looking.
  const code = program
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/(^|[~(,{;!&|\n]|\bin\b)(\s*)\/(?:[^/\\\n[]|\\.|\[(?:[^\]\\]|\\.)*\])*\//g, '$1$2//');
  if (/\bsystem\s*\(/.test(code)) return 'the awk program calls system(), which runs commands';
  if (/@\s*(load|include|namespace)/.test(code)) return 'the awk program loads other code (@load, @include)';
  if (/\|&|(^|[^|])\|(?!\|)/.test(code.replace(/\|\|/g, ''))) return 'the awk program pipes to or from a command';
  for (const m of code.matchAll(/\bprintf?\b([^;{}\n]*)/g)) {
    if (/>/.test(m[1]!)) return 'the awk program redirects print output to a file';
  }
  if (/\b(PROCINFO|ENVIRON)\s*\[[^\]]*\]\s*=(?!=)/.test(code)) return 'the awk program changes its environment or interpreter settings';
  return null;
}
