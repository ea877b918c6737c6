/**
 * Settings → Peers' contract methods (contract-peers.ts, host/app/groups/peers.ts) through the dispatch both
 * transports use: the token is in addPeer's answer once, never in a list; bad input is refused by the contract with a
 * message a person can act on; the rows are the same the CLI changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatch } from '../../src/main/host/app/dispatch';
import { openHarness, type Harness } from '../host/helpers';
import { tempDir } from '../support/tool-context';
import { KeytarSecretStore } from '../../src/main/services/vault/secret-store';
import { peerAccounts } from '../../src/main/services/peers/peer-book';

let h: Harness | null = null;
afterEach(() => {
  h?.close();
  h = null;
});

describe('peer contract methods', () => {
  it('add shows the token once; list, update, rotate and remove keep to the book', async () => {
    const dataDir = tempDir('deskhand-peers-contract-');
    h = openHarness({ dataDir });
    const dispatch = createDispatch(h.service, h.log);
    const call = (method: string, params: unknown) => dispatch(method, params, { source: 'test', bytes: 10 });
    const added = await call('addPeer', { name: 'dana', endpoint: null, tier: 'internal', allow: ['write_file'] });
    expect(added.ok).toBe(true);
    const token = (added as { result: { inboundToken: string } }).result.inboundToken;
    expect(await new KeytarSecretStore().get(peerAccounts(dataDir, 'dana').inbound)).toBe(token);
    const listed = await call('listPeers', {});
    expect(JSON.stringify(listed)).not.toContain(token);
    expect(listed).toMatchObject({ ok: true, result: { peers: [{ name: 'dana', tier: 'internal', allow: ['write_file'], enabled: true }] } });

    const updated = await call('updatePeer', { name: 'dana', tier: 'private', allow: ['mkdir'], enabled: false, budget: { turnsPerDay: 3 } });
    expect(updated).toMatchObject({ ok: true, result: { tier: 'private', allow: ['mkdir'], enabled: false, budget: { turnsPerDay: 3 } } });

    for (const [params, message] of [
      [{ name: 'dana', tier: 'secret' }, /tier/],
      [{ name: 'Dana!', tier: 'public' }, /lowercase letters/],
      [{ name: 'dana', allow: ['rm -rf /'] }, /tool name/],
    ] as const) {
      const r = await call('updatePeer', params);
      expect(r.ok).toBe(false);
      expect(JSON.stringify(r)).toMatch(message);
    }
    const refused = await call('addPeer', { name: 'erin', endpoint: 'ftp://x', tier: 'public', allow: [] });
    expect(JSON.stringify(refused)).toMatch(/http:\/\/ or https:\/\//);

    const rotated = await call('rotatePeerToken', { name: 'dana' });
    const next = (rotated as { result: { inboundToken: string } }).result.inboundToken;
    expect(next).not.toBe(token);
    expect(await call('removePeer', { name: 'dana' })).toMatchObject({ ok: true, result: { removed: true } });
    expect(await new KeytarSecretStore().get(peerAccounts(dataDir, 'dana').inbound)).toBeNull();
  }, 60_000);
});
