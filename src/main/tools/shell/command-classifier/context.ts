/**
 * What a program family's rules get from the walk: the analysis of the whole command (implemented by analysis.ts),
 * the nesting depth of `sh -c`, and the dispatcher for the commands a program runs (walker.ts). Types only, so the
 * walk imports the families and the families import nothing of the walk.
 */
import type { CommandSegment } from './types';
import type { Parsed, Verdict } from './verdict';
import type { WordInfo } from './words';

export interface AnalysisSurface {
  readonly segments: CommandSegment[];
  /** Commands seen so far, nested `sh -c` strings included. */
  count: number;
  /** Anything beyond one plain command: operators, substitutions, output redirections, control flow. */
  compound: boolean;
  /** The command changes directory somewhere, so relative write targets cannot be placed. */
  readonly cwdChanges: boolean;
  ask(reason: string): void;
  analyse(src: string, depth: number): Parsed;
  addSegment(s: CommandSegment): void;
  noteArgs(args: readonly WordInfo[], readOnly: boolean): void;
  noteSensitivePath(p: string | null, access: 'read' | 'write'): void;
  gitRepository(dir: string | null, gitDir: string | null): { configs: string[]; dangerous: string[] };
  writeTarget(program: string, target: string | null, what?: string, opts?: { changesExisting?: boolean }): Verdict;
}

export interface ProgramContext {
  readonly a: AnalysisSurface;
  /** How deep in nested `sh -c` strings this command is. */
  readonly depth: number;
  /** Marks the top-level command as more than one plain command. */
  nonSimple(): void;
  /** Classifies a command a program runs (a wrapper's, xargs's), looking through wrappers again. */
  classifyArgv(argv: readonly WordInfo[], viaXargs?: boolean): Verdict;
}
