/**
 * Wrappers, judged by the command they run (env, timeout, nice, nohup, setsid, stdbuf, builtin, command, exec, time),
 * and the environment a command sets (`NAME=value cmd`, `env NAME=value`): only a few harmless names pass.
 */
import type { ProgramContext } from './context';
import { scanOptions } from './options';
import type { ShNode } from './sh';
import { KNOWN_DANGEROUS_ENV, PROXY_ENV, SAFE_ENV } from './tables';
import { highRisk, merge, notLiteral, readOnly, type Verdict } from './verdict';
import type { WordInfo } from './words';

export function wrapperVerdict(ctx: ProgramContext, name: string, argv: readonly WordInfo[], literal: readonly string[] | null): Verdict | null {
  switch (name) {
    case 'env': {
      if (!literal) return notLiteral(name);
      let i = 0;
      let v: Verdict = readOnly('env', 'prints the environment');
      for (; i < literal.length; i++) {
        const a = literal[i]!;
        if (a === '-i' || a === '--ignore-environment' || a === '-0' || a === '--null' || a === '-') continue;
        if (a === '-u' || a === '--unset') {
          i++;
          continue;
        }
        if (a.startsWith('--unset=') || (a.startsWith('-u') && a.length > 2)) continue;
        if (a === '--') {
          i++;
          break;
        }
        if (a.startsWith('-')) return highRisk('env', `option ${a} is not known to be safe (-S splits strings into commands, -C changes directory)`);
        const eq = a.indexOf('=');
        if (eq > 0) {
          v = merge(v, envName(a.slice(0, eq), false));
          continue;
        }
        break;
      }
      if (i >= literal.length) return v;
      return merge({ ...v, reasons: v.risk === 'read-only' ? [] : v.reasons }, ctx.classifyArgv(argv.slice(1 + i)));
    }
    case 'timeout': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'sk', long: ['signal', 'kill-after'], stopAtOperand: true });
      if (scan.operands.length < 2) return highRisk('timeout', 'needs a duration and a command');
      return ctx.classifyArgv(argv.slice(argv.length - scan.operands.length + 1));
    }
    case 'nice': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'n', long: ['adjustment'], stopAtOperand: true });
      if (scan.operands.length === 0) return readOnly('nice', 'prints the niceness');
      return ctx.classifyArgv(argv.slice(argv.length - scan.operands.length));
    }
    case 'nohup':
    case 'setsid':
    case 'stdbuf':
    case 'builtin': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: name === 'stdbuf' ? 'ioe' : '', long: ['input', 'output', 'error'], stopAtOperand: true });
      if (scan.operands.length === 0) return name === 'builtin' ? readOnly(name) : highRisk(name, 'needs a command');
      return ctx.classifyArgv(argv.slice(argv.length - scan.operands.length));
    }
    case 'command': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { stopAtOperand: true });
      if (scan.options.some((o) => o.name === 'v' || o.name === 'V')) return readOnly('command', 'looks up command names');
      if (scan.options.some((o) => o.name !== 'p')) return highRisk('command', 'unknown option');
      if (scan.operands.length === 0) return readOnly('command');
      return ctx.classifyArgv(argv.slice(argv.length - scan.operands.length));
    }
    case 'exec': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'a', stopAtOperand: true });
      if (scan.operands.length === 0) return readOnly('exec', 'applies redirections to the shell');
      return ctx.classifyArgv(argv.slice(argv.length - scan.operands.length));
    }
    case 'time': {
      if (!literal) return notLiteral(name);
      const scan = scanOptions(literal, { short: 'ofa', long: ['output', 'format'], stopAtOperand: true });
      if (scan.options.some((o) => o.name !== 'p' && o.name !== 'v' && o.name !== 'verbose' && o.name !== 'portability')) {
        return highRisk('time', 'option may write a file (-o)');
      }
      if (scan.operands.length === 0) return readOnly('time');
      return ctx.classifyArgv(argv.slice(argv.length - scan.operands.length));
    }
    default:
      return null;
  }
}

export function envName(name: string, bare: boolean): Verdict {
  if (SAFE_ENV.test(name)) return { risk: 'read-only', reasons: [], network: false, program: null };
  if (KNOWN_DANGEROUS_ENV.test(name)) return highRisk(null, `sets ${name}, which can make programs run other code or load other files`);
  if (PROXY_ENV.test(name)) return highRisk(null, `sets ${name}, which redirects network traffic`, true);
  // Lower-case names are shell-local by convention; programs do not read them (the proxy variables aside).
  if (/^[a-z_][a-z0-9_]*$/.test(name)) return { risk: 'read-only', reasons: bare ? [`assigns shell variable ${name}`] : [], network: false, program: null };
  return highRisk(null, `sets environment variable ${name}; only a few well-known harmless variables are allowed`);
}

export function envAssignment(assign: ShNode, bare: boolean): Verdict {
  const name = (assign.Name as ShNode | null)?.Value;
  if (typeof name !== 'string' || name === '') return highRisk(null, 'assignment without a plain name');
  return envName(name, bare);
}
