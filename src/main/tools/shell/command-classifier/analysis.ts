/**
 * The analysis of one whole command: the segments found so far, what makes it compound, the paths checked with the
 * path guard, the reasons to ask under every policy, and the checks the program rules call (where a write lands,
 * which repository git would use). It parses each source string and walks it (walker.ts).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, sep } from 'node:path';
import { PathGuard, SENSITIVE_LABEL, type PathCheck } from '../../../runtime/decision/path-guard';
import type { ClassifyContext } from '../../../runtime/tool';
import { parseSource } from './cache';
import type { AnalysisSurface } from './context';
import { credentialContent } from './credentials';
import { DANGEROUS_GIT_KEY, findGitDir, gitConfigKeys } from './git';
import { TooComplex } from './limits';
import { asArray, nodeType } from './sh';
import type { CommandSegment } from './types';
import { highRisk, lowRisk, type Parsed, type Verdict } from './verdict';
import { Walker } from './walker';
import { guessPath, type WordInfo } from './words';

export class Analysis implements AnalysisSurface {
  readonly segments: CommandSegment[] = [];
  /** Commands seen so far, nested `sh -c` strings included. */
  count = 0;
  /** Anything beyond one plain command: operators, substitutions, output redirections, control flow. */
  compound = false;
  /** The command changes directory somewhere, so relative write targets cannot be placed. */
  cwdChanges = false;
  touchesOwnData = false;
  /** Reasons to ask under every policy, in the order found. */
  readonly alwaysAsk: string[] = [];
  readonly paths: PathCheck[] = [];
  private readonly guard: PathGuard;

  constructor(
    ctx: ClassifyContext,
    /** Set when the analysis consulted the file system (then its result is not cached). */
    private readonly probe: { touchedDisk: boolean } = { touchedDisk: false },
  ) {
    this.guard = new PathGuard(ctx);
  }

  ask(reason: string): void {
    if (!this.alwaysAsk.includes(reason)) this.alwaysAsk.push(reason);
  }

  /** Parses and walks one source string (the command, or the string of a nested `sh -c`). */
  analyse(src: string, depth: number): Parsed {
    const parsed = parseSource(src);
    if ('error' in parsed) return { ok: false, reason: `could not parse the command (${String(parsed.error)}); treated as high-risk` };
    const file = parsed.node;
    const walker = new Walker(this, Buffer.from(src, 'utf8'), depth);
    try {
      walker.visit(file);
    } catch (err) {
      if (err instanceof TooComplex) return { ok: false, reason: err.message };
      return { ok: false, reason: `could not analyse the command (${String(err instanceof Error ? err.message : err).slice(0, 200)})` };
    }
    const stmts = asArray(file.Stmts);
    const only = stmts.length === 1 ? stmts[0] : undefined;
    const simple = only !== undefined && nodeType(only.Cmd) === 'CallExpr' && !walker.sawNonSimple;
    return { ok: true, simple, normalized: simple && only ? walker.normalizedStmt(only) : '' };
  }

  addSegment(s: CommandSegment): void {
    this.segments.push(s);
  }

  /** Records a sensitive path: the command asks under every policy. */
  private noteSensitive(check: PathCheck, access: 'reads' | 'writes'): void {
    if (check.holdsSensitive && !check.sensitive) {
      this.ask(`the command ${access === 'reads' ? 'reaches' : 'changes'} ${check.resolved}, which holds sensitive locations (${check.holdsSensitive})`);
      return;
    }
    if (!check.sensitive) return;
    // Code-running files (Makefile, CI configs…) are ordinary to read; creating or changing one asks.
    if (check.sensitive.kind === 'code-runner' && access === 'reads') return;
    if (check.sensitive.kind === 'deskhand-data') {
      if (access === 'writes') this.touchesOwnData = true;
      this.ask("the command touches Deskhand's own data folder");
    } else {
      this.ask(`the command ${access} ${check.resolved}, ${check.sensitive.what} (${SENSITIVE_LABEL[check.sensitive.kind]})`);
    }
  }

  /**
   * Checks the path arguments of a command with the path guard (best effort: a word that is not a plain literal is
   * judged from its text with ~ and $HOME expanded). Sensitive paths make the command ask under every policy;
   * Deskhand's own data counts as touched when the command is not read-only.
   */
  noteArgs(args: readonly WordInfo[], readOnly: boolean): void {
    for (const w of args) this.noteSensitivePath(guessPath(w), readOnly ? 'read' : 'write');
  }

  /** Records `p` when the path guard calls it sensitive. */
  noteSensitivePath(p: string | null, access: 'read' | 'write'): void {
    if (p === null || p === '' || p.startsWith('-') || p.length > 4096 || p.includes('\n') || /^\/dev\//.test(p)) return;
    this.probe.touchedDisk = true;
    const check = this.guard.check(p, access, { raw: true });
    if (!check.error && !check.sensitive && !check.holdsSensitive) {
      // Credentials are judged by content too: a config file of any name whose text assigns a credential-named
      // setting is read like a `.env` (a field extractor such as `jq .token` prints the bare value, which output
      // redaction cannot tell from any other word).
      const names = credentialContent(check.resolved);
      if (names) {
        this.ask(`the command ${access === 'read' ? 'reads' : 'reaches'} ${check.resolved}, whose content holds credentials (${names})`);
        // Kept with the call: once it runs, the redactor learns the file's values (call-pipeline.ts).
        this.paths.push(check);
      }
    }
    if (check.error || (!check.sensitive && !check.holdsSensitive)) return;
    if (check.sensitive?.kind === 'code-runner' && access === 'read') return;
    this.paths.push(check);
    this.noteSensitive(check, access === 'read' ? 'reads' : 'writes');
  }

  /**
   * The repository a git command would use (as git discovers it: --git-dir, else upwards from -C or the cwd, a `.git`
   * folder, a `.git` file pointing elsewhere, or a folder that is itself a git dir) and the settings in its config
   * files that make git run programs.
   */
  gitRepository(dir: string | null, gitDir: string | null): { configs: string[]; dangerous: string[] } {
    this.probe.touchedDisk = true;
    const cwd = this.guard.cwd;
    const abs = (p: string) => {
      const e = p === '~' ? homedir() : p.startsWith('~/') ? `${homedir()}/${p.slice(2)}` : p;
      return isAbsolute(e) ? e : `${cwd}${sep}${e}`;
    };
    const found = gitDir ? abs(gitDir) : findGitDir(dir ? abs(dir) : cwd);
    if (!found) return { configs: [], dangerous: [] };
    const files = [`${found}${sep}config`, `${found}${sep}config.worktree`];
    try {
      const common = readFileSync(`${found}${sep}commondir`, 'utf8').trim();
      if (common) files.push(`${isAbsolute(common) ? common : `${found}${sep}${common}`}${sep}config`);
    } catch {
      // not a linked worktree
    }
    const configs: string[] = [];
    const dangerous: string[] = [];
    for (const f of files) {
      let text: string;
      try {
        text = readFileSync(f, 'utf8');
      } catch {
        continue;
      }
      configs.push(f);
      for (const key of gitConfigKeys(text)) if (DANGEROUS_GIT_KEY.test(key) && !dangerous.includes(key)) dangerous.push(key);
    }
    return { configs, dangerous };
  }

  /** Where a write to `target` lands, judged by the path guard the file tools use: inside the workspace (low-risk) or not. */
  writeTarget(program: string, target: string | null, what = 'writes', opts: { changesExisting?: boolean } = {}): Verdict {
    if (target === null) return highRisk(program, `${what} to a path that is not a plain literal (expansions, globs or ~ cannot be checked)`);
    if (/^\/dev\/(tcp|udp)\//.test(target)) return highRisk(program, `opens a network connection (${target})`, true);
    if (target === '') return highRisk(program, `${what} to an empty path`);
    if (!isAbsolute(target) && this.cwdChanges) {
      return highRisk(program, `${what} to relative path ${target} after changing directory; the target cannot be checked`);
    }
    this.probe.touchedDisk = true;
    const check = this.guard.check(target, 'write', { raw: true });
    this.paths.push(check);
    if (check.error) return highRisk(program, `${what} to ${target}, which cannot be checked (${check.error})`);
    const resolved = check.resolved;
    this.noteSensitive(check, 'writes');
    if (check.sensitive?.kind === 'deskhand-data') return highRisk(program, `${what} inside Deskhand's data folder (${resolved})`);
    if (check.sensitive) return highRisk(program, `${what} to ${resolved}: ${check.sensitive.what}`);
    if (check.throughLink) {
      const dangling = !check.exists;
      this.ask(`the command writes through the symbolic link ${check.throughLink.link} (to ${resolved})`);
      return highRisk(program, `${what} through a ${dangling ? 'dangling ' : ''}symlink (${target} → ${resolved})${check.root ? '' : ', outside the workspace'}`);
    }
    if (resolved.split(sep).includes('.git')) {
      return highRisk(program, `${what} inside git metadata (${resolved}); hooks and config there can run programs`);
    }
    if (check.hardLinks > 1) {
      this.ask(`the command writes to ${resolved}, which has ${check.hardLinks} hard links`);
      return highRisk(program, `${what} to a hard-linked file (${resolved}), which may also live outside the workspace`);
    }
    // No looser than the file tools: truncating or appending to an existing file is what write_file overwriting is.
    if (opts.changesExisting && check.exists && check.hardLinks > 0) {
      return highRisk(program, `${what} to ${resolved}, an existing file it truncates or changes (as risky as write_file overwriting it)`);
    }
    if (check.root) return lowRisk(program, `${what} inside the workspace (${resolved})`);
    return highRisk(program, `${what} outside the workspace (${resolved}${check.links.length ? `, through a symlink` : ''})`);
  }
}
