/**
 * Sites whose sign-in the browser keeps (Settings → Browser, `browser.keepSignedIn`): `browser_close` discards every
 * other site's cookies and storage. A site is a host name (`example.com` covers `www.example.com` and every other
 * subdomain) or an IP address; ports do not matter (cookies ignore them). Pure: shared by the settings schema, the
 * Settings page and the browser service.
 */

const HOST = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?:\.(?!-)[a-z0-9-]{1,63})*$/;

/** A person's spelling (`https://Mail.Example.com/inbox`, `.example.com`, `example.com:443`) as the site it names, or why it is none. */
export function parseKeptSite(input: string): { ok: true; site: string } | { ok: false; reason: string } {
  let s = input.trim().toLowerCase();
  if (!s) return { ok: false, reason: 'empty' };
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(s)) {
    try {
      s = new URL(s).hostname;
    } catch {
      return { ok: false, reason: `"${input.trim()}" is not a URL or host name` };
    }
  }
  s = s.replace(/^\.+/, '').replace(/\/.*$/, '').replace(/:\d+$/, '').replace(/\.$/, '');
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  if (/^[0-9a-f:]+$/.test(s) && s.includes(':')) return { ok: true, site: s };
  if (!HOST.test(s)) return { ok: false, reason: `"${input.trim()}" is not a host name such as example.com` };
  if (!s.includes('.') && s !== 'localhost') return { ok: false, reason: `"${input.trim()}" names no site: give a host name such as example.com` };
  return { ok: true, site: s };
}

/** Whether a cookie's or an origin's host belongs to a kept site (the site itself or a subdomain of it). */
export function isKeptHost(host: string, kept: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/^\.+/, '').replace(/^\[|\]$/g, '');
  return kept.some((k) => h === k || h.endsWith(`.${k}`));
}
