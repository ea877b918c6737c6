/**
 * The `deskhand` CLI: the same runtime as the desktop app, headless. Exit codes: 0 finished, 3 parked waiting for an
 * approval, 1 failed, 2 usage error. Each command group is a module of its own, loaded with `import()` when its
 * command runs, so a command loads only what it uses (docs/performance.md, "CLI start"): `runs list` the store,
 * `policy explain` the tools and the approval engine, and only the commands that drive the agent (cli/agent.ts,
 * `web`, `fire`, …) the whole runtime.
 */
import { DeskhandError, errorMessage } from '../../../shared/errors';
import { EXIT, UsageError, isParseArgsError } from './flags';
import { USAGE } from './usage';
import { closeOpenRuntimes } from '../assembly/open-runtimes';

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'run':
        return await (await import('./agent')).runCommand(rest);
      case 'runs':
        return await (await import('./runs')).runsCommand(rest);
      case 'policy':
        return await (await import('./policy')).policyCommand(rest);
      case 'rules':
        return await (await import('./grants')).rulesCommand(rest);
      case 'secrets':
        return await (await import('./agent')).secretsCommand(rest);
      case 'web':
        return await (await import('../web/web-command')).webCommand(rest);
      case 'acp':
        return await (await import('../acp/acp-command')).acpCommand(rest);
      case 'peers':
        return await (await import('./peers')).peersCommand(rest);
      case 'devices':
        return await (await import('./devices')).devicesCommand(rest);
      case 'instructions':
        return await (await import('./instructions')).instructionsCommand(rest);
      case 'hooks':
        return await (await import('./hooks')).hooksCommand(rest);
      case 'commands':
        return await (await import('./slash-commands')).commandsCommand(rest);
      case 'compat':
        return await (await import('./compat')).compatCommand(rest);
      case 'agents':
        return await (await import('./agents')).agentsCommand(rest);
      case 'plugins':
        return await (await import('./plugins')).pluginsCommand(rest);
      case 'grants':
        return await (await import('./grants')).grantsCommand(rest);
      case 'search':
        return await (await import('./grants')).searchCommand(rest);
      case 'memory':
        return await (await import('./memory')).memoryCommand(rest);
      case 'goals':
        return await (await import('./memory')).goalsCommand(rest);
      case 'fire':
        return await (await import('./schedule')).fireCommandMain(rest);
      case 'schedule':
        return await (await import('./schedule')).scheduleCommand(rest);
      case 'mcp':
        return await (await import('./mcp')).mcpCommand(rest);
      case 'profiles':
        return await (await import('./mcp')).profilesCommand(rest);
      case 'compositions':
        return await (await import('./compositions')).compositionsCommand(rest);
      case 'media':
        return await (await import('./media')).mediaCommand(rest);
      case 'subagents':
        return await (await import('./subagents')).subagentsCommand(rest);
      case 'changes':
        return await (await import('./changes')).changesCommand(rest);
      case 'rewind':
        return await (await import('./changes')).rewindCommand(rest);
      case 'conversations':
        return await (await import('./conversations')).conversationsCommand(rest);
      case 'workflows':
        return await (await import('./workflows')).workflowsCommand(rest);
      case 'tower':
        return await (await import('./tower')).towerCommand(rest);
      case 'prompt':
        return await (await import('./prompt-tools')).promptCommand(rest);
      case 'tools':
        return await (await import('./prompt-tools')).toolsCommand(rest);
      case 'stop':
        return await (await import('./stop')).stopCommand(rest);
      case 'usage':
        return await (await import('./usage-ledger')).usageCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? EXIT.usage : EXIT.finished;
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } catch (err) {
    if (err instanceof UsageError || (DeskhandError.isInstance(err) && err.code === 'usage') || isParseArgsError(err)) {
      process.stderr.write(`deskhand: ${errorMessage(err)}\n\n${USAGE}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`deskhand: ${errorMessage(err)}\n`);
    return EXIT.failed;
  } finally {
    // The exit path: whatever a command opened and did not close ends here (nothing keeps the process alive).
    await closeOpenRuntimes();
  }
}
