/**
 * `deskhand mcp add NAME [--env K=V]… [--secret-env VAR=SECRET]… [--tier T] [--no-roots] -- COMMAND [ARGS…]` (stdio),
 * `deskhand mcp add NAME --url URL [--sse] [--header K=V]… [--oauth] [--tier T]` (Streamable HTTP / legacy SSE),
 * `deskhand mcp list [--json]`, `remove NAME`, `test NAME [--json]`; and `deskhand profiles list [--json] | add NAME
 * [--system TEXT] [--provider P] [--model M] [--allow TOOL]… [--deny TOOL]… [--policy P] [--sandbox S] [--custom-tools FILE] | remove NAME`.
 */
import { readFileSync } from 'node:fs';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import { MCP_TIERS, parseEnvPairs, parseServerConfig, pinServer, SERVER_NAME_RE, type McpServerConfig, type McpTier } from '../../services/mcp';
import { McpManager } from '../../services/mcp/manager';
import { KeytarSecretStore, keyringService } from '../../services/vault/secret-store';
import { Vault } from '../../services/vault/vault';
import { ProfileStore, profileSchema } from '../../services/profiles';
import { parseSubcommand, usage, withStore } from './common';

import { mcpListing } from '../app/mcp-listing';
import { SecretRedactor } from '../../runtime/context/redaction';
import type { OpenStore } from '../assembly/open-store';

export { mcpListing };

function pairs(list: readonly string[] | undefined, flag: string): Record<string, string> {
  try {
    return parseEnvPairs(list ?? []);
  } catch {
    throw usage(`${flag} takes NAME=VALUE (got ${JSON.stringify(list)}).`);
  }
}

function tierFlag(value: string | undefined): McpTier | undefined {
  if (value === undefined) return undefined;
  if (!(MCP_TIERS as readonly string[]).includes(value)) throw usage(`--tier must be one of ${MCP_TIERS.join(', ')} (got "${value}").`);
  return value as McpTier;
}

export async function mcpCommand(argv: string[]): Promise<number> {
  const [sub, ...all] = argv;
  const dash = all.indexOf('--');
  const rest = dash === -1 ? all : all.slice(0, dash);
  const commandArgv = dash === -1 ? [] : all.slice(dash + 1);
  const { values, positionals } = parseSubcommand(rest, {
    env: { type: 'string', multiple: true },
      'secret-env': { type: 'string', multiple: true },
    header: { type: 'string', multiple: true },
    url: { type: 'string' },
    sse: { type: 'boolean' },
    oauth: { type: 'boolean' },
    tier: { type: 'string' },
    timeout: { type: 'string' },
    'no-roots': { type: 'boolean' },
  });
  return withStore(values['data-dir'], async (store, records) => {
    const q = records.extensions;
    switch (sub) {
      case 'add': {
        const name = positionals[0];
        if (!name || !SERVER_NAME_RE.test(name)) throw usage('mcp add needs a NAME of 1–40 letters, digits or dashes (it becomes part of tool names mcp__NAME__tool).');
        if (positionals.length > 1) throw usage(`Put the server's command after --: deskhand mcp add ${name} -- ${positionals.slice(1).join(' ')}`);
        const tier = tierFlag(values.tier);
        const timeoutMs = values.timeout === undefined ? undefined : Number(values.timeout);
        if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) throw usage('--timeout is a whole number of milliseconds.');
        let config: McpServerConfig;
        // --no-roots: the server gets no roots (it stays in the folders its own configuration names).
        const common = { name, ...(tier ? { tier } : {}), ...(timeoutMs ? { timeoutMs } : {}), ...(values['no-roots'] ? { roots: false } : {}) };
        try {
          if (values.url) {
            if (commandArgv.length) throw usage('Give either --url URL or -- COMMAND, not both.');
            config = parseServerConfig({ ...common, transport: values.sse ? 'sse' : 'http', url: values.url, ...(values.header ? { headers: pairsLoose(values.header) } : {}), ...(values.oauth ? { oauth: true } : {}) });
          } else {
            if (!commandArgv.length) throw usage(`mcp add ${name} needs -- COMMAND [ARGS…] (stdio) or --url URL (HTTP).`);
            const env = pairs(values.env, '--env');
            const secretEnv = pairs(values['secret-env'], '--secret-env');
            const stdio = parseServerConfig({ ...common, transport: 'stdio', command: commandArgv[0], args: commandArgv.slice(1), ...(Object.keys(env).length ? { env } : {}), ...(Object.keys(secretEnv).length ? { secretEnv } : {}) });
            // The working folder is recorded and the files the command line names are pinned (M5, config.ts).
            config = stdio.transport === 'stdio' ? pinServer(stdio, process.cwd()) : stdio;
          }
        } catch (err) {
          if (DeskhandError.isInstance(err)) throw err;
          throw usage((err as Error).message);
        }
        const existed = !!q.server(name);
        const { name: _n, ...stored } = config;
        q.putServer(name, JSON.stringify(stored));
        process.stdout.write(`${existed ? 'Updated' : 'Added'} MCP server ${name} (${config.transport}). Check it with: deskhand mcp test ${name}\n`);
        if (config.transport === 'stdio' && config.pins?.length) {
          process.stdout.write(`Pinned (a change stops the server until you add it again): ${config.pins.map((p) => p.path).join(', ')}\n`);
        }
        return 0;
      }
      case 'list': {
        // What the servers printed is shown through the redactor, taught the secrets their configurations name (a
        // health row another version wrote before it redacted stays unseen here too).
        const redactor = await serverSecretsRedactor(store, q.servers().map((r) => r.config));
        const rows = mcpListing(records).map((r) => ({ ...r, lastError: r.lastError === null ? null : redactor.redact(r.lastError), stderrTail: r.stderrTail === null ? null : redactor.redact(r.stderrTail) }));
        if (values.json) {
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
          return 0;
        }
        if (!rows.length) process.stdout.write('No MCP servers. Add one with: deskhand mcp add NAME -- COMMAND [ARGS…]  or  deskhand mcp add NAME --url URL\n');
        for (const r of rows) {
          process.stdout.write(`${r.name}  ${r.transport}  ${r.status}${r.status === 'connected' ? `, ${r.tools} tools` : ''}  tier ${r.tier}${r.enabled ? '' : '  (disabled)'}${r.checkedAt ? `  (as of ${r.checkedAt})` : ''}\n  ${r.target}\n`);
          if (r.lastError && r.status !== 'connected') process.stdout.write(`  last error: ${r.lastError}\n`);
          if (r.stderrTail && r.status !== 'connected') process.stdout.write(`  stderr (last lines):\n${r.stderrTail.trimEnd().split('\n').slice(-8).map((l) => `    ${l}`).join('\n')}\n`);
        }
        return 0;
      }
      case 'remove': {
        const name = positionals[0];
        if (!name) throw usage('mcp remove needs a NAME.');
        const had = q.removeServer(name);
        process.stderr.write(had ? `Removed MCP server ${name}.\n` : `No MCP server ${name}.\n`);
        return had ? 0 : 1;
      }
      case 'test': {
        const name = positionals[0];
        if (!name) throw usage('mcp test needs a NAME.');
        const row = q.server(name);
        if (!row) throw usage(`No MCP server ${name}. See deskhand mcp list.`);
        const vault = new Vault(new KeytarSecretStore(keyringService()), store);
        // As in a run (host-services.ts): a secret handed to the server is known to the redactor from then on, so
        // what it prints reaches neither this output nor the stored health row.
        const redactor = new SecretRedactor();
        store.setRedactor((text) => redactor.redact(text));
        const out = (text: string) => process.stdout.write(redactor.redact(text));
        const manager = new McpManager({
          store,
          secret: async (s) => {
            const value = await vault.get(s);
            if (value) redactor.addSecret(s, value);
            return value;
          },
        });
        try {
          const view = await manager.connect(parseServerConfig({ ...JSON.parse(row.config), name }));
          const ok = view.health.status === 'connected';
          // The person sees the list now: runs that carry it are no longer tainted for a change they have not seen.
          if (ok) manager.markToolsSeen(name);
          if (values.json) out(`${JSON.stringify({ ...view.health, tools: view.tools.map((t) => t.name) }, null, 2)}\n`);
          else if (ok) out(`${name}: connected, ${view.tools.length} tools: ${view.tools.map((t) => t.name).join(', ')}\n  protocol revision ${view.health.protocolVersion ?? 'unknown'}\n`);
          else out(`${name}: ${view.health.status}: ${view.health.lastError}\n${view.health.stderrTail ? `stderr (last lines):\n${view.health.stderrTail.trimEnd().split('\n').slice(-8).map((l) => `  ${l}`).join('\n')}\n` : ''}`);
          return ok ? 0 : 1;
        } finally {
          await manager.close();
        }
      }
      default:
        throw usage('mcp needs add, list, remove or test.');
    }
  });
}

/**
 * A redactor taught the vault secrets the servers' configurations hand them (`--secret-env`), for showing what they
 * printed. Without a keyring it knows only the shapes of credentials.
 */
async function serverSecretsRedactor(store: OpenStore, configs: readonly string[]): Promise<SecretRedactor> {
  const redactor = new SecretRedactor();
  const names = new Set<string>();
  for (const c of configs) {
    try {
      for (const n of Object.values((JSON.parse(c) as { secretEnv?: Record<string, string> }).secretEnv ?? {})) names.add(n);
    } catch {
      // a configuration that does not parse names no secret
    }
  }
  if (!names.size) return redactor;
  const vault = new Vault(new KeytarSecretStore(keyringService()), store);
  for (const n of names) {
    try {
      redactor.addSecret(n, await vault.get(n));
    } catch {
      // no keyring here (or no such secret): the shapes still apply
    }
  }
  return redactor;
}

function pairsLoose(list: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of list) {
    const at = p.indexOf('=');
    if (at < 1) throw usage(`--header takes NAME=VALUE (got "${p}").`);
    out[p.slice(0, at)] = p.slice(at + 1);
  }
  return out;
}

export async function profilesCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseSubcommand(rest, {
    system: { type: 'string' },
    description: { type: 'string' },
    provider: { type: 'string' },
    model: { type: 'string' },
    allow: { type: 'string', multiple: true },
    deny: { type: 'string', multiple: true },
    policy: { type: 'string' },
    sandbox: { type: 'string' },
    'custom-tools': { type: 'string' },
  });
  return withStore(values['data-dir'], (store) => {
    const profiles = new ProfileStore(store);
    switch (sub) {
      case 'list': {
        const list = profiles.list();
        if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
        else if (!list.length) process.stdout.write('No agent profiles. Add one with: deskhand profiles add NAME --system TEXT\n');
        else for (const p of list) process.stdout.write(`${p.name}${p.model ? `  model ${p.model}` : ''}${p.policy ? `  policy ${p.policy}` : ''}${p.sandbox ? `  sandbox ${p.sandbox}` : ''}${p.allowedTools ? `  allows ${p.allowedTools.join(',')}` : ''}${p.deniedTools ? `  denies ${p.deniedTools.join(',')}` : ''}\n`);
        return 0;
      }
      case 'add': {
        const name = positionals[0];
        if (!name) throw usage('profiles add needs a NAME.');
        const parsed = profileSchema.safeParse({
          name,
          ...(values.description ? { description: values.description } : {}),
          ...(values.system ? { systemPrompt: values.system } : {}),
          ...(values.provider ? { provider: values.provider } : {}),
          ...(values.model ? { model: values.model } : {}),
          ...(values.allow ? { allowedTools: values.allow } : {}),
          ...(values.deny ? { deniedTools: values.deny } : {}),
          ...(values.policy ? { policy: values.policy } : {}),
          ...(values.sandbox ? { sandbox: values.sandbox } : {}),
          ...(values['custom-tools'] ? { customTools: profileCustomTools(values['custom-tools']) } : {}),
        });
        if (!parsed.success) throw usage(`Invalid profile: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'profile'}: ${i.message}`).join('; ')}`);
        try {
          profiles.put(parsed.data);
        } catch (err) {
          throw usage(errorMessage(err));
        }
        process.stdout.write(`Saved agent profile ${name}. Use it with: deskhand run --profile ${JSON.stringify(name)} PROMPT\n`);
        return 0;
      }
      case 'remove': {
        const name = positionals[0];
        if (!name) throw usage('profiles remove needs a NAME.');
        const had = profiles.remove(name);
        process.stderr.write(had ? `Removed agent profile ${name}.\n` : `No agent profile ${name}.\n`);
        return had ? 0 : 1;
      }
      default:
        throw usage('profiles needs list, add or remove.');
    }
  });
}

/** `--custom-tools FILE`: the profile's own custom tools, in the global file's shape (`{ "tools": [...] }`) or a bare array. */
function profileCustomTools(path: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw usage(`--custom-tools ${path}: ${errorMessage(err)}`);
  }
  return Array.isArray(parsed) ? parsed : (parsed as { tools?: unknown } | null)?.tools ?? parsed;
}
