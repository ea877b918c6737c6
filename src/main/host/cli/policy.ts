/**
 * `deskhand policy explain`: how the approval engine would judge one call, without running it and without building
 * the runtime: the services and every family's tool definitions (host-services.ts), the store's rules and grants,
 * and the engine (runtime/explain.ts). No model provider loads, no browser, no MCP server unless the tool is one.
 */
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import { explainCall } from '../../runtime/explain';
import { resolveDataDir } from '../assembly/data-dir';
import { assembleHostServices } from '../assembly/host-services';
import { EXIT, UsageError, parsePolicy, parseSandbox, print } from './flags';

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
    },
  });
  if (!values.tool) throw new UsageError('policy explain needs --tool NAME.');
  let parsed: unknown = {};
  if (values.args !== undefined) {
    try {
      parsed = JSON.parse(values.args);
    } catch (err) {
      throw new UsageError(`--args is not valid JSON: ${errorMessage(err)}`);
    }
  }
  const dataDir = resolveDataDir(values['data-dir']);
  const host = assembleHostServices({ dataDir });
  try {
    const cwd = resolve(values.cwd ?? process.cwd());
    // An MCP tool is known only once its server has connected; no other explanation starts a server.
    if (values.tool.startsWith('mcp__')) {
      await host.mcp.startConfigured();
      await host.mcp.startProject(cwd);
    }
    const sandbox = parseSandbox(values.sandbox);
    const result = await explainCall(
      { registry: host.registry, store: host.store, dataDir, runLaterPaths: () => host.mcp.runLaterPaths(), grants: host.computer.grants, scopeOf: (id) => host.tower.scopeOf(id) },
      {
        tool: values.tool,
        args: parsed,
        policy: parsePolicy(values.policy) ?? 'read-only',
        cwd,
        ...(sandbox ? { sandbox } : {}),
        tainted: !!values.tainted,
        roots: (values.root ?? []).map((r) => resolve(r)),
        ...(values.conversation ? { conversationId: values.conversation } : {}),
      },
    );
    print(result);
    return EXIT.finished;
  } catch (err) {
    if (DeskhandError.isInstance(err) && (err.code === 'unknown_tool' || err.code === 'invalid_args')) throw new UsageError(err.message);
    throw err;
  } finally {
    try {
      await Promise.allSettled([host.tasks.shutdown(), host.browser?.shutdown()]);
    } finally {
      host.store.close();
    }
  }
}
