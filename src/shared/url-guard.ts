/**
 * The URL rules every network tool shares (web_search, web_fetch, http_request, and later the browser): only http
 * and https; destinations on the person's own machine or network — loopback, private, link-local, CGNAT, multicast,
 * unspecified, IPv4-mapped IPv6, cloud metadata — recognised in every spelling; URL grant patterns.
 *
 * Spellings: the WHATWG URL parser (Node's and every browser's) already turns decimal, octal, hex and short IPv4
 * forms (`2130706433`, `0177.1`, `0x7f.1`, `127.1`) into dotted quads and compresses IPv6, so everything here judges
 * the parsed host: the same host the HTTP client will connect to. Pure TypeScript: the approval engine (decision
 * time) and the HTTP service (connect time, on the resolved address) both use it.
 */

export type AddressKind =
  | 'loopback'
  | 'private network'
  | 'link-local'
  | 'carrier-grade NAT'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'cloud metadata'
  | 'IPv4-mapped IPv6'
  | 'local name';

export interface PrivateFinding {
  kind: AddressKind;
  /** What was judged, in words: "127.0.0.1 is loopback". */
  detail: string;
}

export interface Destination {
  url: URL;
  /** Host without IPv6 brackets, lower case, no trailing dot. */
  host: string;
  port: number;
  /** `host:port` (IPv6 in brackets): what a grant or an approval clears. */
  key: string;
}

const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '169.254.169.123', '100.100.100.200', '192.0.0.192']);
const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.internal']);
const LOCAL_SUFFIXES = ['.localhost', '.local', '.localdomain', '.internal', '.home.arpa', '.lan', '.intranet', '.corp'];
const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback', 'localhost.localdomain']);
/** Public wildcard-DNS services that answer with the address spelled in the name (`127.0.0.1.nip.io`). */
const ECHO_DNS = ['nip.io', 'sslip.io', 'xip.io', 'traefik.me', 'backname.io'];
/** Names that always resolve to loopback. */
const LOOPBACK_DNS = ['localtest.me', 'lvh.me', 'vcap.me', 'lacolhost.com', 'fbi.com'];

/** Parses an http(s) URL; anything else is refused with a reason the model can act on. */
export function parseWebUrl(raw: string): { ok: true; dest: Destination } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `"${raw.slice(0, 200)}" is not a valid URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `${url.protocol.replace(/:$/, '')}: URLs are not allowed (http and https only)` };
  }
  const host = bareHost(url.hostname);
  if (!host) return { ok: false, reason: `"${raw.slice(0, 200)}" has no host` };
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { ok: true, dest: { url, host, port, key: destinationKey(host, port) } };
}

export function destinationKey(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
}

// ── Addresses ────────────────────────────────────────────────────────────────────────────────────────────────────

function parseV4(text: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

/** Eight 16-bit groups, or null. Accepts `::`, and a trailing dotted quad (`::ffff:127.0.0.1`). */
function parseV6(text: string): number[] | null {
  let s = text.replace(/^\[|\]$/g, '').toLowerCase();
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return null;
  const tailV4 = /(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(s);
  if (tailV4) {
    const v4 = parseV4(tailV4[1]!);
    if (!v4) return null;
    s = `${s.slice(0, -tailV4[1]!.length)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0 || (halves.length === 1 && head.length !== 8)) return null;
  const all = [...head, ...Array<string>(fill).fill('0'), ...tail];
  if (all.length !== 8 || !all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
}

function inV4(a: number[], base: [number, number, number, number], bits: number): boolean {
  const n = (a[0]! << 24) | (a[1]! << 16) | (a[2]! << 8) | a[3]!;
  const b = (base[0] << 24) | (base[1] << 16) | (base[2] << 8) | base[3];
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) | 0;
  return (n & mask) === (b & mask);
}

function classifyV4(a: number[]): AddressKind | null {
  const text = a.join('.');
  if (METADATA_V4.has(text)) return 'cloud metadata';
  if (inV4(a, [0, 0, 0, 0], 8)) return 'unspecified';
  if (inV4(a, [127, 0, 0, 0], 8)) return 'loopback';
  if (inV4(a, [10, 0, 0, 0], 8) || inV4(a, [172, 16, 0, 0], 12) || inV4(a, [192, 168, 0, 0], 16)) return 'private network';
  if (inV4(a, [169, 254, 0, 0], 16)) return 'link-local';
  if (inV4(a, [100, 64, 0, 0], 10)) return 'carrier-grade NAT';
  if (inV4(a, [224, 0, 0, 0], 4)) return 'multicast';
  if (text === '255.255.255.255') return 'broadcast';
  if (
    inV4(a, [240, 0, 0, 0], 4) ||
    inV4(a, [192, 0, 0, 0], 24) ||
    inV4(a, [192, 0, 2, 0], 24) ||
    inV4(a, [198, 51, 100, 0], 24) ||
    inV4(a, [203, 0, 113, 0], 24) ||
    inV4(a, [198, 18, 0, 0], 15) ||
    inV4(a, [192, 88, 99, 0], 24)
  )
    return 'reserved';
  return null;
}

function embeddedV4(g: number[]): number[] {
  return [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255];
}

function classifyV6(g: number[]): { kind: AddressKind; via?: string } | null {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (g.every((x) => x === 0)) return { kind: 'unspecified' };
  if (zeroUpTo(7) && g[7] === 1) return { kind: 'loopback' };
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (translated), ::a.b.c.d (compatible): another spelling of IPv4.
  if ((zeroUpTo(5) && g[5] === 0xffff) || (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) || zeroUpTo(6)) {
    return { kind: 'IPv4-mapped IPv6', via: embeddedV4(g).join('.') };
  }
  // NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and 6to4 (2002::/16) carry an IPv4 address a gateway will reach.
  if ((g[0] === 0x64 && g[1] === 0xff9b) || g[0] === 0x2002) {
    const v4 = g[0] === 0x2002 ? [g[1]! >> 8, g[1]! & 255, g[2]! >> 8, g[2]! & 255] : embeddedV4(g);
    const inner = classifyV4(v4);
    return inner ? { kind: inner, via: v4.join('.') } : null;
  }
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) return { kind: 'cloud metadata' };
  if ((g[0]! & 0xfe00) === 0xfc00) return { kind: 'private network' };
  if ((g[0]! & 0xffc0) === 0xfe80 || (g[0]! & 0xffc0) === 0xfec0) return { kind: 'link-local' };
  if ((g[0]! & 0xff00) === 0xff00) return { kind: 'multicast' };
  if ((g[0] === 0x2001 && g[1] === 0x0db8) || (g[0] === 0x0100 && g.slice(1, 4).every((x) => x === 0)) || (g[0] === 0x2001 && g[1] === 0)) {
    return { kind: 'reserved' };
  }
  return null;
}

/** Whether an IP address (v4 dotted or v6) is on the person's side; null for a public address or not an address. */
export function classifyAddress(address: string): PrivateFinding | null {
  const v4 = parseV4(address);
  if (v4) {
    const kind = classifyV4(v4);
    return kind ? { kind, detail: `${address} is ${describe(kind)}` } : null;
  }
  const v6 = parseV6(address);
  if (!v6) return null;
  const c = classifyV6(v6);
  if (!c) return null;
  if (c.kind === 'IPv4-mapped IPv6') {
    const inner = c.via ? classifyV4(parseV4(c.via)!) : null;
    return { kind: c.kind, detail: `${address} is an IPv4-mapped IPv6 address (${c.via}${inner ? `, ${describe(inner)}` : ''})` };
  }
  return { kind: c.kind, detail: `${address} is ${describe(c.kind)}${c.via ? ` (it carries ${c.via})` : ''}` };
}

export function isIpLiteral(host: string): boolean {
  return parseV4(host) !== null || parseV6(host) !== null;
}

function describe(kind: AddressKind): string {
  switch (kind) {
    case 'loopback':
      return 'a loopback address (this machine)';
    case 'private network':
      return 'a private-network address';
    case 'link-local':
      return 'a link-local address';
    case 'carrier-grade NAT':
      return 'a carrier-grade NAT (100.64.0.0/10) address';
    case 'multicast':
      return 'a multicast address';
    case 'unspecified':
      return 'the unspecified address (reaches this machine)';
    case 'broadcast':
      return 'the broadcast address';
    case 'reserved':
      return 'a reserved address';
    case 'cloud metadata':
      return 'a cloud metadata endpoint';
    case 'IPv4-mapped IPv6':
      return 'an IPv4-mapped IPv6 address';
    case 'local name':
      return 'a name on the local network';
  }
}

/** A destination judged by its host alone (literal addresses, local and metadata names, echo-DNS names). */
export function classifyHost(host: string): PrivateFinding | null {
  const h = bareHost(host);
  if (isIpLiteral(h)) return classifyAddress(h);
  if (LOOPBACK_NAMES.has(h) || h.endsWith('.localhost')) return { kind: 'loopback', detail: `${h} names this machine (loopback)` };
  if (METADATA_NAMES.has(h)) return { kind: 'cloud metadata', detail: `${h} is a cloud metadata endpoint` };
  if (!h.includes('.')) return { kind: 'local name', detail: `${h} is a single-label name, resolved on the local network` };
  const suffix = LOCAL_SUFFIXES.find((s) => h.endsWith(s));
  if (suffix) return { kind: 'local name', detail: `${h} is a local-network name (${suffix})` };
  if (LOOPBACK_DNS.some((d) => h === d || h.endsWith(`.${d}`))) return { kind: 'loopback', detail: `${h} always resolves to loopback` };
  const echo = ECHO_DNS.find((d) => h.endsWith(`.${d}`));
  if (echo) {
    const label = h.slice(0, -(echo.length + 1));
    const m = /(\d{1,3})[.-](\d{1,3})[.-](\d{1,3})[.-](\d{1,3})$/.exec(label);
    const spelled = m ? m.slice(1).join('.') : null;
    const inner = spelled ? classifyAddress(spelled) : null;
    if (inner) return { kind: inner.kind, detail: `${h} resolves to the address it spells: ${inner.detail}` };
  }
  return null;
}

/** Everything private about a destination: its host, and the addresses it resolved to (when known). */
export function judgeDestination(dest: Destination, addresses: readonly string[] = []): PrivateFinding[] {
  const out: PrivateFinding[] = [];
  const byHost = classifyHost(dest.host);
  if (byHost) out.push(byHost);
  for (const a of addresses) {
    const f = classifyAddress(a);
    if (f && !(isIpLiteral(dest.host) && bareHost(a) === dest.host)) out.push({ kind: f.kind, detail: `${dest.host} resolves to ${f.detail}` });
  }
  return out;
}

// ── Cleared private destinations, as the decision records them ──────────────────────────────────────────────────

const CLEARED_PREFIX = 'private destination ';

/**
 * The reason the url-guard inspector records for a private destination. A person's approval of the call clears
 * exactly this host:port and these addresses; the HTTP service parses it back (`clearedDestinations`) at connect time.
 */
export function privateReason(dest: Destination, addresses: readonly string[], findings: readonly PrivateFinding[]): string {
  const list = addresses.length ? addresses.join(' ') : '*';
  return `${CLEARED_PREFIX}${dest.key} [${list}]: ${findings.map((f) => f.detail).join('; ')}`;
}

/** host:port → the addresses a person approved (null: any address of that host, for names judged without DNS). */
export function clearedDestinations(reasons: readonly string[]): Map<string, Set<string> | null> {
  const out = new Map<string, Set<string> | null>();
  for (const r of reasons) {
    const m = /^private destination (\S+) \[([^\]]*)\]:/.exec(r);
    if (!m) continue;
    out.set(m[1]!, m[2] === '*' ? null : new Set(m[2]!.split(' ').map(bareHost)));
  }
  return out;
}

// ── URL grants ──────────────────────────────────────────────────────────────────────────────────────────────────

export interface UrlPattern {
  raw: string;
  scheme: 'http:' | 'https:';
  /** Lower-case host; `*.example.com` matches subdomains (never a private destination). */
  host: string;
  wildcardHost: boolean;
  port: number;
  /** Path glob: `*` matches any characters, `/` included. */
  path: string;
}

/** Parses `https://api.example.com/v1/*` (host may start with `*.`; no path means any path). Throws with a reason. */
export function parseUrlPattern(raw: string): UrlPattern {
  const m = /^(https?):\/\/([^/?#]+)(\/[^?#]*)?$/i.exec(raw.trim());
  if (!m) throw new Error(`"${raw}" is not a URL pattern: write scheme://host[:port]/path, e.g. https://api.example.com/v1/*`);
  const scheme = `${m[1]!.toLowerCase()}:` as 'http:' | 'https:';
  let hostPort = m[2]!;
  if (hostPort.includes('@')) throw new Error(`"${raw}": a URL pattern carries no user name or password`);
  const wildcardHost = hostPort.startsWith('*.');
  if (wildcardHost) hostPort = `wildcard-${hostPort.slice(2)}`;
  if (hostPort.includes('*')) throw new Error(`"${raw}": "*" may only start the host (*.example.com)`);
  let url: URL;
  try {
    url = new URL(`${scheme}//${hostPort}/`);
  } catch {
    throw new Error(`"${raw}" does not have a valid host`);
  }
  let host = bareHost(url.hostname);
  if (wildcardHost) {
    host = host.replace(/^wildcard-/, '');
    if (!host.includes('.') || isIpLiteral(host)) throw new Error(`"${raw}": a wildcard needs a domain with a dot (*.example.com)`);
  }
  const port = url.port ? Number(url.port) : scheme === 'https:' ? 443 : 80;
  return { raw: raw.trim(), scheme, host, wildcardHost, port, path: m[3] ?? '/*' };
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

/** Whether a grant pattern covers a URL (scheme, host, port, path). */
export function patternMatches(p: UrlPattern, dest: Destination): boolean {
  if (dest.url.protocol !== p.scheme || dest.port !== p.port) return false;
  const hostOk = p.wildcardHost ? dest.host.endsWith(`.${p.host}`) : dest.host === p.host;
  return hostOk && globToRegExp(p.path).test(dest.url.pathname);
}

/** A grant covers a private destination only when it names that exact host and port (no wildcard host). */
export function patternCoversPrivate(p: UrlPattern, dest: Destination): boolean {
  return !p.wildcardHost && patternMatches(p, dest);
}

/** The first grant covering the destination (private ones only by exact host and port), or null. */
export function grantFor(patterns: readonly string[], dest: Destination, isPrivate: boolean): string | null {
  for (const raw of patterns) {
    let p: UrlPattern;
    try {
      p = parseUrlPattern(raw);
    } catch {
      continue;
    }
    if (isPrivate ? patternCoversPrivate(p, dest) : patternMatches(p, dest)) return p.raw;
  }
  return null;
}
