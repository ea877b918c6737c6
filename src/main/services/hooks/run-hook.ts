/**
 * One hook run: `sh -c COMMAND` through the launcher (the person's on the host, a project's in the OS sandbox with its
 * workspace writable and no network), the event's JSON on stdin, stopped as a tree at its timeout; then its answer
 * read as Claude Code documents it (exit code 0 / 2 / other, and the JSON it may print).
 */
import { launchForModel, type LaunchedProcess } from '../processes/launcher';
import type { SandboxPlan } from '../sandbox/plan';
import type { HookEntry } from './config';

/** A hook's output beyond this is cut (a hook is a short check, not a log). */
const MAX_OUTPUT = 64 * 1024;

export interface HookResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Could not start (no shell, the sandbox refused). */
  error: string | null;
}

export async function runHook(entry: HookEntry, input: unknown, opts: { cwd: string; plan: SandboxPlan; env: Record<string, string>; signal?: AbortSignal | undefined }): Promise<HookResult> {
  let launched: LaunchedProcess;
  const shell = process.platform === 'win32' ? 'cmd.exe' : '/bin/sh';
  const { file, args } = process.platform === 'win32' ? { file: shell, args: ['/d', '/s', '/c', entry.command] } : { file: shell, args: ['-c', entry.command] };
  try {
    launched = launchForModel({ file, args, sandbox: opts.plan, cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], timeoutMs: entry.timeoutS * 1000, signal: opts.signal, graceMs: 500 });
  } catch (err) {
    return { exitCode: null, stdout: '', stderr: '', timedOut: false, error: (err as Error).message };
  }
  const { child } = launched;
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    if (stdout.length < MAX_OUTPUT) stdout += d.toString('utf8');
  });
  child.stderr?.on('data', (d: Buffer) => {
    if (stderr.length < MAX_OUTPUT) stderr += d.toString('utf8');
  });
  // A hook that does not read its input must not fail the write (EPIPE).
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(`${JSON.stringify(input)}\n`);
  return new Promise((done) => {
    child.once('error', (err) => done({ exitCode: null, stdout, stderr, timedOut: false, error: err.message }));
    child.once('close', (code) => done({ exitCode: code, stdout: stdout.slice(0, MAX_OUTPUT), stderr: stderr.slice(0, MAX_OUTPUT), timedOut: launched.stoppedBy === 'timeout', error: null }));
  });
}

/** What one hook said, read from its exit code and output. */
export interface HookAnswer {
  block: string | null;
  permission: 'ask' | 'allow' | null;
  permissionReason: string | null;
  context: string | null;
  stop: string | null;
  note: string | null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/**
 * Exit 2: blocking, stderr is the reason. Exit 0: stdout as JSON when it is an object (`decision`, `reason`,
 * `continue`, `stopReason`, `systemMessage`, `hookSpecificOutput.{permissionDecision, permissionDecisionReason,
 * additionalContext}`), else plain text (context for UserPromptSubmit and SessionStart, the summary's custom
 * instructions for PreCompact, as in Claude Code). Any other
 * exit: a non-blocking error, noted.
 */
export function readAnswer(result: HookResult, event: HookEntry['event'], name: string): HookAnswer {
  const answer: HookAnswer = { block: null, permission: null, permissionReason: null, context: null, stop: null, note: null };
  if (result.error) return { ...answer, note: `hook ${name} could not start: ${result.error}` };
  if (result.timedOut) return { ...answer, note: `hook ${name} timed out and was stopped; ignored` };
  if (result.exitCode === 2) return { ...answer, block: str(result.stderr) ?? `blocked by hook ${name}` };
  if (result.exitCode !== 0) {
    const said = str(result.stderr);
    return { ...answer, note: `hook ${name} failed (exit ${result.exitCode ?? 'signal'})${said ? `: ${said.slice(0, 500)}` : ''}; ignored` };
  }
  const out = result.stdout.trim();
  let json: Record<string, unknown> | null = null;
  if (out.startsWith('{')) {
    try {
      const parsed = JSON.parse(out) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
    } catch {
      json = null;
    }
  }
  if (!json) {
    // Context for the model (UserPromptSubmit, SessionStart), or instructions for the summary (PreCompact).
    if (out && (event === 'UserPromptSubmit' || event === 'SessionStart' || event === 'PreCompact')) answer.context = out;
    return answer;
  }
  if (json.continue === false) answer.stop = str(json.stopReason) ?? `hook ${name} stopped the run`;
  answer.note = str(json.systemMessage);
  const specific = json.hookSpecificOutput && typeof json.hookSpecificOutput === 'object' ? (json.hookSpecificOutput as Record<string, unknown>) : {};
  answer.context = str(specific.additionalContext);
  const reason = str(json.reason);
  if (json.decision === 'block') answer.block = reason ?? `blocked by hook ${name}`;
  // Claude Code's older PreToolUse spelling: "approve" is allow.
  if (json.decision === 'approve') answer.permission = 'allow';
  const pd = specific.permissionDecision;
  const pdReason = str(specific.permissionDecisionReason) ?? reason;
  if (pd === 'deny') answer.block = pdReason ?? `denied by hook ${name}`;
  else if (pd === 'ask') answer.permission = 'ask';
  else if (pd === 'allow' && answer.permission !== 'ask') answer.permission = 'allow';
  if (answer.permission) answer.permissionReason = pdReason;
  return answer;
}
