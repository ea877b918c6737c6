/**
 * The short path of `deskhand policy explain` (issue 30): a call of a shell-family tool (execute_command, wait_for,
 * cancel_wait_for) is judged on the store, the shell family and the approval engine alone, without every family's
 * definitions and services (host-services.ts), which explaining any other tool still assembles. The answer is the
 * same on both paths: the deps below are the ones assembleHostServices gives explainCall for such a call (the shell
 * family over the same kind of background tasks and the OS sandbox, the store's app grants, the same holds (plan
 * mode, Tower's mission scope, a peer's and a subagent's ceilings), and no run-later paths, which only a started project MCP server adds); the sandbox's support is the last probe
 * remembered in the data folder while nothing it depends on changed (services/sandbox/probe-cache.ts), since
 * explaining runs no command. test/cli/policy-explain-paths.test.ts
 * compares the two paths call for call; test/cli/cli-import-cost.test.ts holds what this path loads.
 */
import { join } from 'node:path';
import type { ExplainDeps } from '../../runtime/decision/explain';
import { ToolRegistry } from '../../runtime/registry';
import { SecretRedactor } from '../../runtime/context/redaction';
import { openExplainStore } from '../../runtime/store-door';
import { DecisionBook } from '../../runtime/decision/decision-book';
import type { ContentReader } from '../../../shared/content-reader';
import type { HookService } from '../../services/hooks';
import { registerHolds } from './holds';
import { explainingSandbox } from '../../services/sandbox';
import { createShellFamily } from '../../tools/shell';

export interface ExplainHost {
  deps: ExplainDeps;
  /** The PreToolUse hooks that would apply, on the same store (built when asked). */
  hooks(reader: ContentReader): Promise<HookService>;
  close(): Promise<void>;
}

/** The explain deps of a shell-family call, or null when `tool` is not one of that family's names (aliases included). */
export async function shellExplainHost(dataDir: string, tool: string): Promise<ExplainHost | null> {
  const opened = openExplainStore(dataDir, new SecretRedactor());
  const { tools } = createShellFamily({ tasks: opened.tasks, sandbox: explainingSandbox(join(dataDir, 'cache')), dataDir });
  if (!tools.some((t) => t.name === tool || (t.aliases ?? []).includes(tool))) {
    await opened.close();
    return null;
  }
  const registry = new ToolRegistry();
  registry.add(tools, { family: 'shell' });
  // The same holds, in the same order, as the app's services register (holds.ts).
  const decisions = new DecisionBook();
  registerHolds(decisions, { records: opened.records, tower: opened.tower, subagents: opened.subagents });
  return {
    deps: {
      registry,
      store: opened.store,
      dataDir,
      runLaterPaths: () => [],
      grants: opened.grants,
      decisions,
    },
    hooks: opened.hooks,
    close: opened.close,
  };
}
