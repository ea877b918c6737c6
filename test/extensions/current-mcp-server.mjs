#!/usr/bin/env node
// A real MCP server (the SDK's Server over stdio) using the current revision's client features, for tests:
//   book         asks the person for a form (elicitation, form mode) and says what it got
//   sign_in      asks the person to open a URL (elicitation, URL mode)
//   ask_password asks for a password in a form (Deskhand must decline it)
//   where        reads the client's roots (roots/list) and lists them
//   weather      has an outputSchema and returns structuredContent (bad_weather returns one that does not fit)
//   wipe / peek  annotated destructive / read-only
//   slow         reports progress, then waits until cancelled
//   link         returns a resource link to fixture://doc (readable with resources/read)
//   view_only    an MCP Apps tool only its view may call (_meta.ui.visibility ["app"]); with_view: model and app
// Every message it receives (requests, notifications, answers to its own requests) is appended to $MCP_LOG.
import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const log = (entry) => process.env.MCP_LOG && appendFileSync(process.env.MCP_LOG, `${JSON.stringify(entry)}\n`);
const server = new Server({ name: 'current-fixture', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
const empty = { type: 'object', properties: {} };
const weatherSchema = { type: 'object', properties: { city: { type: 'string' }, celsius: { type: 'number' } }, required: ['city', 'celsius'] };

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: 'book', description: 'Book seats.', inputSchema: empty },
    { name: 'sign_in', description: 'Sign in.', inputSchema: empty },
    { name: 'ask_password', description: 'Ask for a password.', inputSchema: empty },
    { name: 'where', description: 'List roots.', inputSchema: empty },
    { name: 'weather', description: 'Weather.', inputSchema: empty, outputSchema: weatherSchema },
    { name: 'bad_weather', description: 'Weather, wrong shape.', inputSchema: empty, outputSchema: weatherSchema },
    { name: 'wipe', description: 'Wipe.', inputSchema: empty, annotations: { destructiveHint: true, readOnlyHint: false } },
    { name: 'peek', description: 'Peek.', inputSchema: empty, annotations: { readOnlyHint: true, openWorldHint: false } },
    { name: 'slow', description: 'Slow.', inputSchema: empty },
    { name: 'link', description: 'Link.', inputSchema: empty },
    { name: 'view_only', description: 'Called by its view.', inputSchema: empty, _meta: { ui: { resourceUri: 'ui://cur/view.html', visibility: ['app'] } } },
    { name: 'with_view', description: 'Has a view.', inputSchema: empty, _meta: { ui: { resourceUri: 'ui://cur/view.html', visibility: ['model', 'app'] } } },
  ],
}));

server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [{ uri: 'fixture://doc', name: 'doc' }] }));
server.setRequestHandler(ReadResourceRequestSchema, (req) => ({ contents: [{ uri: req.params.uri, mimeType: 'text/plain', text: 'THE-LINKED-DOCUMENT' }] }));
server.setNotificationHandler(RootsListChangedNotificationSchema, () => undefined);

const text = (t) => ({ content: [{ type: 'text', text: t }] });
server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  switch (req.params.name) {
    case 'book': {
      const r = await server.elicitInput(
        {
          mode: 'form',
          message: 'How many seats, and for whom?',
          requestedSchema: {
            type: 'object',
            properties: { name: { type: 'string', title: 'Name', minLength: 1 }, seats: { type: 'integer', minimum: 1, maximum: 10 }, meal: { type: 'string', enum: ['veg', 'fish'] } },
            required: ['name', 'seats'],
          },
        },
        { timeout: 600_000 },
      );
      log({ elicitResult: r });
      return text(r.action === 'accept' ? `booked ${r.content.seats} seats for ${r.content.name}` : `not booked (${r.action})`);
    }
    case 'sign_in': {
      const r = await server.elicitInput({ mode: 'url', message: 'Sign in to continue.', url: 'https://auth.example.com/start?session=abc', elicitationId: 'el-1' }, { timeout: 600_000 });
      log({ elicitResult: r });
      return text(`sign-in ${r.action}`);
    }
    case 'ask_password': {
      const r = await server.elicitInput({ mode: 'form', message: 'Your password', requestedSchema: { type: 'object', properties: { password: { type: 'string' } }, required: ['password'] } });
      log({ elicitResult: r });
      return text(`password ${r.action}`);
    }
    case 'where': {
      const r = await server.listRoots();
      return text(`roots: ${r.roots.map((x) => x.uri).join(' ')}`);
    }
    case 'weather':
      return { content: [{ type: 'text', text: 'Sunny in Oslo' }], structuredContent: { city: 'Oslo', celsius: 21 } };
    case 'bad_weather':
      return { content: [{ type: 'text', text: 'Sunny' }], structuredContent: { city: 'Oslo', celsius: 'warm' } };
    case 'wipe':
      return text('wiped');
    case 'peek':
      return text('peeked');
    case 'slow': {
      const token = req.params._meta?.progressToken;
      for (const n of [1, 2]) if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: n, total: 3, message: `step ${n}` } });
      await new Promise((done) => {
        const t = setTimeout(done, 60_000);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(t);
          done();
        });
      });
      return text('slow done');
    }
    case 'link':
      return { content: [{ type: 'resource_link', uri: 'fixture://doc', name: 'doc' }] };
    default:
      return { content: [{ type: 'text', text: 'no such tool' }], isError: true };
  }
});

const transport = new StdioServerTransport();
await server.connect(transport);
const received = transport.onmessage;
transport.onmessage = (message) => {
  log({ received: message });
  received?.(message);
};
