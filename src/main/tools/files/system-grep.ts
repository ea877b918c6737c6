/**
 * The system `grep` as grep's fallback when no ripgrep is usable (Spec I: "ripgrep with grep fallback"). It prints
 * what ripgrep prints for grep's three modes (`path\0NN:text` lines with `--null`, paths, `path:count`), so paging
 * and formatting stay in grep.ts. What plain grep cannot do is done here: file types and globs filter paths, secret
 * files are excluded, long lines are cut. Ignore files are not read (the answer says so); multiline needs ripgrep.
 */
import type { Readable, Writable } from 'node:stream';
import { ToolError } from '../../../shared/errors';
import { launchHostProgram } from '../../services/processes';
import { makePathMatcher } from './glob';
import type { RgResult } from './rg';
import { isSensitivePath, SENSITIVE_RG_EXCLUDES } from './sensitive';

/** The few ripgrep types the fallback knows, as name globs. */
const TYPES: Record<string, string[]> = {
  ts: ['*.ts', '*.tsx', '*.mts', '*.cts'],
  js: ['*.js', '*.jsx', '*.mjs', '*.cjs'],
  py: ['*.py', '*.pyi'],
  rust: ['*.rs'],
  go: ['*.go'],
  java: ['*.java'],
  c: ['*.c', '*.h'],
  cpp: ['*.cpp', '*.cc', '*.cxx', '*.hpp', '*.hh', '*.h'],
  sh: ['*.sh', '*.bash', '*.zsh'],
  md: ['*.md', '*.markdown'],
  json: ['*.json'],
  yaml: ['*.yaml', '*.yml'],
  html: ['*.html', '*.htm'],
  css: ['*.css', '*.scss'],
};

/**
 * A memory guard only, far past grep's 500-column cut (like rg's --max-columns in grep.ts): grep redacts each line
 * whole and only then cuts it, so a credential near the cut is never shown in part.
 */
const LINE_CAP = 16 * 500;

export interface SystemGrepArgs {
  pattern: string;
  glob?: string | undefined;
  type?: string | undefined;
  '-A'?: number | undefined;
  '-B'?: number | undefined;
  '-C'?: number | undefined;
  '-i'?: boolean | undefined;
  multiline?: boolean | undefined;
}

let perlRegex: Promise<boolean> | undefined;

/** GNU grep's -P (Perl syntax) is closest to ripgrep's; plain -E where it is missing (BSD grep). */
function hasPerlRegex(): Promise<boolean> {
  perlRegex ??= new Promise((resolve) => {
    const { child } = launchHostProgram({ program: 'grep', args: ['-P', 'x'], stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0 || code === 1));
    (child.stdin as Writable).on('error', () => undefined).end('x\n');
  });
  return perlRegex;
}

/** Which found paths to keep: the glob (a name or a path glob, `!` to exclude) and the type; never secret files. */
function pathFilter(args: SystemGrepArgs): (path: string) => boolean {
  const tests: ((p: string) => boolean)[] = [(p) => !isSensitivePath(p)];
  if (args.type !== undefined) {
    const globs = TYPES[args.type];
    if (!globs) throw new ToolError(`Unknown file type ${JSON.stringify(args.type)} for the system grep fallback (ripgrep is not usable). Use one of ${Object.keys(TYPES).join(', ')}, or filter with glob.`);
    const ms = globs.map((g) => makePathMatcher(g));
    tests.push((p) => ms.some((m) => m(p)));
  }
  if (args.glob) {
    const g = args.glob.trim();
    const m = makePathMatcher(g.startsWith('!') ? g.slice(1) : g);
    tests.push(g.startsWith('!') ? (p) => !m(p) : m);
  }
  return (p) => tests.every((t) => t(p));
}

/** Long lines cut like ripgrep's --max-columns-preview. */
function cutLine(line: string): string {
  return line.length > LINE_CAP ? `${line.slice(0, LINE_CAP)} [... ${line.length - LINE_CAP} more characters omitted]` : line;
}

export async function runSystemGrep(
  args: SystemGrepArgs,
  searchArg: string | null,
  mode: 'files_with_matches' | 'content' | 'count_matches',
  opts: { cwd: string; signal: AbortSignal; onLines: (lines: string[]) => boolean | void },
): Promise<RgResult> {
  if (args.multiline) throw new ToolError('multiline search needs ripgrep, which is not usable on this machine. Search line by line instead.');
  if (opts.signal.aborted) throw new ToolError('Stopped before finishing (the call was cancelled or timed out).', 'aborted');
  const keep = pathFilter(args);
  const argv = ['-r', '-I', '--exclude-dir=.git', await hasPerlRegex() ? '-P' : '-E'];
  for (const ex of SENSITIVE_RG_EXCLUDES) argv.push(`--exclude=${ex.slice(1)}`);
  if (args['-i']) argv.push('-i');
  if (mode === 'files_with_matches') argv.push('-l');
  else if (mode === 'count_matches') argv.push('-H', '--null', '-o');
  else {
    argv.push('-H', '--null', '-n');
    const after = args['-A'] ?? args['-C'];
    const before = args['-B'] ?? args['-C'];
    if (after) argv.push(`-A${after}`);
    if (before) argv.push(`-B${before}`);
  }
  argv.push('-e', args.pattern, '--', searchArg ?? '.');
  const strip = (p: string): string => (searchArg === null && p.startsWith('./') ? p.slice(2) : p);
  const counts = new Map<string, number>();

  return new Promise<RgResult>((resolve, reject) => {
    // The system grep with the flags built here, on the host, through the launcher.
    const launched = launchHostProgram({ program: 'grep', args: argv, cwd: opts.cwd });
    const child = launched.child as typeof launched.child & { stdout: Readable; stderr: Readable };
    let rest = '';
    let stderr = '';
    let stopped = false;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      child.stdout.removeAllListeners('data');
      launched.killNow();
    };
    const onAbort = (): void => stop();
    opts.signal.addEventListener('abort', onAbort, { once: true });
    const deliver = (lines: string[]): void => {
      const out: string[] = [];
      for (const line of lines) {
        if (line === '') continue;
        if (mode === 'files_with_matches') {
          if (keep(line)) out.push(strip(line));
          continue;
        }
        if (line === '--') {
          out.push(line);
          continue;
        }
        const z = line.indexOf('\u0000');
        if (z === -1) continue;
        const path = line.slice(0, z);
        if (!keep(path)) continue;
        if (mode === 'count_matches') counts.set(strip(path), (counts.get(strip(path)) ?? 0) + 1);
        else out.push(cutLine(`${strip(path)}${line.slice(z)}`));
      }
      if (out.length && opts.onLines(out) === false) stop();
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const text = rest + chunk;
      const last = text.lastIndexOf('\n');
      if (last === -1) {
        rest = text;
        return;
      }
      rest = text.slice(last + 1);
      deliver(text.slice(0, last).split('\n'));
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 16_384) stderr += chunk;
    });
    child.on('error', (err) => {
      opts.signal.removeEventListener('abort', onAbort);
      reject(new ToolError(`Neither ripgrep nor the system grep can run here (${err.message}). Use find and read_file instead.`, 'internal'));
    });
    child.on('close', (code) => {
      opts.signal.removeEventListener('abort', onAbort);
      if (!stopped && rest !== '') deliver([rest]);
      if (!stopped && counts.size) opts.onLines([...counts].map(([p, n]) => `${p}:${n}`));
      if (opts.signal.aborted) {
        reject(new ToolError('Stopped before finishing (the call was cancelled or timed out).', 'aborted'));
        return;
      }
      resolve({ code, stderr, stopped });
    });
  });
}
