/**
 * Where the host's catalogs find what enabled plugins bring (services/plugins): their `agents/` and `commands/`
 * folders, read like the person's own (the person accepted them at install).
 */
import type { AgentFolder } from '../../services/agents';
import { pluginFolders } from '../../services/plugins';

export const pluginAgentFolders = (dataDir: string): AgentFolder[] => pluginFolders(dataDir, 'agents').map((f) => ({ ...f, origin: 'plugin' as const }));

export const pluginCommandFolders = (dataDir: string) => pluginFolders(dataDir, 'commands');
