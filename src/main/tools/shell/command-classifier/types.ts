/** What a classification returns: the whole command's verdict and one segment per command, redirection or construct. */
import type { RiskTier } from '../../../../shared/tools';
import type { PathCheck } from '../../../runtime/decision/path-guard';
import type { Classification } from '../../../runtime/tool';

export interface CommandSegment {
  /** The source text of the command, redirection or construct this verdict is about. */
  text: string;
  /** The program it runs once wrappers (env, timeout, xargs…) are looked through; null for non-commands. */
  program: string | null;
  risk: RiskTier;
  reasons: string[];
  /** True when this segment is a known network client (curl, ssh, git push, npm install, /dev/tcp…). */
  network: boolean;
  /** The literal words of a plain command (no assignments, expansions or globs); what an always-allow rule matches. */
  words?: string[] | null;
}

export interface CommandClassification extends Classification {
  rulePattern: string | null;
  /**
   * True when any segment is a known network client. Unknown programs may reach the network too, so a caller that
   * taints egress should treat every command that is not read-only as possibly networked; this flag adds certainty.
   */
  network: boolean;
  /**
   * A write target, or a path argument of a command that is not read-only, lies inside Deskhand's data folder. Such
   * calls should ask under every policy; `Classification` has no field for that yet, so the flag is offered here.
   * Best effort: paths built from variables cannot be seen.
   */
  touchesOwnData: boolean;
  /** Why the command must ask under every policy (sensitive paths, writes through links or hard links). */
  alwaysAskReasons: string[];
  /** Every path the classifier checked with the path guard (redirection targets, path arguments). */
  paths: PathCheck[];
  segments: CommandSegment[];
}
