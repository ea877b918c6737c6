import type { McpServerConfig } from '../../services/mcp';
import { type Records } from '../../runtime/records';

/** The configured servers with their last known health, as `mcp list` and Settings show them. */
export function mcpListing(store: Records) {
  const q = store.extensions;
  const health = new Map(q.health().map((h) => [h.name, h]));
  return q.servers().map((row) => {
    const config = JSON.parse(row.config) as McpServerConfig;
    const h = health.get(row.name);
    return {
      name: row.name,
      transport: config.transport,
      target: config.transport === 'stdio' ? [config.command, ...(config.args ?? [])].join(' ') : config.url,
      tier: config.tier ?? 'ask',
      enabled: config.enabled !== false,
      status: h?.status ?? 'not started yet',
      tools: h?.tool_count ?? 0,
      lastError: h?.last_error ?? null,
      stderrTail: h?.stderr_tail ?? null,
      restarts: h?.restarts ?? 0,
      checkedAt: h ? new Date(h.updated_at).toISOString() : null,
    };
  });
}
