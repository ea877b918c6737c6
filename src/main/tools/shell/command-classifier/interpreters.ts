/**
 * Programs that run code: other shells (their expansion rules are not analysed), builtins and tools that run or
 * schedule code (eval, source, trap, watch, at…), interpreters (python, node…), and POSIX shells, whose `-c` string is
 * parsed and walked again.
 */
import type { ProgramContext } from './context';
import { COMMAND_LIMITS } from './limits';
import { CODE_RUNNERS, INTERPRETERS, OTHER_SHELLS, SAFE_SHELL_OPTIONS } from './tables';
import { highRisk, merge, readOnly, type Verdict } from './verdict';
import type { WordInfo } from './words';

export function codeRunnerVerdict(name: string, literal: readonly string[] | null): Verdict | null {
  if (OTHER_SHELLS.has(name)) return highRisk(name, `runs ${name} code, whose expansion rules this classifier does not analyse`);
  const codeRunner = Object.hasOwn(CODE_RUNNERS, name) ? CODE_RUNNERS[name] : undefined;
  if (codeRunner) return highRisk(name, codeRunner.replace(/^\S+ /, ''));
  if (INTERPRETERS.has(name)) {
    const inline = literal?.some((a) => /^-[A-Za-z]*[ceEr]$/.test(a) || a === '--eval' || a === '--print' || a === '-p');
    return highRisk(name, inline ? 'runs inline code' : 'runs code (scripts or modules)');
  }
  return null;
}

export function shellVerdict(ctx: ProgramContext, name: string, argv: readonly WordInfo[]): Verdict {
  const rest = argv.slice(1);
  let script: WordInfo | undefined;
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]!;
    const a = w.value;
    if (a === null) return highRisk(name, 'has arguments that are not plain literals');
    if (a === '-c') {
      script = rest[i + 1];
      break;
    }
    if (/^[-+][euxvfC]*o$/.test(a)) {
      const opt = rest[++i]?.value;
      if (opt === undefined || opt === null || !SAFE_SHELL_OPTIONS.has(opt)) return highRisk(name, `shell option ${opt ?? ''} is not known to be safe`);
      continue;
    }
    if (/^[-+][euxvfC]*c[euxvfC]*$/.test(a)) {
      script = rest[i + 1];
      break;
    }
    if (/^[-+][euxvfC]+$/.test(a) || a === '--norc' || a === '--noprofile' || a === '--posix') continue;
    if (a === '--version' && rest.length === 1) return readOnly(name, 'prints its version');
    return highRisk(name, a.startsWith('-') ? `option ${a} is not known to be safe (login/interactive shells run startup files)` : 'runs a script file');
  }
  if (!script) return highRisk(name, 'reads commands from its input');
  if (script.value === null) return highRisk(name, '-c with a string that is not a plain literal; the commands cannot be checked');
  if (ctx.depth + 1 > COMMAND_LIMITS.maxDepth) return highRisk(name, `nested shells deeper than ${COMMAND_LIMITS.maxDepth} levels`);
  ctx.nonSimple();
  const before = ctx.a.segments.length;
  const parsed = ctx.a.analyse(script.value, ctx.depth + 1);
  if (!parsed.ok) return highRisk(name, `-c string: ${parsed.reason}`);
  const inner = ctx.a.segments.slice(before);
  let v: Verdict = { risk: 'read-only', reasons: [], network: false, program: name };
  for (const s of inner) v = merge(v, { risk: s.risk, reasons: s.reasons.map((r) => `${name} -c → ${r}`), network: s.network, program: null });
  if (inner.length === 0) v.reasons.push(`${name} -c: empty script`);
  return { ...v, program: name };
}
