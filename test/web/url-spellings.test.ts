/**
 * Every spelling of a destination on this machine or its network asks, under every policy, with the reason shown:
 * checked through the engine exactly as `deskhand policy explain` prints it (runtime.explain), and a few through the
 * real binary. Public controls must not ask, so the table can fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppRuntime, type AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { tempDir } from '../support/tool-context';
import { requireBuild, runCli } from '../support/cli';
import { clientWith } from './servers';

/** Names the tests resolve themselves (no DNS leaves the machine). */
const DNS = {
  'rebind.example.com': '127.0.0.1',
  'internal.example.net': '10.1.2.3',
  'mixed.example.org': ['93.184.216.34', '192.168.0.10'],
  'v6only.example.org': 'fe80::1',
  'mapped.example.org': '::ffff:127.0.0.1',
  'meta.example.org': '169.254.169.254',
  'public.example.com': '93.184.216.34',
  localhost: ['127.0.0.1', '::1'],
};

/** [URL, a word the url-guard's reason must contain]. */
const MUST_ASK: [string, string][] = [
  // loopback, IPv4 in every spelling
  ['http://127.0.0.1/', 'loopback'],
  ['http://127.0.0.1:8080/admin', 'loopback'],
  ['https://127.0.0.1:443/', 'loopback'],
  ['http://127.1/', 'loopback'],
  ['http://127.0.1/', 'loopback'],
  ['http://2130706433/', 'loopback'],
  ['http://0x7f000001/', 'loopback'],
  ['http://0x7f.0x0.0x0.0x1/', 'loopback'],
  ['http://0x7f.1/', 'loopback'],
  ['http://0177.0.0.1/', 'loopback'],
  ['http://0177.0000.0000.0001/', 'loopback'],
  ['http://017700000001/', 'loopback'],
  ['http://127.000.000.001/', 'loopback'],
  ['http://127.255.255.254/', 'loopback'],
  ['http://127.0.0.1./', 'loopback'],
  ['http://%31%32%37.0.0.1/', 'loopback'],
  ['http://①②⑦.⓪.⓪.①/', 'loopback'],
  ['http://１２７.０.０.１/', 'loopback'],
  ['http://user:pass@127.0.0.1/', 'loopback'],
  ['http://example.com@127.0.0.1/', 'loopback'],
  ['http://127.0.0.1#@example.com/', 'loopback'],
  ['http://127.0.0.1\\@example.com/', 'loopback'],
  // loopback, IPv6 and names
  ['http://[::1]/', 'loopback'],
  ['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
  ['http://[::0001]/', 'loopback'],
  ['http://localhost/', 'loopback'],
  ['http://LOCALHOST:3000/', 'loopback'],
  ['http://localhost./', 'loopback'],
  ['http://foo.localhost/', 'loopback'],
  ['http://ip6-localhost/', 'loopback'],
  ['http://127.0.0.1.nip.io/', 'loopback'],
  ['http://127-0-0-1.sslip.io/', 'loopback'],
  ['http://localtest.me/', 'loopback'],
  ['http://app.lvh.me/', 'loopback'],
  ['http://rebind.example.com/', 'loopback'],
  // unspecified
  ['http://0/', 'unspecified'],
  ['http://0.0.0.0:8000/', 'unspecified'],
  ['http://0x0/', 'unspecified'],
  ['http://00000000/', 'unspecified'],
  ['http://[::]/', 'unspecified'],
  // private networks
  ['http://10.0.0.1/', 'private-network'],
  ['http://10.255.255.255/', 'private-network'],
  ['http://0xa.0.0.1/', 'private-network'],
  ['http://167772161/', 'private-network'],
  ['http://172.16.0.1/', 'private-network'],
  ['http://172.31.255.254/', 'private-network'],
  ['http://192.168.1.1/', 'private-network'],
  ['http://0xc0a80101/', 'private-network'],
  ['http://3232235777/', 'private-network'],
  ['http://0300.0250.1.1/', 'private-network'],
  ['http://[fc00::1]/', 'private-network'],
  ['http://[fd12:3456::1]/', 'private-network'],
  ['http://internal.example.net/', 'private-network'],
  ['http://mixed.example.org/', 'private-network'],
  // link-local
  ['http://169.254.1.1/', 'link-local'],
  ['http://[fe80::1]/', 'link-local'],
  ['http://v6only.example.org/', 'link-local'],
  // cloud metadata
  ['http://169.254.169.254/latest/meta-data/', 'metadata'],
  ['http://2852039166/', 'metadata'],
  ['http://0xa9fea9fe/', 'metadata'],
  ['http://0251.0376.0251.0376/', 'metadata'],
  ['http://169.254.169.254.nip.io/', 'metadata'],
  ['http://metadata.google.internal/computeMetadata/v1/', 'metadata'],
  ['http://metadata/', 'metadata'],
  ['http://[fd00:ec2::254]/', 'metadata'],
  ['http://100.100.100.200/', 'metadata'],
  ['http://169.254.170.2/v2/credentials', 'metadata'],
  ['http://meta.example.org/', 'metadata'],
  // CGNAT, multicast, broadcast, reserved
  ['http://100.64.0.1/', 'carrier-grade NAT'],
  ['http://100.127.255.254/', 'carrier-grade NAT'],
  ['http://224.0.0.1/', 'multicast'],
  ['http://239.255.255.250:1900/', 'multicast'],
  ['http://[ff02::1]/', 'multicast'],
  ['http://255.255.255.255/', 'broadcast'],
  ['http://240.0.0.1/', 'reserved'],
  // IPv4-mapped and other IPv6 spellings of IPv4
  ['http://[::ffff:127.0.0.1]/', 'IPv4-mapped'],
  ['http://[::ffff:7f00:1]/', 'IPv4-mapped'],
  ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'IPv4-mapped'],
  ['http://[::ffff:169.254.169.254]/', 'IPv4-mapped'],
  ['http://[::ffff:10.0.0.1]/', 'IPv4-mapped'],
  ['http://[::ffff:8.8.8.8]/', 'IPv4-mapped'],
  ['http://[::127.0.0.1]/', 'IPv4-mapped'],
  ['http://mapped.example.org/', 'IPv4-mapped'],
  ['http://[64:ff9b::127.0.0.1]/', 'loopback'],
  ['http://[2002:7f00:1::]/', 'loopback'],
  // names on the local network
  ['http://router/', 'local'],
  ['http://nas.local/', 'local'],
  ['http://printer.lan:631/', 'local'],
  ['http://db.internal:5432/', 'local'],
  ['http://intranet.corp/', 'local'],
];

const PUBLIC: string[] = [
  'http://93.184.216.34/',
  'https://1.1.1.1/dns-query',
  'http://[2606:4700:4700::1111]/',
  'https://public.example.com/page',
  'http://11.0.0.1/',
  'http://172.32.0.1/',
  'http://100.128.0.1/',
  'http://192.169.0.1/',
  'http://8.8.4.4/',
];

const REFUSED = ['file:///etc/passwd', 'ftp://127.0.0.1/', 'gopher://127.0.0.1:70/_x', 'javascript:alert(1)', 'data:text/html,hi', 'ws://127.0.0.1/'];

let rt: AppRuntime;
let work: string;

beforeAll(() => {
  work = tempDir();
  rt = createAppRuntime({ dataDir: tempDir('deskhand-data-'), vault: null, http: clientWith(DNS) });
});
afterAll(async () => {
  await rt.tasks.shutdown();
  rt.store.close();
});

const urlGuardOf = (r: Awaited<ReturnType<AppRuntime['explain']>>) => r.inspectors.find((i) => i.inspector === 'url-guard')!;

describe('URL spellings that must ask', () => {
  it('has at least 60 spellings', () => {
    expect(MUST_ASK.length).toBeGreaterThanOrEqual(60);
  });

  for (const policy of ['high-risk', 'read-only', 'none'] as const) {
    it(`every spelling asks under policy ${policy}, with the reason`, async () => {
      const wrong: string[] = [];
      for (const [url, word] of MUST_ASK) {
        for (const tool of ['web_fetch', 'http_request']) {
          const args = tool === 'web_fetch' ? { url } : { method: 'GET', url };
          const r = await rt.explain(tool, args, policy, work);
          const guard = urlGuardOf(r);
          const reasons = guard.reasons.join(' | ');
          if (r.decision !== 'ask' || guard.verdict !== 'ask' || !reasons.toLowerCase().includes(word.toLowerCase()) || !reasons.includes('always asks')) {
            wrong.push(`${tool} ${url}: ${r.decision}/${guard.verdict} ${reasons}`);
          }
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it('public destinations do not ask because of their address (the controls)', async () => {
    for (const url of PUBLIC) {
      const r = await rt.explain('web_fetch', { url }, 'read-only', work);
      expect(urlGuardOf(r).verdict, url).toBe('pass');
      expect(r.decision, url).toBe('allow');
    }
  });

  it('refuses schemes other than http and https', async () => {
    for (const url of REFUSED) {
      const r = await rt.explain('web_fetch', { url }, 'high-risk', work);
      expect(r.decision, url).toBe('deny');
      expect(urlGuardOf(r).reasons.join(' '), url).toMatch(/not allowed|not a valid URL/);
    }
  });

  it('a URL grant covers a private destination only when it names that exact host and port', async () => {
    rt.store.urlGrants.add('http://127.0.0.1:8080/api/*');
    rt.store.urlGrants.add('http://*.nip.io/*');
    try {
      const exact = await rt.explain('http_request', { method: 'POST', url: 'http://127.0.0.1:8080/api/items' }, 'read-only', work);
      expect(exact.decision).toBe('allow');
      expect(urlGuardOf(exact)).toMatchObject({ verdict: 'allow' });
      expect(urlGuardOf(exact).reasons.join(' ')).toContain('names that exact host and port');
      for (const url of ['http://127.0.0.1:8081/api/items', 'http://127.0.0.1:8080/other', 'http://127.1:8080/admin', 'http://localhost:8080/api/x', 'http://127.0.0.1.nip.io/']) {
        const r = await rt.explain('http_request', { method: 'GET', url }, 'high-risk', work);
        expect(r.decision, url).toBe('ask');
      }
      // the same grant, spelled differently, is the same destination
      const spelled = await rt.explain('web_fetch', { url: 'http://0x7f.1:8080/api/v' }, 'none', work);
      expect(spelled.decision).toBe('allow');
    } finally {
      rt.store.urlGrants.revoke('http://127.0.0.1:8080/api/*');
      rt.store.urlGrants.revoke('http://*.nip.io/*');
    }
  });

  it('public URL grants run unattended, even in a tainted run; without one, egress asks once tainted', async () => {
    const tainted = await rt.explain('web_fetch', { url: 'https://public.example.com/page' }, 'read-only', work, undefined, { tainted: true });
    expect(tainted.decision).toBe('ask');
    expect(tainted.inspectors.find((i) => i.inspector === 'taint')?.verdict).toBe('ask');
    // tainted egress asks at every tier: http_request is high-risk, and a high-risk policy no longer clears it (round three)
    expect((await rt.explain('web_fetch', { url: 'https://public.example.com/page' }, 'high-risk', work, undefined, { tainted: true })).decision).toBe('ask');
    const high = await rt.explain('http_request', { method: 'GET', url: 'https://public.example.com/x' }, 'high-risk', work, undefined, { tainted: true });
    expect(high.decision).toBe('ask');
    expect(high.taint.rule).toMatch(/asks at every tier \(this one is high-risk\)/);
    expect((await rt.explain('http_request', { method: 'GET', url: 'https://public.example.com/x' }, 'low-risk', work, undefined, { tainted: true })).decision).toBe('ask');
    const api = await rt.explain('http_request', { method: 'POST', url: 'https://public.example.com/v1/x', json: { a: 1 } }, 'read-only', work);
    expect(api.decision).toBe('ask');
    rt.store.urlGrants.add('https://public.example.com/v1/*');
    try {
      const granted = await rt.explain('http_request', { method: 'POST', url: 'https://public.example.com/v1/x', json: { a: 1 } }, 'read-only', work, undefined, { tainted: true });
      expect(granted.decision).toBe('allow');
      const outside = await rt.explain('http_request', { method: 'GET', url: 'https://public.example.com/v2/x' }, 'read-only', work);
      expect(outside.decision).toBe('ask');
    } finally {
      rt.store.urlGrants.revoke('https://public.example.com/v1/*');
    }
  });
});

describe('deskhand policy explain and deskhand grants (the binary)', () => {
  it('prints the reason, and a grant naming the host and port lets the call run', async () => {
    requireBuild();
    const dataDir = tempDir('deskhand-cli-');
    const args = ['policy', 'explain', '--data-dir', dataDir, '--tool', 'web_fetch', '--policy', 'high-risk', '--args'];
    for (const url of ['http://2130706433:8080/x', 'http://[::ffff:7f00:1]:8080/x', 'http://169.254.169.254/latest/']) {
      const r = await runCli([...args, JSON.stringify({ url })]);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { decision: string; inspectors: { inspector: string; verdict: string; reasons: string[] }[] };
      expect(out.decision).toBe('ask');
      expect(out.inspectors.find((i) => i.inspector === 'url-guard')?.reasons.join(' ')).toMatch(/private destination .* (loopback|metadata)/);
    }
    const add = await runCli(['grants', 'add-url', 'http://127.0.0.1:8080/*', '--data-dir', dataDir]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('names that exact host and port');
    const list = await runCli(['grants', 'list', '--json', '--data-dir', dataDir]);
    const rows = JSON.parse(list.stdout) as { id: string; pattern: string }[];
    expect(rows.map((r) => r.pattern)).toEqual(['http://127.0.0.1:8080/*']);
    const granted = await runCli([...args, JSON.stringify({ url: 'http://2130706433:8080/x' })]);
    expect((JSON.parse(granted.stdout) as { decision: string }).decision).toBe('allow');
    const bad = await runCli(['grants', 'add-url', 'ftp://x/*', '--data-dir', dataDir]);
    expect(bad.code).toBe(2);
    const revoke = await runCli(['grants', 'revoke', rows[0]!.id, '--data-dir', dataDir]);
    expect(revoke.code).toBe(0);
    const again = await runCli([...args, JSON.stringify({ url: 'http://2130706433:8080/x' })]);
    expect((JSON.parse(again.stdout) as { decision: string }).decision).toBe('ask');
  }, 60_000);
});
