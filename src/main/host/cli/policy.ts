/**
 * `deskhand policy explain`: how the approval engine would judge one call, without running it and without building
 * the runtime: the store's rules and grants, the engine (runtime/decision/explain.ts) and the tool's definition. A shell call
 * needs only the shell family (assembly/explain-host.ts); any other tool loads the services and every family's
 * definitions (host-services.ts). No model provider loads, no browser, no MCP server unless the tool is one.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import { explainCall } from '../../runtime/decision/explain';
import { ledgerRecords } from '../../services/ledger/recordable';
import { resolveDataDir } from '../assembly/data-dir';
import { shellExplainHost, type ExplainHost } from '../assembly/explain-host';
import { EXIT, UsageError, parsePolicy, parseSandbox, print } from './flags';
import { peerCeilingCheck } from '../../runtime/decision/peer-ceiling';
import { peerCeilingByName } from '../../services/peers/index';
import { withRecords } from './common';
import type { HookScope, HookTarget } from '../../../shared/lifecycle-hooks';

/** The peer's ceiling as the runtime computes it, or a usage error naming the peers there are. */
async function ceilingOf(dataDir: string, name: string) {
  return withRecords(dataDir, (records) => {
    const c = peerCeilingByName(records, name);
    if (!c) throw new UsageError(`No peer "${name.slice(0, 40)}" (see deskhand peers list).`);
    return c;
  });
}

/** `policy explain --peer NAME`: every tool this Deskhand has, granted to the peer or refused with the reason. */
async function explainPeerCeiling(dataDir: string, name: string): Promise<number> {
  const ceiling = await ceilingOf(dataDir, name);
  const { assembleHostServices } = await import('../assembly/host-services');
  const host = assembleHostServices({ dataDir });
  try {
    const granted: string[] = [];
    const refused: { tool: string; reason: string }[] = [];
    for (const tool of host.registry.all()) {
      const reason = peerCeilingCheck(tool, ceiling);
      if (reason) refused.push({ tool: tool.name, reason });
      else granted.push(tool.name);
    }
    print({ peer: ceiling.peer, tier: ceiling.tier, allow: ceiling.allow, granted, refused });
    return EXIT.finished;
  } finally {
    await Promise.allSettled([host.tasks.shutdown(), host.browser?.shutdown()]);
    host.closeStore();
  }
}

export async function policyCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'explain') throw new UsageError('policy needs the subcommand explain.');
  const { values } = parseArgs({
    args: rest,
    options: {
      tool: { type: 'string' },
      args: { type: 'string' },
      policy: { type: 'string' },
      cwd: { type: 'string' },
      'data-dir': { type: 'string' },
      sandbox: { type: 'string' },
      root: { type: 'string', multiple: true },
      tainted: { type: 'boolean' },
      conversation: { type: 'string' },
      peer: { type: 'string' },
      'run-hooks': { type: 'boolean' },
    },
  });
  const dataDirOf = () => resolveDataDir(values['data-dir']);
  if (values.peer !== undefined && !values.tool) return explainPeerCeiling(dataDirOf(), values.peer);
  if (!values.tool) throw new UsageError('policy explain needs --tool NAME (or --peer NAME alone, for the whole ceiling).');
  let parsed: unknown = {};
  if (values.args !== undefined) {
    try {
      parsed = JSON.parse(values.args);
    } catch (err) {
      throw new UsageError(`--args is not valid JSON: ${errorMessage(err)}`);
    }
  }
  const dataDir = dataDirOf();
  // In a conversation, its own folder unless --cwd says otherwise (as its run would judge the call).
  const cwd = values.cwd !== undefined ? resolve(values.cwd) : values.conversation ? undefined : process.cwd();
  const peerCeiling = values.peer !== undefined ? await ceilingOf(dataDir, values.peer) : null;
  const host = (await shellExplainHost(dataDir, values.tool)) ?? (await fullExplainHost(dataDir, values.tool, cwd ?? process.cwd()));
  try {
    const sandbox = parseSandbox(values.sandbox);
    // As a run in this data folder would judge it: the change ledger records the roots unless it is off here.
    const recordsRoots = process.env.DESKHAND_LEDGER === 'off' || process.env.DESKHAND_CONFINED === 'ask' ? null : (roots: readonly string[], writes?: readonly string[]) => ledgerRecords(roots, dataDir, writes);
    // The PreToolUse hooks that would apply (the person's, enabled plugins', trusted projects'): listed, run only when asked.
    const { GuardedContentReader } = await import('../../runtime/context/content-reader');
    const hooks = await host.hooks(new GuardedContentReader({ dataDir }));
    const preToolHooks = {
      applying: (roots: readonly string[], target: HookTarget) => hooks.applying('PreToolUse', roots, target),
      fire: (scope: HookScope, input: Record<string, unknown>, target: HookTarget) => hooks.fire('PreToolUse', scope, input, target),
    };
    const result = await explainCall({ ...host.deps, recordsRoots, preToolHooks }, {
      tool: values.tool,
      args: parsed,
      ...(values.policy !== undefined ? { policy: parsePolicy(values.policy)! } : {}),
      ...(cwd ? { cwd } : {}),
      ...(sandbox ? { sandbox } : {}),
      tainted: !!values.tainted,
      roots: (values.root ?? []).map((r) => resolve(r)),
      ...(values.conversation ? { conversationId: values.conversation } : {}),
      ...(peerCeiling ? { peerCeiling } : {}),
      ...(values['run-hooks'] ? { runHooks: true } : {}),
    });
    print(result);
    return EXIT.finished;
  } catch (err) {
    if (DeskhandError.isInstance(err) && (err.code === 'unknown_tool' || err.code === 'invalid_args')) throw new UsageError(err.message);
    throw err;
  } finally {
    await host.close();
  }
}

/** Every service and family's definitions (host-services.ts): what judging a tool outside the shell family reads. */
async function fullExplainHost(dataDir: string, tool: string, cwd: string): Promise<ExplainHost> {
  const { assembleHostServices } = await import('../assembly/host-services');
  const host = assembleHostServices({ dataDir });
  const close = async () => {
    try {
      await Promise.allSettled([host.tasks.shutdown(), host.browser?.shutdown()]);
    } finally {
      host.closeStore();
    }
  };
  try {
    // An MCP tool is known only once its server has connected; no other explanation starts a server.
    if (tool.startsWith('mcp__')) {
      await host.mcp.startConfigured();
      await host.mcp.startProject(cwd);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    deps: { registry: host.registry, store: host.store, dataDir, runLaterPaths: () => host.mcp.runLaterPaths(), grants: host.computer.grants, decisions: host.decisions },
    hooks: async (reader) => host.hookService(reader),
    close,
  };
}
