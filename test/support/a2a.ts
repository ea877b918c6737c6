/**
 * The A2A SDK's own pieces for tests and benches: its client with a Bearer token, a text message as its types spell
 * it, and a sample-style server built with the SDK alone. No Deskhand code here (benches import it without the CLI kit).
 */
type ClientSdk = typeof import('@a2a-js/sdk/client');

/** The SDK's client for `url` (it fetches the agent card and picks the transport). */
export async function sdkClient(url: string) {
  const { ClientFactory } = (await import('@a2a-js/sdk/client')) as ClientSdk;
  return new ClientFactory().createFromUrl(url);
}

/** A SendMessageRequest of one text part, as the SDK's types spell it. */
export async function textMessage(text: string, contextId = '') {
  const { Role } = await import('@a2a-js/sdk');
  return {
    tenant: '',
    message: { messageId: `m-${Math.random().toString(36).slice(2)}`, contextId, taskId: '', role: Role.ROLE_USER, parts: [{ content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [], referenceTaskIds: [] },
    configuration: undefined,
    metadata: undefined,
  };
}

export const bearer = (token: string) => ({ serviceParameters: { Authorization: `Bearer ${token}` } });

/**
 * A sample-style A2A server built with the SDK alone (DefaultRequestHandler, an executor that answers at once,
 * JsonRpcTransportHandler on node:http): what Deskhand's client must reach. It records what it was sent and refuses a
 * request without `Authorization: Bearer <token>`. `interfaceUrl` makes its card name another address for its interface
 * (a card pointing elsewhere); `cardRedirect` answers the card's GET with a redirect there.
 */
export async function sdkSampleServer(token: string, answer: (text: string) => string, opts: { interfaceUrl?: (own: string) => string; cardRedirect?: string } = {}) {
  const { createServer } = await import('node:http');
  const sdk = await import('@a2a-js/sdk');
  const server = await import('@a2a-js/sdk/server');
  const received: { text: string; authorization: string | undefined }[] = [];
  /** Every request, the card's included: method and path. */
  const requests: string[] = [];
  const executor = {
    async execute(ctx: import('@a2a-js/sdk/server').RequestContext, bus: import('@a2a-js/sdk/server').ExecutionEventBus) {
      const text = ctx.userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
      const status = (state: number, reply?: string) => ({ state, timestamp: new Date().toISOString(), message: reply === undefined ? undefined : { messageId: 'r1', contextId: ctx.contextId, taskId: ctx.taskId, role: sdk.Role.ROLE_AGENT, parts: [{ content: { $case: 'text' as const, value: reply }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: undefined, extensions: [], referenceTaskIds: [] } });
      bus.publish(server.AgentEvent.task({ id: ctx.taskId, contextId: ctx.contextId, status: status(sdk.TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [ctx.userMessage], metadata: undefined }));
      bus.publish(server.AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: status(sdk.TaskState.TASK_STATE_COMPLETED, answer(text)), metadata: undefined }));
      bus.finished();
    },
    async cancelTask() {},
  };
  let rpc: InstanceType<typeof server.JsonRpcTransportHandler> | null = null;
  let card: import('@a2a-js/sdk').AgentCard | null = null;
  const http = createServer((req, res) => {
    void (async () => {
      requests.push(`${req.method} ${req.url}`);
      if (req.method === 'GET' && opts.cardRedirect) return res.writeHead(302, { location: opts.cardRedirect }).end();
      if (req.method === 'GET') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(card));
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { params?: { message?: { parts?: { text?: string; content?: { value?: string } }[] } } };
      received.push({ text: JSON.stringify(body.params?.message ?? {}), authorization: req.headers.authorization });
      if (req.headers.authorization !== `Bearer ${token}`) return res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      const out = await rpc!.handle(body as Record<string, unknown>, new server.ServerCallContext({ requestedVersion: '1.0' }));
      if (out && typeof (out as AsyncGenerator)[Symbol.asyncIterator] === 'function') {
        res.writeHead(200, sdk.SSE_HEADERS);
        for await (const ev of out as AsyncGenerator) res.write(sdk.formatSSEEvent(ev));
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  card = { name: 'sample', description: 'a sample agent', version: '1', supportedInterfaces: [{ url: opts.interfaceUrl ? opts.interfaceUrl(url) : `${url}/rpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }], provider: undefined, capabilities: { streaming: true, extensions: [] }, securitySchemes: {}, securityRequirements: [], defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [], signatures: [] };
  rpc = new server.JsonRpcTransportHandler(new server.DefaultRequestHandler(card, new server.InMemoryTaskStore(), executor));
  return { url, received, requests, close: () => new Promise<void>((resolve) => { http.closeAllConnections(); http.close(() => resolve()); }) };
}
