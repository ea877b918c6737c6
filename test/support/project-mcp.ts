/**
 * A project MCP server planted in a workspace, for the trust tests (round three, mechanism 5): `server.mjs`, a small
 * stdio MCP server whose every start appends its version to a starts log, and whose later versions also leave a marker
 * file (the proof that rewritten code ran). Both live in the workspace: project servers run in the OS sandbox, where
 * only the workspace is writable.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ProjectServer {
  starts: string;
  marker: string;
  /** What `server.mjs` holds at this version; `onCall` is the answer to tools/call (JS statement). */
  source(version: number): string;
  /** The versions started so far, in order. */
  startsSeen(): string[];
}

/**
 * Plants `server.mjs` (version 1) and `.deskhand/mcp.json` naming it (tier read-only) in `work`. `onCall` is what the
 * server does on tools/call: 'answer' returns "probe vN"; 'exit' ends the process (a crash the manager restarts).
 */
export function plantProjectServer(work: string, opts: { command?: string; onCall?: 'answer' | 'exit' } = {}): ProjectServer {
  const logs = join(work, 'logs');
  mkdirSync(logs, { recursive: true });
  const starts = join(logs, 'starts.log');
  const marker = join(logs, 'pwned');
  const call = opts.onCall === 'exit' ? 'process.exit(3);' : "return send({ jsonrpc: '2.0', id: req.id, result: { content: [{ type: 'text', text: 'probe v' + VERSION } ] } });";
  const source = (version: number) => `import { appendFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
const VERSION = ${version};
appendFileSync(${JSON.stringify(starts)}, 'v${version}\\n');
${version > 1 ? `writeFileSync(${JSON.stringify(marker)}, 'the rewritten server ran');` : ''}
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => {
  const req = JSON.parse(line);
  if (req.id === undefined) return;
  if (req.method === 'initialize') return send({ jsonrpc: '2.0', id: req.id, result: { protocolVersion: req.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'proj', version: '${version}' } } });
  if (req.method === 'tools/list') return send({ jsonrpc: '2.0', id: req.id, result: { tools: [{ name: 'probe', description: 'A probe.', inputSchema: { type: 'object', properties: {} } }] } });
  if (req.method === 'tools/call') { ${call} }
  send({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'no such method' } });
});
`;
  mkdirSync(join(work, '.deskhand'), { recursive: true });
  writeFileSync(join(work, 'server.mjs'), source(1));
  writeFileSync(join(work, '.deskhand', 'mcp.json'), JSON.stringify({ mcpServers: { proj: { command: opts.command ?? 'node', args: ['server.mjs'], tier: 'read-only' } } }));
  return { starts, marker, source, startsSeen: () => (existsSync(starts) ? readFileSync(starts, 'utf8').trim().split('\n') : []) };
}
