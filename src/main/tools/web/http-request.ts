/**
 * http_request: one API call (any method, headers, body) through the pinned HTTP client; the response comes back
 * structured (status, headers, JSON or text). Saved secrets go only into header values as `[redacted:NAME]` and reach
 * only the origin the person approved (custom headers are dropped on a redirect to another origin). No cookies kept.
 */
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import { DestinationRefused, type HttpService } from '../../services/http/index';
import { decodeBody } from './extract';
import { allowedPrivate, grantHops, requestPreview, stoppedNote, urlEffects } from './net';

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMEOUT_MS = 120_000;
export const HTTP_MAX_BYTES = 2 * 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

const params = () => z
  .object({
    method: z.enum(METHODS).describe('The HTTP method.'),
    url: z.string().min(1).max(8192).describe('The full http(s) URL, query string included.'),
    headers: z
      .record(z.string().min(1).max(256), z.string().max(16_384))
      .optional()
      .describe('Request headers. A saved secret may be used only here, as [redacted:NAME] (load it with use_saved_secret first).'),
    body: z.string().max(10_000_000).optional().describe('The request body as text.'),
    json: z.unknown().optional().describe('A JSON body (sent with Content-Type: application/json). Use either body or json.'),
    timeout_ms: z.number().int().min(1000).max(MAX_TIMEOUT_MS).optional().describe(`Timeout for the whole exchange (default ${DEFAULT_TIMEOUT_MS}).`),
  })
  .strict();

type Args = z.infer<ReturnType<typeof params>>;

function bodyOf(args: Args): { body?: string; headers: Record<string, string> } {
  const headers = { ...(args.headers ?? {}) };
  if (args.body !== undefined && args.json !== undefined) throw new ToolError('Give either body or json, not both.');
  if (args.json === undefined) return { ...(args.body !== undefined ? { body: args.body } : {}), headers };
  if (!Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  return { body: JSON.stringify(args.json), headers };
}

export function createHttpRequest(deps: { http: HttpService; urlGrants: () => readonly string[] }) {
  return defineTool({
    name: 'http_request',
    description:
      'Send one HTTP request to an API (any method, headers, body or json) and get the response back structured: status, headers, ' +
      'and the body as JSON when it is JSON, else as text. For reading web pages use web_fetch. A saved secret may go only into a ' +
      'header value, as [redacted:NAME]. Redirects to another origin drop custom headers and never carry the body. No cookies are kept.',
    params,
    risk: 'high-risk',
    disclosure: 'private',
    facts: { loadsWith: 'http', sendsOut: true },
    effects: (args) => urlEffects(deps.http, [args.url], { secretArgs: ['headers'] }),
    pair: {
      executeName: 'execute_http_request',
      propose: async (args) => {
        const { body, headers } = bodyOf(args);
        return { description: `${args.method} ${args.url}`, preview: requestPreview(args.method, args.url, headers, body) };
      },
    },
    presentation: { title: 'Send an HTTP request', icon: 'web', summary: (args) => `${args.method} ${args.url}` },
    timeoutMs: MAX_TIMEOUT_MS + 5_000,
    async execute(args, ctx) {
      const { body, headers } = bodyOf(args);
      let res;
      try {
        res = await deps.http.request({
          method: args.method,
          url: args.url,
          headers,
          ...(body !== undefined ? { body } : {}),
          maxBytes: HTTP_MAX_BYTES,
          timeoutMs: args.timeout_ms ?? DEFAULT_TIMEOUT_MS,
          signal: ctx.signal,
          allowPrivate: allowedPrivate(ctx, args.url, deps.urlGrants()),
          hopCheck: grantHops(ctx, args.url, deps.urlGrants),
        });
      } catch (err) {
        if (DestinationRefused.isInstance(err)) throw new ToolError(`Not sent: ${err.message}`);
        throw new ToolError(`${args.method} ${args.url} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      const type = res.headers['content-type'] ?? '';
      const out: Record<string, unknown> = { status: res.status, url: res.url, headers: res.headers };
      if (res.redirects.length) out.redirects = res.redirects;
      if (res.stoppedRedirect) out.redirect_not_followed = { ...res.stoppedRedirect, note: stoppedNote('http_request', res.stoppedRedirect) };
      if (res.cut) out.truncated = res.cut === 'bytes' ? `cut at ${HTTP_MAX_BYTES} bytes` : 'cut at the timeout while the body was still arriving';
      if (res.body.length) {
        const textual = /json|text|xml|javascript|x-www-form-urlencoded|csv|yaml/i.test(type) || !type;
        const { text } = decodeBody(res.body, type);
        if (/json/i.test(type) && !res.cut) {
          try {
            out.json = JSON.parse(text) as unknown;
          } catch {
            out.body = text;
          }
        } else if (textual) {
          out.body = text;
        } else {
          out.body_base64 = res.body.subarray(0, 256 * 1024).toString('base64');
          out.body_bytes = res.body.length;
        }
      }
      return { output: JSON.stringify(out, null, 2), untrustedSource: `http_request ${res.url}` };
    },
  });
}
