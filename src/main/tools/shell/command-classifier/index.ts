/**
 * Shell command classification for `execute_command`: parses the command with a real bash parser (mvdan/sh) and
 * classifies every command it would run — list members, pipeline stages, subshells, `$(…)`/backticks, process
 * substitutions, heredoc bodies, redirections, `sh -c` strings — and the riskiest one wins.
 *
 * The rule is "prove it or ask": `read-only` only for allowlisted programs whose arguments were checked, `low-risk`
 * only for mkdir/touch/tee/redirections that provably land inside the workspace, and `high-risk` for everything else,
 * including anything the parser rejects, syntax this file does not know, and commands over the complexity limits.
 *
 * The folder: index.ts (this API), sh.ts (the parser binding), walker.ts (the walk and the dispatch to a program's
 * rules), analysis.ts (one command's findings), tables.ts, words.ts, options.ts, verdict.ts, and one module per
 * program family: git.ts, find-xargs.ts, sed-awk.ts, package-managers.ts, interpreters.ts, wrappers.ts, builtins.ts,
 * readers.ts, writers.ts; credentials.ts judges files by their content; denylist.ts refuses, under every policy, what
 * no policy may run (whole-disk deletions, mkfs, writes to block devices, fork bombs, shutdown, running downloaded
 * code, reading SSH private keys).
 */
import { maxRisk, type RiskTier } from '../../../../shared/tools';
import type { ClassifyContext } from '../../../runtime/tool';
import { Analysis } from './analysis';
import { cacheGet, cachePut, classifications } from './cache';
import { commandDenial } from './denylist';
import { COMMAND_LIMITS } from './limits';
import type { CommandClassification } from './types';
import { unique } from './verdict';
import { invisibleCharacter } from './words';

export { COMMAND_LIMITS } from './limits';
export { commandDenial } from './denylist';
export { useParserCodeCache } from './parser-load';
export { clearClassifierCache } from './cache';
export type { CommandClassification, CommandSegment } from './types';
export { CREDENTIAL_SCAN_MAX_BYTES, credentialContent } from './credentials';
export { HARMLESS_PACKAGE_KEYS, packageConfigWrite } from './package-managers';
export { DANGEROUS_GIT_KEY, findGitDir, gitConfigKeys } from './git';
export { awkUnsafe } from './sed-awk';
export { lessIsReadOnly, manIsReadOnly, tscIsReadOnly } from './readers';

export function classifyCommand(command: string, ctx: ClassifyContext): CommandClassification {
  // The denylist is judged on its own, before everything else: no length, character or complexity limit, and no
  // failure of the analysis, may turn a refusal into a mere high-risk verdict.
  const denied = typeof command === 'string' ? commandDenial(command, (ctx as { home?: string }).home) : null;
  return denied ? withDenial(classifyOnly(command, ctx), denied) : classifyOnly(command, ctx);
}

/** The classification with the denylist's refusal on top: high-risk, no rule offered, `deny` set, the reason first. */
function withDenial(c: CommandClassification, denied: string): CommandClassification {
  const reason = `Deskhand's command denylist: ${denied}`;
  const { ruleParts: _parts, ...rest } = c;
  return { ...rest, risk: 'high-risk', reasons: [reason, ...c.reasons], rulePattern: null, deny: `${reason}: refused under every policy, high-risk included` };
}

function classifyOnly(command: string, ctx: ClassifyContext): CommandClassification {
  const key = JSON.stringify([command, ctx.cwd, ctx.workspaceRoots, ctx.dataDir, (ctx as { home?: string }).home ?? null, COMMAND_LIMITS]);
  const hit = cacheGet(classifications, key);
  // A copy: callers add reasons and paths to what they get.
  if (hit) return structuredClone(hit);
  try {
    const probe = { touchedDisk: false };
    const result = classify(command, ctx, probe);
    if (!probe.touchedDisk) cachePut(classifications, key, structuredClone(result));
    return result;
  } catch (err) {
    // Fail closed: a classifier bug must never let a command through as anything but high-risk.
    const reason = `could not analyse the command (${String(err instanceof Error ? err.message : err).slice(0, 200)})`;
    return {
      risk: 'high-risk',
      reasons: [reason],
      rulePattern: null,
      network: false,
      touchesOwnData: false,
      alwaysAskReasons: [],
      paths: [],
      segments: [{ text: String(command), program: null, risk: 'high-risk', reasons: [reason], network: false }],
    };
  }
}

function classify(command: string, ctx: ClassifyContext, probe: { touchedDisk: boolean }): CommandClassification {
  const high = (reason: string): CommandClassification => ({
    risk: 'high-risk',
    reasons: [reason],
    rulePattern: null,
    network: false,
    touchesOwnData: false,
    alwaysAskReasons: [],
    paths: [],
    segments: [{ text: command, program: null, risk: 'high-risk', reasons: [reason], network: false }],
  });
  if (typeof command !== 'string' || command.trim() === '') return high('empty command');
  if (command.length > COMMAND_LIMITS.maxChars) {
    return high(`command is longer than ${COMMAND_LIMITS.maxChars} characters; too complex to analyse`);
  }
  const hidden = invisibleCharacter(command);
  if (hidden) return high(`command contains ${hidden}, which can hide what it really does`);

  const analysis = new Analysis(ctx, probe);
  analysis.cwdChanges = /(^|[^A-Za-z0-9_-])(cd|pushd|popd)([^A-Za-z0-9_-]|$)/.test(command);
  const root = analysis.analyse(command, 0);
  if (!root.ok) return high(root.reason);
  if (analysis.count > COMMAND_LIMITS.maxSegments) {
    return high(`command has more than ${COMMAND_LIMITS.maxSegments} parts; too complex to analyse`);
  }

  const segments = analysis.segments;
  let risk: RiskTier = 'read-only';
  for (const s of segments) risk = maxRisk(risk, s.risk);
  const reasons = unique(segments.filter((s) => s.risk === risk).flatMap((s) => s.reasons));
  if (reasons.length === 0) reasons.push('no command to run');
  const single = root.simple && analysis.count === 1 && !analysis.compound && risk !== 'high-risk';
  return {
    risk,
    reasons,
    rulePattern: single && analysis.alwaysAsk.length === 0 ? root.normalized : null,
    ruleParts: segments.map((s) => ({ text: s.text, words: s.words ?? null, program: s.program, risk: s.risk })),
    network: segments.some((s) => s.network),
    touchesOwnData: analysis.touchesOwnData,
    alwaysAsk: analysis.alwaysAsk.length ? analysis.alwaysAsk.join('; ') : null,
    alwaysAskReasons: analysis.alwaysAsk,
    paths: analysis.paths,
    segments,
  };
}
