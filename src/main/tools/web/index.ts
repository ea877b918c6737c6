/**
 * The web family: web_search, web_fetch and http_request. All three are egress; web_fetch and http_request declare
 * their URLs (judged by the url-guard inspector, with the addresses each host resolves to) and reach the network only
 * through the pinned HTTP service, which checks every connection and redirect again.
 */
import type { SearchSettings } from '../../../shared/contract';
import type { ToolDefinition } from '../../runtime/tool';
import type { HttpService } from '../../services/http/index';
import type { PdfReader } from '../../services/pdf/index';
import { createHttpRequest } from './http-request';
import { createWebFetch } from './web-fetch';
import { createWebSearch, type SearchKeys } from './web-search';
import { allowedPrivate, grantHops, urlEffects } from './net';
import type { Effects, ToolContext } from '../../runtime/tool';

export interface WebDeps {
  http: HttpService;
  /** The person's URL grant patterns, read at each call. */
  urlGrants: () => readonly string[];
  /** The configured search backend (Settings / `deskhand search set`), read at each call. */
  search: () => SearchSettings | null;
  /** Search API keys from the vault. */
  keys: SearchKeys | null;
  /** web_fetch's time cap (tests shorten it). */
  fetchTimeoutMs?: number;
  /** The PDF reader web_fetch reads a fetched PDF's first pages with (absent: it names read_pdf only). */
  pdf?: PdfReader;
}

/** The web family's URL guards, for other families that fetch (read_pdf with a URL): passed on by the host. */
export interface WebNet {
  http: HttpService;
  urlGrants: () => readonly string[];
  urlEffects(urls: readonly string[]): Promise<Effects>;
  allowPrivate(ctx: ToolContext, url: string): Map<string, Set<string> | null>;
  /** The redirect rule of a call a URL grant cleared (net.ts grantHops): undefined when the call was not cleared by a grant. */
  hopCheck(ctx: ToolContext, url: string): ((hop: string) => string | null) | undefined;
}

export function createWebFamily(deps: WebDeps): { tools: ToolDefinition[]; net: WebNet } {
  return {
    net: {
      http: deps.http,
      urlGrants: deps.urlGrants,
      urlEffects: (urls) => urlEffects(deps.http, urls),
      allowPrivate: (ctx, url) => allowedPrivate(ctx, url, deps.urlGrants()),
      hopCheck: (ctx, url) => grantHops(ctx, url, deps.urlGrants),
    },
    tools: [
      createWebSearch(deps),
      createWebFetch({ http: deps.http, urlGrants: deps.urlGrants, ...(deps.fetchTimeoutMs ? { timeoutMs: deps.fetchTimeoutMs } : {}), ...(deps.pdf ? { pdf: deps.pdf } : {}) }),
      createHttpRequest(deps),
    ] as unknown as ToolDefinition[],
  };
}
