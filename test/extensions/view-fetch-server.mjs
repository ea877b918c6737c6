#!/usr/bin/env node
// An MCP Apps server on the SDK v2 over stdio, for the view policy's tests. Its tool `show` has a view whose resource
// declares one origin it connects to (`_meta.ui.csp.connectDomains`: $DECLARED). On load the view fetches $DECLARED
// and $UNDECLARED (each a local listener) and writes what happened into #declared and #undeclared: "ok <body>" or
// "blocked". It also fetches the origin of the page that shows it (the top of `location.ancestorOrigins`, written into
// #ui-origin) into #ui, and tries to read its parent's document into #parent ("no access" when refused).
import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const URI = 'ui://fetch/view.html';
const declared = process.env.DECLARED ?? '';
const undeclared = process.env.UNDECLARED ?? '';
const view = `<!doctype html><html><body><p>Declared: <span id="declared">pending</span></p><p>Undeclared: <span id="undeclared">pending</span></p><p>UI (<span id="ui-origin"></span>): <span id="ui">pending</span></p><p>Parent: <span id="parent">pending</span></p><script>
for (const [id, url] of [['declared', ${JSON.stringify(`${declared}/from-view`)}], ['undeclared', ${JSON.stringify(`${undeclared}/from-view`)}]]) {
  fetch(url).then((r) => r.text()).then((t) => { document.getElementById(id).textContent = 'ok ' + t; }, () => { document.getElementById(id).textContent = 'blocked'; });
}
const ancestors = location.ancestorOrigins ?? [];
const ui = ancestors.length ? ancestors[ancestors.length - 1] : '';
document.getElementById('ui-origin').textContent = ui;
fetch(ui + '/from-view').then(() => { document.getElementById('ui').textContent = 'ok'; }, () => { document.getElementById('ui').textContent = 'blocked'; });
try { document.getElementById('parent').textContent = 'read ' + window.parent.document.title; } catch { document.getElementById('parent').textContent = 'no access'; }
</script></body></html>`;

serveStdio(() => {
  const server = new McpServer({ name: 'view-fetch', version: '1' }, { capabilities: { tools: {}, resources: {} } });
  server.registerTool('show', { description: 'Shows a view.', inputSchema: fromJsonSchema({ type: 'object', properties: {} }), _meta: { ui: { resourceUri: URI } } }, async () => ({
    content: [{ type: 'text', text: 'shown' }],
  }));
  server.registerResource('view', URI, { mimeType: 'text/html;profile=mcp-app' }, async () => ({
    contents: [{ uri: URI, mimeType: 'text/html;profile=mcp-app', text: view, _meta: { ui: { csp: { connectDomains: [declared] } } } }],
  }));
  return server;
});
