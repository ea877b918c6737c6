/**
 * `deskhand peers …` (host/cli/peers.ts, services/peers): peers as data. The inbound token is shown once and kept only
 * in the OS keyring (the database's bytes never hold it); tier, allow, budget and on/off change the row; bad input is
 * a usage error that names what to do.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeytarSecretStore } from '../../src/main/services/vault/secret-store';
import { peerAccounts } from '../../src/main/services/peers/peer-book';
import { useCliWorld } from '../support/cli';

const w = useCliWorld('peers-cli');
const peers = (args: string[], input?: string) => w.cli(['peers', ...args, '--data-dir', w.dataDir], input !== undefined ? { input } : {});
const dbBytes = () => readdirSync(w.dataDir).filter((f) => f.startsWith('deskhand.db')).map((f) => readFileSync(join(w.dataDir, f)).toString('latin1')).join('');

describe('deskhand peers', () => {
  it('add shows the token once, keeps it in the keyring only; list, show, tier, allow, budget, disable, rm', async () => {
    const added = await peers(['add', 'alice', '--tier', 'internal', '--allow', 'write_file', '--endpoint', 'http://127.0.0.1:9/a2a', '--turns', '5', '--json'], 'their-secret-token');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const view = JSON.parse(added.stdout) as { inboundToken: string; tier: string; allow: string[]; budget: { turnsPerDay: number }; hasOutboundToken: boolean };
    expect(view).toMatchObject({ tier: 'internal', allow: ['write_file'], budget: { turnsPerDay: 5 } });
    expect(view.inboundToken).toMatch(/^dhp_[A-Za-z0-9_-]{20,}$/);
    // Without --token-stdin the piped input is not read: no outbound token.
    expect(view.hasOutboundToken).toBe(false);

    const keyring = new KeytarSecretStore();
    expect(await keyring.get(peerAccounts(w.dataDir, 'alice').inbound)).toBe(view.inboundToken);
    expect(dbBytes()).not.toContain(view.inboundToken);

    const shown = await peers(['show', 'alice']);
    expect(shown.stdout).toMatch(/tier internal/);
    expect(shown.stdout).not.toContain(view.inboundToken);
    const listed = await peers(['list', '--json']);
    expect(listed.stdout).not.toContain(view.inboundToken);

    expect((await peers(['tier', 'alice', 'private'])).code).toBe(0);
    expect((await peers(['allow', 'alice', 'edit_file,mkdir'])).code).toBe(0);
    expect((await peers(['allow', 'alice', 'write_file', '--remove'])).code).toBe(0);
    expect((await peers(['budget', 'alice', '--tokens', '1000'])).code).toBe(0);
    expect((await peers(['disable', 'alice'])).code).toBe(0);
    const after = JSON.parse((await peers(['show', 'alice', '--json'])).stdout) as Record<string, unknown>;
    expect(after).toMatchObject({ tier: 'private', allow: ['edit_file', 'mkdir'], budget: { turnsPerDay: 5, tokensPerDay: 1000 }, enabled: false });

    const rotated = await peers(['token', 'alice', '--rotate', '--json']);
    const next = (JSON.parse(rotated.stdout) as { inboundToken: string }).inboundToken;
    expect(next).not.toBe(view.inboundToken);
    expect(await keyring.get(peerAccounts(w.dataDir, 'alice').inbound)).toBe(next);

    expect((await peers(['rm', 'alice'])).code).toBe(0);
    expect(await keyring.get(peerAccounts(w.dataDir, 'alice').inbound)).toBeNull();
    expect((await peers(['show', 'alice'])).code).not.toBe(0);
  }, 120_000);

  it('--token-stdin saves the token for calling them in the keyring, not in the database', async () => {
    const r = await peers(['add', 'bob', '--endpoint', 'https://bob.example.com/a2a', '--token-stdin', '--json'], 'bob-gave-me-this-token-123\n');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ hasOutboundToken: true, tier: 'public' });
    expect(await new KeytarSecretStore().get(peerAccounts(w.dataDir, 'bob').outbound)).toBe('bob-gave-me-this-token-123');
    expect(dbBytes()).not.toContain('bob-gave-me-this-token-123');
    await peers(['rm', 'bob']);
  }, 60_000);

  it.each([
    [['add', 'Alice'], /lowercase letters/],
    [['add', '-x'], /.+/],
    [['add', 'carol', '--tier', 'secret'], /not a disclosure tier; use public, internal or private/],
    [['add', 'carol', '--endpoint', 'ftp://x'], /http:\/\/ or https:\/\//],
    [['add', 'carol', '--endpoint', 'https://u:p@x.example'], /no credentials/],
    [['add', 'carol', '--allow', 'rm -rf'], /An allow entry is a tool name/],
    [['add', 'carol', '--turns=-1'], /whole number/],
    [['add', 'carol', '--turns', 'many'], /whole number/],
    [['tier', 'nobody', 'public'], /No peer "nobody"/],
    [['allow', 'nobody'], /needs at least one TOOL/],
  ])('refuses %j clearly', async (args, message) => {
    const r = await peers(args);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect((await peers(['list', '--json'])).stdout.trim()).toBe('[]');
  }, 60_000);

  it('policy explain --peer shows the ceiling, and judges one call as in that peer\'s conversation', async () => {
    expect((await peers(['add', 'erin', '--tier', 'internal', '--allow', 'mkdir'])).code).toBe(0);
    const whole = await w.cli(['policy', 'explain', '--peer', 'erin', '--data-dir', w.dataDir]);
    expect(whole.code).toBe(0);
    const c = JSON.parse(whole.stdout) as { tier: string; granted: string[]; refused: { tool: string; reason: string }[] };
    expect(c.tier).toBe('internal');
    expect(c.granted).toEqual(expect.arrayContaining(['get_time', 'ls', 'mkdir', 'request_clarification']));
    for (const t of ['read_file', 'write_file', 'web_fetch', 'ask_peer', 'manage_todos']) expect(c.granted).not.toContain(t);
    expect(c.refused.find((r) => r.tool === 'web_fetch')?.reason).toMatch(/sends material off this machine/);

    const one = await w.cli(['policy', 'explain', '--peer', 'erin', '--tool', 'write_file', '--args', JSON.stringify({ path: 'a.txt', content: 'x' }), '--policy', 'high-risk', '--cwd', w.work, '--data-dir', w.dataDir]);
    const d = JSON.parse(one.stdout) as { decision: string; inspectors: { inspector: string; verdict: string }[] };
    expect(d.decision).toBe('deny');
    expect(d.inspectors.find((i) => i.inspector === 'peer-ceiling')?.verdict).toBe('deny');
    const own = JSON.parse((await w.cli(['policy', 'explain', '--tool', 'write_file', '--args', JSON.stringify({ path: 'a.txt', content: 'x' }), '--policy', 'high-risk', '--cwd', w.work, '--data-dir', w.dataDir])).stdout) as { decision: string };
    expect(own.decision).toBe('allow');

    const unknown = await w.cli(['policy', 'explain', '--peer', 'nobody', '--data-dir', w.dataDir]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/No peer "nobody"/);
  }, 120_000);
});
