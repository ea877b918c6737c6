/**
 * Package managers and build tools: high-risk (they run project scripts), networked for the subcommands that
 * download or publish; their own configuration commands ask unless every key is known harmless; `npm ls` and
 * `tsc --noEmit` are read-only.
 */
import type { ProgramContext } from './context';
import { tscIsReadOnly } from './readers';
import { PACKAGE_MANAGERS } from './tables';
import { highRisk, readOnly, type Verdict } from './verdict';

export function packageManagerVerdict(ctx: ProgramContext, name: string, literal: readonly string[] | null): Verdict | null {
  if (name === 'npm' && literal && /^(ls|list|ll|la)$/.test(literal[0] ?? '') && literal.slice(1).every((a) => /^(--?[a-z][a-z-]*(=[\w.-]*)?|[@\w./-]+)$/.test(a) && !/^--?(prefix|userconfig|globalconfig|cache|script-shell|node-options|onload-script)/.test(a))) {
    return readOnly('npm', 'npm ls lists installed packages');
  }
  if (name === 'tsc' && literal && literal.includes('--noEmit') && tscIsReadOnly(literal)) return readOnly('tsc', 'type-checks without writing output');
  if (Object.hasOwn(PACKAGE_MANAGERS, name) || name === 'poetry' || name === 'bundle' || name === 'go') {
    // A package manager's own config command: a key that is not known harmless can make it run a program later.
    const write = packageConfigWrite(name, literal);
    if (write) {
      const risky = write.keys.filter((k) => !HARMLESS_PACKAGE_KEYS.has(k.toLowerCase()));
      if (write.keys.length === 0 || risky.length) ctx.a.ask(`${name} ${write.verb} changes ${name}'s own configuration (${risky.join(', ') || 'keys the classifier cannot read'}); settings like script-shell, ignore-scripts or an index URL decide what it runs later`);
      return highRisk(name, `${name} ${write.verb} changes its configuration`);
    }
  }
  if (Object.hasOwn(PACKAGE_MANAGERS, name)) {
    const sub = literal?.find((a) => !a.startsWith('-')) ?? literal?.[0];
    const networked = literal === null || (sub !== undefined && PACKAGE_MANAGERS[name]!.has(sub));
    return networked
      ? highRisk(name, `network: ${sub ? `${name} ${sub}` : name} can download or upload packages and run their scripts`, true)
      : highRisk(name, 'runs project scripts or changes installed packages');
  }
  return null;
}

/** Keys a package manager's config may set without asking: output and bookkeeping, nothing that runs or fetches. */
export const HARMLESS_PACKAGE_KEYS: ReadonlySet<string> = new Set([
  'loglevel', 'color', 'progress', 'fund', 'audit', 'update-notifier', 'save-exact', 'save-prefix', 'init-author-name',
  'init-author-email', 'init-author-url', 'init-license', 'init-version', 'fetch-retries', 'fetch-timeout', 'unicode',
  'global.timeout', 'global.retries', 'global.no-color', 'global.disable-pip-version-check', 'global.quiet',
  'enabletelemetry', 'enableprogressbars', 'enablecolors', 'enablemessagenames', 'virtualenvs.in-project',
]);

/** Options of package managers' config commands that take a value (the value is not an operand). */
const PACKAGE_VALUE_OPTIONS = /^(--location|-L|--userconfig|--globalconfig|--workspace|-w|--prefix|--editor|--dir|-C|--cwd|--filter|-F)$/;

/**
 * When argv (after the program) writes the package manager's own configuration, the verb and the keys it sets;
 * else null. Options stand anywhere (as npm's, pip's and yarn's parsers take them); `k=v` and `k v` pairs both count.
 * Forms: `npm|pnpm config|c set|delete|rm|edit|fix …`, `npm|pnpm set|delete …`, `yarn config set|unset|delete …`,
 * `pip|pip3 config set|unset|edit …`, `poetry config K V|--unset K`, `bundle config [set] K V`, `go env -w|-u …`.
 */
export function packageConfigWrite(name: string, args: readonly string[] | null): { verb: string; keys: string[] } | null {
  if (!args) return null;
  const ops: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      ops.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('-') && a.length > 1) {
      flags.push(a);
      if (PACKAGE_VALUE_OPTIONS.test(a)) i++;
      continue;
    }
    ops.push(a);
  }
  const pairs = (list: readonly string[]): string[] => {
    const keys: string[] = [];
    for (let i = 0; i < list.length; i++) {
      const a = list[i]!;
      const eq = a.indexOf('=');
      if (eq > 0) keys.push(a.slice(0, eq));
      else {
        keys.push(a);
        i++;
      }
    }
    return keys;
  };
  const one = (list: readonly string[]) => list.map((a) => a.split('=')[0]!);
  const base = name.replace(/3$/, '');
  if (base === 'npm' || base === 'pnpm' || base === 'yarn') {
    const [first, second, ...rest] = ops;
    if ((first === 'config' || first === 'c') && second) {
      if (second === 'set') return { verb: 'config set', keys: pairs(rest) };
      if (['delete', 'rm', 'unset', 'del'].includes(second)) return { verb: `config ${second}`, keys: one(rest) };
      if (second === 'edit' || second === 'fix') return { verb: `config ${second}`, keys: [] };
      return null;
    }
    if (base !== 'yarn' && first === 'set' && second) return { verb: 'set', keys: pairs([second, ...rest]) };
    if (base !== 'yarn' && first === 'delete' && second) return { verb: 'delete', keys: one([second, ...rest]) };
    return null;
  }
  if (base === 'pip') {
    const [first, second, ...rest] = ops;
    if (first !== 'config') return null;
    if (second === 'set') return { verb: 'config set', keys: pairs(rest) };
    if (second === 'unset') return { verb: 'config unset', keys: one(rest) };
    if (second === 'edit') return { verb: 'config edit', keys: [] };
    return null;
  }
  if (base === 'poetry') {
    const [first, ...rest] = ops;
    if (first !== 'config') return null;
    if (flags.includes('--unset')) return { verb: 'config --unset', keys: one(rest) };
    return rest.length >= 2 ? { verb: 'config', keys: [rest[0]!] } : null;
  }
  if (base === 'bundle') {
    const [first, ...rest] = ops;
    if (first !== 'config') return null;
    const list = rest[0] === 'set' ? rest.slice(1) : rest[0] === 'unset' ? null : rest;
    if (list === null) return { verb: 'config unset', keys: one(rest.slice(1)) };
    return list.length >= 2 ? { verb: 'config', keys: [list[0]!] } : null;
  }
  if (base === 'go') {
    if (ops[0] !== 'env') return null;
    const w = args.findIndex((a) => a === '-w' || a === '-u');
    if (w < 0) return null;
    return { verb: `env ${args[w]}`, keys: one(ops.slice(1)) };
  }
  return null;
}
