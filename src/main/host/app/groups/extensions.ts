/**
 * Settings → MCP and the agent-profile selector, for AppService: servers with their health, adding (connected at
 * once, tools registered live), removing, reconnecting; profiles and the one a conversation uses.
 */
import { DeskhandError } from '../../../../shared/errors';
import type { ParsedParams, MethodResult } from '../../../../shared/contract';
import { parseServerConfig, pinServer, type McpServerConfig } from '../../../services/mcp';
import type { AgentProfile } from '../../../services/profiles';
import { mcpListing } from '../mcp-listing';
import type { AppRuntime } from '../../assembly/open-runtime';
import type { HandlerGroup } from '../handler-groups';
import type { EXTENSION_METHOD_NAMES } from '../../../../shared/contract/extensions';

/** The contract's extensions methods (a handler group, handler-groups.ts): MCP servers and agent profiles. */
export const extensionGroup: HandlerGroup<(typeof EXTENSION_METHOD_NAMES)[number]> = ({ runtime, markChanged }) => {
  const settings = new ExtensionSettings(runtime);
  return {
    listMcpServers: async () => settings.list(),
    addMcpServer: async (p) => settings.add(p),
    removeMcpServer: async (p) => settings.remove(p),
    testMcpServer: async (p) => settings.test(p),
    listProfiles: async (p) => settings.profiles(p),
    setConversationProfile: async (p) => settings.setProfile(p, () => markChanged('conversations')),
  };
};

/** Splits a command line on spaces; "double" or 'single' quotes keep spaces inside one argument. */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!));
  return out;
}

const view = (p: AgentProfile) => ({
  name: p.name,
  description: p.description ?? null,
  model: p.model ?? null,
  policy: p.policy ?? null,
  sandbox: p.sandbox ?? null,
  allowedTools: p.allowedTools ?? null,
  deniedTools: p.deniedTools ?? null,
});

export class ExtensionSettings {
  constructor(private readonly runtime: AppRuntime) {}

  private get q() {
    return this.runtime.records.extensions;
  }

  list(): MethodResult<'listMcpServers'> {
    return { servers: mcpListing(this.runtime.records) };
  }

  async add(p: ParsedParams<'addMcpServer'>): Promise<MethodResult<'addMcpServer'>> {
    let config: McpServerConfig;
    try {
      if (p.transport === 'stdio') {
        const argv = splitCommandLine(p.command ?? '');
        if (!argv.length) throw new Error('Give the command that starts the server, e.g. npx -y @modelcontextprotocol/server-everything');
        const stdio = parseServerConfig({ name: p.name, transport: 'stdio', command: argv[0], args: argv.slice(1), tier: p.tier, ...(p.env ? { env: p.env } : {}) });
        config = stdio.transport === 'stdio' ? pinServer(stdio, process.cwd()) : stdio;
      } else {
        config = parseServerConfig({ name: p.name, transport: p.transport, url: p.url ?? '', tier: p.tier });
      }
    } catch (err) {
      throw new DeskhandError('usage', (err as Error).message);
    }
    const { name, ...stored } = config;
    this.q.putServer(name, JSON.stringify(stored));
    await this.runtime.mcp.connect(config);
    return this.list();
  }

  async remove(p: ParsedParams<'removeMcpServer'>): Promise<MethodResult<'removeMcpServer'>> {
    if (!this.q.removeServer(p.name)) throw new DeskhandError('not_found', `No MCP server ${p.name}.`);
    await this.runtime.mcp.disconnect(p.name);
    return this.list();
  }

  async test(p: ParsedParams<'testMcpServer'>): Promise<MethodResult<'testMcpServer'>> {
    const row = this.q.server(p.name);
    if (!row) throw new DeskhandError('not_found', `No MCP server ${p.name}.`);
    await this.runtime.mcp.connect(parseServerConfig({ ...JSON.parse(row.config), name: p.name }));
    return this.list();
  }

  profiles(p: ParsedParams<'listProfiles'>): MethodResult<'listProfiles'> {
    return { profiles: this.runtime.profiles.list().map(view), current: p.conversationId ? (this.runtime.profiles.forConversation(p.conversationId)?.name ?? null) : null };
  }

  setProfile(p: ParsedParams<'setConversationProfile'>, changed: () => void): MethodResult<'setConversationProfile'> {
    if (!this.runtime.records.getConversation(p.conversationId)) throw new DeskhandError('not_found', `No conversation ${p.conversationId}.`);
    if (this.runtime.subagents.byConversation(p.conversationId)) throw new DeskhandError('usage', "This is a subagent's conversation: its tools and policy come from its parent. Choose a profile for the parent instead.");
    const profile = this.runtime.profiles.get(p.profile);
    if (!profile) throw new DeskhandError('not_found', `No agent profile "${p.profile}".`);
    this.runtime.profiles.assign(p.conversationId, profile.name);
    this.runtime.records.updateConversation(p.conversationId, { ...(profile.policy ? { policy: profile.policy } : {}), ...(profile.sandbox ? { sandbox: profile.sandbox } : {}) });
    changed();
    return this.profiles({ conversationId: p.conversationId });
  }
}
