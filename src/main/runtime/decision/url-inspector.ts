/**
 * The url-guard inspector: every URL a call declares is judged by the shared URL rules (src/shared/url-guard.ts).
 * Schemes other than http/https are refused; a destination on the person's own machine or network (by its literal
 * address in any spelling, by name, or by what its name resolved to) asks under every policy, unless a URL grant names
 * that exact host and port; a call whose every URL is covered by a grant runs unattended. The reason recorded for a
 * private destination lists the addresses the person approves, which the HTTP service pins at connect time.
 */
import { grantFor, judgeDestination, parseWebUrl, privateReason } from '../../../shared/url-guard';
import type { Inspector, InspectorReport } from './inspector';

export const urlGuard: Inspector = {
  name: 'url-guard',
  inspect({ effects, urlGrants }): InspectorReport {
    const urls = effects.urls ?? [];
    if (!urls.length) return { inspector: 'url-guard', verdict: 'pass', reasons: [] };
    const reasons: string[] = [];
    const refused: string[] = [];
    let ask = false;
    let allGranted = true;
    for (const raw of urls) {
      // `urls` may carry the method first ("POST https://…"); the destination is the URL.
      const parsed = parseWebUrl(raw.replace(/^[A-Z]{3,10} (?=\S)/, ''));
      if (!parsed.ok) {
        refused.push(parsed.reason);
        continue;
      }
      const { dest } = parsed;
      const resolved = effects.addresses?.[dest.host] ?? [];
      const findings = judgeDestination(dest, resolved);
      const grant = grantFor(urlGrants ?? [], dest, findings.length > 0);
      if (!grant) allGranted = false;
      if (findings.length && grant) {
        reasons.push(`${dest.key} is private (${findings.map((f) => f.detail).join('; ')}), and the URL grant ${grant} names that exact host and port`);
      } else if (findings.length) {
        ask = true;
        const approved = resolved.length ? resolved : /^[\d.]+$|:/.test(dest.host) ? [dest.host] : [];
        reasons.push(privateReason(dest, approved, findings));
      } else if (grant) {
        reasons.push(`${dest.url.origin}${dest.url.pathname} is covered by the URL grant ${grant}`);
      } else {
        reasons.push(`${dest.url.origin} is a public destination${resolved.length ? ` (${resolved.join(', ')})` : ''}`);
      }
    }
    if (refused.length) return { inspector: 'url-guard', verdict: 'deny', reasons: refused };
    if (ask) {
      reasons.push('a destination on this machine or its network asks under every policy (only a URL grant naming that exact host and port covers it): always asks');
      return { inspector: 'url-guard', verdict: 'ask', reasons };
    }
    if (allGranted) return { inspector: 'url-guard', verdict: 'allow', reasons, urlGranted: true };
    return { inspector: 'url-guard', verdict: 'pass', reasons };
  },
};
