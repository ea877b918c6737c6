/**
 * The page route's judgement: a request of Deskhand's pages to this machine or its network goes through only to a
 * destination a person approved in the conversation the page belongs to; a blocked navigation leaves the model a
 * note saying how to ask. The approvals are per conversation and also answer the egress proxy below every page.
 */
import { lookup } from 'node:dns/promises';
import type { Route } from 'playwright-core';
import { judgeDestination, parseWebUrl } from '../../../shared/url-guard';
import type { Session } from './browser-session';

export class RouteGuard {
  private readonly approvals = new Map<string, Set<string>>();
  private readonly dns = new Map<string, { at: number; addresses: string[] }>();

  /** `resolve`: how names resolve (tests map names to addresses; default: the system resolver, cached a minute). */
  constructor(private readonly resolver?: (host: string) => Promise<string[]>) {}

  approve(conversationId: string, key: string): void {
    let set = this.approvals.get(conversationId);
    if (!set) this.approvals.set(conversationId, (set = new Set()));
    set.add(key);
  }

  approved(conversationId: string, key: string): boolean {
    return this.approvals.get(conversationId)?.has(key) ?? false;
  }

  /** Whether any open conversation approved it (the egress proxy cannot tell whose page a connection is). */
  anyApproved(key: string): boolean {
    return [...this.approvals.values()].some((set) => set.has(key));
  }

  list(conversationId: string): string[] {
    return [...(this.approvals.get(conversationId) ?? [])];
  }

  forget(conversationId: string): void {
    this.approvals.delete(conversationId);
  }

  clear(): void {
    this.approvals.clear();
  }

  /**
   * One request, from the page of `session` (undefined: a request no conversation's page made, such as a service
   * worker's, which no approval covers). Records the origin for the discard at close.
   */
  async judge(route: Route, session: Session | undefined): Promise<void> {
    const url = route.request().url();
    const parsed = parseWebUrl(url);
    if (!parsed.ok) return route.continue();
    const { dest } = parsed;
    // Recorded for the discard at close (in Deskhand's own profile only; an adopted tab's browser is never cleared).
    session?.origins.add(new URL(url).origin);
    if (session && this.approved(session.conversationId, dest.key)) return route.continue();
    const findings = judgeDestination(dest, await this.resolve(dest.host));
    if (!findings.length) return route.continue();
    if (route.request().isNavigationRequest()) {
      session?.notes.push(
        `Navigation to ${url} was blocked: ${dest.key} is on this machine or its network (${findings.map((f) => f.detail).join('; ')}). ` +
          'Call browser_navigate with that URL: a person will be asked.',
      );
    }
    return route.abort('blockedbyclient');
  }

  private async resolve(host: string): Promise<string[]> {
    if (/^[\d.]+$|:/.test(host) || host === 'localhost') return [];
    if (this.resolver) return this.resolver(host).catch(() => []);
    const hit = this.dns.get(host);
    if (hit && Date.now() - hit.at < 60_000) return hit.addresses;
    const addresses = await lookup(host, { all: true })
      .then((r) => r.map((a) => a.address))
      .catch(() => []);
    this.dns.set(host, { at: Date.now(), addresses });
    return addresses;
  }
}
