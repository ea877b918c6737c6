/**
 * The OS keyring is the user's, shared by every Deskhand data folder of theirs: a peer "alice" added in one folder
 * must neither take nor overwrite the tokens of another folder's "alice" (the real keyring of the test world).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PeerBook, peerAccounts } from '../../src/main/services/peers/peer-book';
import { Store } from '../../src/main/services/store/store';
import { KeytarSecretStore } from '../../src/main/services/vault/secret-store';
import { tempDir } from '../support/tool-context';

const stores: Store[] = [];
afterEach(() => stores.splice(0).forEach((s) => s.close()));

describe('peer tokens in the keyring', () => {
  it('are kept per data folder: the same peer name in two folders has two tokens, each checked only in its own', async () => {
    const keyring = new KeytarSecretStore();
    const [a, b] = [tempDir('deskhand-peers-a-'), tempDir('deskhand-peers-b-')].map((dir) => {
      const store = new Store(dir);
      stores.push(store);
      return { dir, book: new PeerBook(store, keyring) };
    });
    const inA = await a!.book.add({ name: 'alice', tier: 'internal' });
    const inB = await b!.book.add({ name: 'alice', tier: 'public' });
    expect(inA.inboundToken).not.toBe(inB.inboundToken);
    expect(peerAccounts(a!.dir, 'alice').inbound).not.toBe(peerAccounts(b!.dir, 'alice').inbound);
    expect(await keyring.get(peerAccounts(a!.dir, 'alice').inbound)).toBe(inA.inboundToken);
    expect(await keyring.get(peerAccounts(b!.dir, 'alice').inbound)).toBe(inB.inboundToken);
    // Each folder's endpoint knows only its own alice's token.
    expect((await a!.book.checkInbound(inA.inboundToken))?.tier).toBe('internal');
    expect(await a!.book.checkInbound(inB.inboundToken)).toBeNull();
    expect((await b!.book.checkInbound(inB.inboundToken))?.tier).toBe('public');
    // Removing one folder's alice leaves the other's token where it was.
    await a!.book.remove('alice');
    expect(await keyring.get(peerAccounts(a!.dir, 'alice').inbound)).toBeNull();
    expect(await keyring.get(peerAccounts(b!.dir, 'alice').inbound)).toBe(inB.inboundToken);
    await b!.book.remove('alice');
  });
});
