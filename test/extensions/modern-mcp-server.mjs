#!/usr/bin/env node
// An MCP server on the SDK v2 (`@modelcontextprotocol/server`) over stdio, for tests of the 2026-07-28 revision.
// `--modern-only` refuses the older handshake (`initialize` is answered with "unsupported protocol version"), so only a
// client that speaks 2026-07-28 gets in. Tools:
//   echo   returns its text
//   book   asks the person for a form (elicitation as an `input_required` result, retried with the answer)
//   where  reads the client's roots (an embedded `roots/list` request)
//   slow   reports progress twice, then waits until the call is cancelled (logged as `cancelled`)
// Every request it handles is appended to $MCP_LOG with the revision its `_meta` envelope names (`protocolVersion`;
// null on an older-revision request, which carries none) and, for a retried call, the answers it carried.
import { appendFileSync } from 'node:fs';
import { McpServer, acceptedContent, fromJsonSchema, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const modernOnly = process.argv.includes('--modern-only');
const record = (entry) => {
  if (process.env.MCP_LOG) appendFileSync(process.env.MCP_LOG, `${JSON.stringify(entry)}\n`);
};
const seen = (ctx, tool, extra = {}) =>
  record({ tool, method: ctx.mcpReq.method, protocolVersion: ctx.mcpReq.envelope?.['io.modelcontextprotocol/protocolVersion'] ?? null, ...extra });

const object = (properties, required = []) => fromJsonSchema({ type: 'object', properties, required });

serveStdio(
  () => {
    const server = new McpServer({ name: 'modern', version: '2.4.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo', { description: 'Returns its text.', inputSchema: object({ text: { type: 'string' } }, ['text']) }, async ({ text }, ctx) => {
      seen(ctx, 'echo');
      return { content: [{ type: 'text', text: `echo: ${text}` }] };
    });
    server.registerTool('book', { description: 'Books a table.', inputSchema: object({}) }, async (_args, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'party');
      seen(ctx, 'book', { answer: answer ?? null });
      if (!answer) {
        const view = inputResponse(ctx.mcpReq.inputResponses, 'party');
        if (view.kind === 'elicit') return { content: [{ type: 'text', text: `not booked (${view.action})` }] };
        return inputRequired({
          inputRequests: {
            party: inputRequired.elicit({
              message: 'How many seats, and for whom?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' }, seats: { type: 'integer', minimum: 1, maximum: 10 } }, required: ['name', 'seats'] },
            }),
          },
        });
      }
      return { content: [{ type: 'text', text: `booked ${answer.seats} for ${answer.name}` }] };
    });
    server.registerTool('where', { description: 'Lists the roots.', inputSchema: object({}) }, async (_args, ctx) => {
      const roots = inputResponse(ctx.mcpReq.inputResponses, 'roots');
      seen(ctx, 'where', { roots: roots.kind === 'roots' ? roots.roots : null });
      if (roots.kind !== 'roots') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
      return { content: [{ type: 'text', text: `roots: ${roots.roots.map((r) => r.uri).join(', ')}` }] };
    });
    server.registerTool('slow', { description: 'Takes its time.', inputSchema: object({}) }, async (_args, ctx) => {
      seen(ctx, 'slow');
      const token = ctx.mcpReq._meta?.progressToken;
      for (const n of [1, 2]) {
        if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: n, total: 3, message: `step ${n}` } });
      }
      await new Promise((done) => ctx.mcpReq.signal.addEventListener('abort', done, { once: true }));
      record({ tool: 'slow', method: 'cancelled', protocolVersion: null });
      return { content: [{ type: 'text', text: 'stopped' }] };
    });
    return server;
  },
  { legacy: modernOnly ? 'reject' : 'serve', onerror: (err) => process.stderr.write(`${err.message}\n`) },
);
