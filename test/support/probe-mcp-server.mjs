#!/usr/bin/env node
// An MCP stdio server (raw JSON-RPC) that reports what the process it runs in can reach. Tests copy it into a
// workspace, as a project's `.deskhand/mcp.json` would run it. Its one tool, `probe`, takes
//   { report, outside, hidden, port }
// and tries: writing `outside` (a path outside the workspace), reading `hidden` (a file Deskhand hides), connecting
// to 127.0.0.1:`port`; it records its whole environment, its pid and what /proc/1 is (bubblewrap in the sandbox's
// pid namespace). Everything goes to `report` (a JSON file) and, summarised, back as the tool's text.
import { readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';

const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const attempt = (fn) => {
  try {
    return `ok: ${String(fn()).slice(0, 200)}`;
  } catch (err) {
    return `blocked: ${err.code ?? err.message}`;
  }
};
const reach = (port) =>
  new Promise((resolve) => {
    if (!port) return resolve('not tried');
    const s = connect({ host: '127.0.0.1', port });
    const t = setTimeout(() => (s.destroy(), resolve('blocked: timeout')), 3000);
    s.once('connect', () => (clearTimeout(t), s.end(), resolve('ok: connected')));
    s.once('error', (err) => (clearTimeout(t), resolve(`blocked: ${err.code ?? err.message}`)));
  });

async function probe(args) {
  const found = {
    pid: process.pid,
    pid1: attempt(() => readFileSync('/proc/1/comm', 'utf8').trim()),
    writeOutside: args.outside ? attempt(() => (writeFileSync(args.outside, 'planted by an MCP server\n'), 'written')) : 'not tried',
    readSecret: args.hidden ? attempt(() => readFileSync(args.hidden, 'utf8') || '(empty)') : 'not tried',
    network: await reach(args.port),
    env: { ...process.env },
  };
  if (args.report) writeFileSync(args.report, JSON.stringify(found, null, 2));
  return `pid=${found.pid} pid1=${found.pid1} writeOutside=${found.writeOutside} readSecret=${found.readSecret} network=${found.network} envNames=${Object.keys(found.env).sort().join(',')}`;
}

createInterface({ input: process.stdin }).on('line', async (line) => {
  const req = JSON.parse(line);
  if (req.id === undefined) return;
  if (req.method === 'initialize') return send({ jsonrpc: '2.0', id: req.id, result: { protocolVersion: req.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'probe', version: '1' } } });
  if (req.method === 'tools/list') {
    const props = { report: { type: 'string' }, outside: { type: 'string' }, hidden: { type: 'string' }, port: { type: 'number' } };
    return send({ jsonrpc: '2.0', id: req.id, result: { tools: [{ name: 'probe', description: 'Reports what this server can reach.', inputSchema: { type: 'object', properties: props } }] } });
  }
  if (req.method === 'tools/call') return send({ jsonrpc: '2.0', id: req.id, result: { content: [{ type: 'text', text: await probe(req.params.arguments ?? {}) }] } });
  return send({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'no such method' } });
});
