/**
 * The hooks service: finds the hooks of an event (the person's settings.json, and the trusted project settings of the
 * conversation's workspace roots), runs the matching ones in parallel through the launcher, and folds their answers
 * into one `HookOutcome` (shared/lifecycle-hooks.ts). The runtime fires it at one place per event; the approval
 * engine takes a PreToolUse outcome as one more inspector's verdict (runtime/decision/hook-inspector.ts).
 */
import { lstatSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ContentReader } from '../../../shared/content-reader';
import type { HookEventName, HookOutcome, HookScope, HookTarget, LifecycleHooks } from '../../../shared/lifecycle-hooks';
import { planSandbox, unsandboxedPlan } from '../sandbox/sandbox';
import type { Store } from '../store/store';
import { projectPinsModule } from '../store/modules/project-pins';
import { matcherTakes, personalHooks, projectHookFiles, PROJECT_SETTINGS, type HookEntry, type ProjectHooksFile } from './config';
import { ClaudeCompat, type CompatCheck } from '../compat';
import { readAnswer, runHook } from './run-hook';
import { pluginHooks } from '../plugins';
import { pathStamp } from '../file-stamp';

export { HOOK_EVENTS } from '../../../shared/lifecycle-hooks';
export { personalHooks, projectHookFiles, type HookEntry, type ProjectHooksFile } from './config';

/** The pin kind of project hook files (store module project-pins). */
export const HOOKS_PIN = 'hooks';

export type ProjectFileState = 'trusted' | 'untrusted' | 'changed';

export class HookService implements LifecycleHooks {
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly opts: {
      dataDir: string;
      store: Store;
      reader: ContentReader;
      /** Test seam: the sandbox plan for a project hook (default: bubblewrap or sandbox-exec, none → not run). */
      projectPlan?: typeof planSandbox;
      /** Whether a root's `.claude/settings.json` is read (default: the store's per-folder setting, services/compat). */
      compat?: CompatCheck;
    },
  ) {
    this.compat = opts.compat ?? new ClaudeCompat(opts.store).check;
  }

  private readonly compat: CompatCheck;

  private get pins() {
    return this.opts.store.module(projectPinsModule);
  }

  /** A project file's state: trusted (its pin holds), changed (pinned, but the pin no longer matches), untrusted. */
  stateOf(file: ProjectHooksFile): ProjectFileState {
    const pinned = this.pins.pinned(HOOKS_PIN, file.path);
    return pinned === null ? 'untrusted' : pinned === file.sha256 ? 'trusted' : 'changed';
  }

  /** The project hook files of some roots, each with its state, and what could not be read. */
  projectFiles(roots: readonly string[]): { files: (ProjectHooksFile & { state: ProjectFileState })[]; errors: string[] } {
    const files: (ProjectHooksFile & { state: ProjectFileState })[] = [];
    const errors: string[] = [];
    for (const root of new Set(roots.map((r) => resolve(r)))) {
      const compat = this.compat(root);
      const found = projectHookFiles(root, this.opts.reader, compat);
      errors.push(...found.errors);
      const claude = join(root, PROJECT_SETTINGS[1]);
      if (!compat && present(claude)) errors.push(`${claude}: Claude Code compatibility is off for ${root} (deskhand compat on --cwd ${root})`);
      for (const f of found.files) files.push({ ...f, state: this.stateOf(f) });
    }
    return { files, errors };
  }

  trust(file: ProjectHooksFile): void {
    this.pins.pin(HOOKS_PIN, file.path, file.sha256);
  }

  untrust(path: string): boolean {
    return this.pins.unpin(HOOKS_PIN, path);
  }

  /** The person's hooks, read again only when settings.json changed (every call fires PreToolUse and PostToolUse). */
  private personal(): ReturnType<typeof personalHooks> {
    const file = join(this.opts.dataDir, 'settings.json');
    // No settings file: no hooks of the person's. (Asked without an exception: a thrown ENOENT per event was most of
    // what finding no hooks cost a step.)
    const key = pathStamp(file);
    if (this.personalCache?.key !== key) this.personalCache = { key, hooks: personalHooks(this.opts.dataDir) };
    return this.personalCache.hooks;
  }

  private personalCache: { key: string; hooks: ReturnType<typeof personalHooks> } | null = null;

  /** Every hook that would run for a scope now (the person's and the trusted projects'), and why others would not. */
  active(roots: readonly string[]): { entries: HookEntry[]; notes: string[] } {
    const mine = this.personal();
    const notes = [...(mine.error ? [mine.error] : []), ...mine.skipped.map((s) => `${mine.file}: ${s}`)];
    const entries = [...mine.entries];
    // Enabled plugins' hooks: the person's own, as they accepted them at install (services/plugins).
    const plugins = pluginHooks(this.opts.dataDir);
    entries.push(...plugins.entries);
    notes.push(...plugins.notes);
    // Most folders have no project settings: only a path that exists (or is a link) is read through the guard.
    const candidates = roots.filter((root) => PROJECT_SETTINGS.some((rel) => present(join(root, rel))));
    if (candidates.length) {
      const { files, errors } = this.projectFiles(candidates);
      notes.push(...errors);
      for (const f of files) {
        if (f.state === 'trusted') entries.push(...f.entries);
        else notes.push(`${f.path}: ${f.state === 'changed' ? 'changed since you trusted it' : 'not trusted yet'}; its hooks do not run (deskhand hooks trust --cwd ${f.root})`);
      }
    }
    return { entries, notes };
  }

  /** The commands of the hooks of `event` that would run for this target now (policy explain; nothing is run). */
  applying(event: HookEventName, roots: readonly string[], target?: HookTarget): string[] {
    return this.active(roots)
      .entries.filter((e) => e.event === event && matcherTakes(e.matcher, target))
      .map((e) => `${e.plugin ? `plugin ${e.plugin}` : e.origin === 'project' ? `project ${e.file}` : 'yours'}: ${e.command}`);
  }

  async fire(event: HookEventName, scope: HookScope, input: Record<string, unknown>, target?: HookTarget, signal?: AbortSignal): Promise<HookOutcome | null> {
    const work = this.fireNow(event, scope, input, target, signal);
    this.inFlight.add(work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(work);
    }
  }

  /** Resolves once every firing under way has ended (a host's exit waits for Notification and SessionEnd hooks). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  private async fireNow(event: HookEventName, scope: HookScope, input: Record<string, unknown>, target: HookTarget | undefined, signal: AbortSignal | undefined): Promise<HookOutcome | null> {
    let entries: HookEntry[];
    try {
      entries = this.active(scope.roots).entries.filter((e) => e.event === event && matcherTakes(e.matcher, target));
    } catch (err) {
      return { block: null, permission: null, context: [], stop: null, notes: [`hooks of ${event} not read: ${(err as Error).message}`], ran: [] };
    }
    if (!entries.length) return null;
    const stdin = {
      session_id: scope.conversationId,
      transcript_path: null,
      cwd: scope.cwd,
      permission_mode: scope.policy,
      hook_event_name: event,
      ...input,
      deskhand: { conversation_id: scope.conversationId, run_id: scope.runId, ...(target?.claudeName ? { claude_tool_name: target.claudeName } : {}), ...(input.deskhand && typeof input.deskhand === 'object' ? input.deskhand : {}) },
    };
    const outcome: HookOutcome = { block: null, permission: null, context: [], stop: null, notes: [], ran: [] };
    const blocks: string[] = [];
    const asks: string[] = [];
    const allows: string[] = [];
    await Promise.all(
      entries.map(async (entry) => {
        const name = `${entry.origin === 'person' ? '' : 'project '}${event} hook \`${entry.command.length > 80 ? `${entry.command.slice(0, 77)}…` : entry.command}\``;
        outcome.ran.push(name);
        const root = entry.root ?? scope.cwd;
        const plan =
          entry.origin === 'person'
            ? unsandboxedPlan('off', 'the person\'s own hook: runs as configured, outside the OS sandbox')
            : (this.opts.projectPlan ?? planSandbox)({ mode: 'workspace-write', network: false, outside: false, roots: scope.roots.length ? scope.roots : [root], cwd: root, dataDir: this.opts.dataDir });
        if (entry.origin === 'project' && plan.kind === null) {
          outcome.notes.push(`${name} not run: a project's hooks run only inside the OS sandbox, and there is none here (${plan.summary})`);
          return;
        }
        const env = { CLAUDE_PROJECT_DIR: root, DESKHAND_PROJECT_DIR: root, DESKHAND_HOOK_EVENT: event };
        const result = await runHook(entry, stdin, { cwd: entry.origin === 'person' ? scope.cwd : root, plan, env, signal });
        const answer = readAnswer(result, event, name.replace(`${event} hook `, ''));
        if (answer.note) outcome.notes.push(answer.note);
        if (answer.block) blocks.push(`${name}: ${answer.block}`);
        if (answer.stop && !outcome.stop) outcome.stop = `${name}: ${answer.stop}`;
        if (answer.context) outcome.context.push({ text: answer.context, source: name, trusted: entry.origin === 'person' });
        if (answer.permission === 'ask') asks.push(`${name} asks${answer.permissionReason ? `: ${answer.permissionReason}` : ''}`);
        if (answer.permission === 'allow') allows.push(`${name} allows${answer.permissionReason ? `: ${answer.permissionReason}` : ''}`);
      }),
    );
    if (blocks.length) outcome.block = blocks.join('; ');
    if (asks.length) outcome.permission = { decision: 'ask', reasons: asks };
    else if (allows.length) outcome.permission = { decision: 'allow', reasons: allows };
    return outcome;
  }
}

/** Whether a path exists (as a file, folder or link); asked without an exception for the usual answer, no. */
function present(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
