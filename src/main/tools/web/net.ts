/**
 * What the three web tools share: their effects (URLs, the addresses each host resolves to now, egress), the private
 * destinations a call may reach (what the person approved, or a URL grant naming that exact host and port), and the
 * request preview shown in the approval card.
 */
import { clearedDestinations, grantFor, isIpLiteral, judgeDestination, parseWebUrl } from '../../../shared/url-guard';
import type { Effects, ToolContext } from '../../runtime/tool';
import type { HttpService } from '../../services/http/index';

/** How long the decision waits for DNS; a host not resolved by then is judged by name (and again at connect). */
const RESOLVE_FOR_DECISION_MS = 3000;

export async function urlEffects(http: HttpService, urls: readonly string[], extra: Partial<Effects> = {}): Promise<Effects> {
  const addresses: Record<string, string[]> = {};
  await Promise.all(
    urls.map(async (raw) => {
      const parsed = parseWebUrl(raw);
      if (!parsed.ok || isIpLiteral(parsed.dest.host)) return;
      const found = await withTimeout(http.resolve(parsed.dest.host), RESOLVE_FOR_DECISION_MS).catch(() => null);
      if (found?.length) addresses[parsed.dest.host] = found;
    }),
  );
  return { urls, addresses, egress: true, network: true, ...extra };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | null> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => resolve(null), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e: unknown) => (clearTimeout(t), reject(e)),
    );
  });
}

/**
 * The private destinations this call may reach: those a person saw and approved (with the addresses they saw), and
 * the first hop when a URL grant names its exact host and port (grants are read again now: a revoked one no longer
 * covers). Everything else private is refused at connect time.
 */
export function allowedPrivate(ctx: ToolContext, url: string, grants: readonly string[]): Map<string, Set<string> | null> {
  const allowed = ctx.approvedByPerson ? clearedDestinations(ctx.decisionReasons ?? []) : new Map<string, Set<string> | null>();
  const parsed = parseWebUrl(url);
  if (parsed.ok && !allowed.has(parsed.dest.key) && grantFor(grants, parsed.dest, true)) {
    allowed.set(parsed.dest.key, null);
  }
  return allowed;
}

/**
 * The redirect rule of a call a URL grant cleared: when no person approved the call and a grant covers its first URL,
 * every hop must be covered by a grant too (scheme, host, port and path, as for the first URL; a private hop only by a
 * grant naming its exact host and port) — a grant for https://host/docs/* does not reach https://host/admin by a
 * redirect. Grants are read again at each hop. Undefined when the call was not cleared by a grant (a person saw it,
 * or the policy cleared it without one): its hops are judged as before (private ones refused unless approved).
 */
export function grantHops(ctx: ToolContext, url: string, grants: () => readonly string[]): ((hop: string) => string | null) | undefined {
  if (ctx.approvedByPerson) return undefined;
  const first = parseWebUrl(url);
  if (!first.ok) return undefined;
  const firstGrant = grantFor(grants(), first.dest, false) ?? grantFor(grants(), first.dest, true);
  if (!firstGrant) return undefined;
  return (hop) => {
    const parsed = parseWebUrl(hop);
    if (!parsed.ok) return parsed.reason;
    const isPrivate = judgeDestination(parsed.dest, []).length > 0;
    if (grantFor(grants(), parsed.dest, isPrivate)) return null;
    return `the call ran unattended because the URL grant ${firstGrant} covers ${first.dest.url.origin}${first.dest.url.pathname}, and no URL grant covers ${parsed.dest.url.origin}${parsed.dest.url.pathname}, so the redirect is not followed`;
  };
}

/** The approval card's body for a network call: method, full URL, headers (placeholders as they are), body. */
export function requestPreview(method: string, url: string, headers: Record<string, string> = {}, body?: string): string {
  const lines = [`${method.toUpperCase()} ${url}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body !== undefined && body !== '') {
    const shown = body.length > 20_000 ? `${body.slice(0, 20_000)}\n[… ${body.length - 20_000} more characters]` : body;
    lines.push('', shown);
  }
  return lines.join('\n');
}

/** A line for the model when a redirect was not followed. */
export function stoppedNote(tool: string, stopped: { to: string; reason: string }): string {
  return `Redirect to ${stopped.to} was not followed: ${stopped.reason}. To fetch it, call ${tool} with that URL (a person will be asked when it needs approval).`;
}
