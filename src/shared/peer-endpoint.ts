/**
 * A peer's endpoint in the URL guard's words, apart from the client (services/peers/peer-client.ts) so that what
 * ask_peer's effects and approval need does not load the HTTP stack (`policy explain` stays light;
 * test/cli/cli-import-cost.test.ts).
 */
import { classifyHost, parseWebUrl, type Destination } from './url-guard';

/**
 * A peer's endpoint as the URL guard judges it: the destination and, for an endpoint on this machine or its network
 * (which only the person can configure), what it is. Throws with what to fix for an endpoint that is not http(s).
 */
export function judgeEndpoint(peer: string, endpoint: string): { dest: Destination; privateKind: string | null } {
  const parsed = parseWebUrl(endpoint);
  if (!parsed.ok) throw new Error(`Peer ${peer}'s endpoint ${endpoint.slice(0, 200)}: ${parsed.reason} (deskhand peers add ${peer} --endpoint URL)`);
  return { dest: parsed.dest, privateKind: classifyHost(parsed.dest.host)?.detail ?? null };
}

/** How an approval names where ask_peer sends: the endpoint's origin, and what it is when it is not a public address. */
export function endpointWords(peer: string, endpoint: string): string {
  try {
    const { dest, privateKind } = judgeEndpoint(peer, endpoint);
    return `${dest.url.origin}${privateKind ? ` (${privateKind})` : ''}`;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
