/**
 * `deskhand web --remote LINK|URL` (issue 51, item 3): this machine's browser drives the Deskhand runtime of another
 * machine. The first time, LINK is the pairing link the other machine's `deskhand devices pair` printed
 * (`https://HOST:PORT/pair#code=…&fp=…`): the certificate is fetched and pinned by that fingerprint, the code is
 * exchanged for this machine's own credential (kept in the OS keyring; the address and certificate in
 * `devices/remotes.json`). Later, the remote's https:// address is enough. No runtime runs here.
 */
import { hostname } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import { KeytarSecretStore, type SecretStore } from '../../services/vault/secret-store';
import { untilStopSignal } from '../assembly/exit-deadline';
import { fetchPinnedCertificate, pairWithRemote, startRemoteHost } from './remote-host';

interface SavedRemote {
  url: string;
  fingerprint: string;
  certPem: string;
  deviceName: string;
}

const credentialName = (origin: string) => `deskhand-remote ${origin}`;

/** A remote this machine is paired with: where it is, its pinned certificate, this machine's credential there. */
export interface PairedRemote {
  url: string;
  fingerprint: string;
  certPem: string;
  credential: string;
  /** HOST:PORT, as banners and messages name the machine. */
  machine: string;
}

/**
 * The remote named by `target`: a pairing link pairs first (certificate pinned by the link's fingerprint, the code
 * exchanged for this machine's credential, kept in the keyring; address and certificate in `devices/remotes.json`);
 * an https:// address of a remote paired before is looked up. Shared by `deskhand web --remote` and `deskhand app --remote`.
 */
export async function resolveRemote(target: string, dataDir: string, secrets: SecretStore = new KeytarSecretStore()): Promise<PairedRemote> {
  let link: URL;
  try {
    link = new URL(target);
  } catch {
    throw new DeskhandError('usage', `The other machine is named by its pairing link or its https:// address (got "${target.slice(0, 80)}").`);
  }
  if (link.protocol !== 'https:') throw new DeskhandError('usage', `The other machine is named by its pairing link or its https:// address (its \`deskhand web --listen\`); got ${link.protocol}.`);
  const origin = link.origin;
  const file = join(dataDir, 'devices', 'remotes.json');
  const saved: Record<string, SavedRemote> = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, SavedRemote>) : {};
  const fragment = new URLSearchParams(link.hash.slice(1));
  const code = fragment.get('code');
  const fp = fragment.get('fp');
  if (code && fp) {
    const fingerprint = fp.toUpperCase().match(/../g)?.join(':') ?? '';
    const base = `${origin}/`;
    const certPem = await fetchPinnedCertificate(base, fingerprint);
    const paired = await pairWithRemote(base, certPem, fingerprint, code, hostname().slice(0, 40) || 'computer');
    try {
      await secrets.set(credentialName(origin), paired.credential);
    } catch (err) {
      throw new DeskhandError('usage', `Paired with ${link.host}, but this machine's keyring could not keep the credential (${errorMessage(err)}). Revoke "${paired.device.name}" there, make a keyring available, and pair again.`);
    }
    saved[origin] = { url: base, fingerprint, certPem, deviceName: paired.device.name };
    mkdirSync(join(dataDir, 'devices'), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify(saved, null, 1)}\n`, { mode: 0o600 });
  }
  const remote = saved[origin];
  if (!remote) throw new DeskhandError('usage', `This machine is not paired with ${link.host}. On that machine run \`deskhand devices pair\` (or Pair a device in its Settings → Devices) and use the link it shows.`);
  const credential = await secrets.get(credentialName(origin));
  if (!credential) throw new DeskhandError('usage', `The credential for ${link.host} is not in this machine's keyring. Pair again with the link \`deskhand devices pair\` prints there.`);
  return { url: remote.url, fingerprint: remote.fingerprint, certPem: remote.certPem, credential, machine: link.host };
}

export async function remoteCommand(o: { target: string; dataDir: string; rendererDir: string; json: boolean; port: number | undefined }): Promise<number> {
  const remote = await resolveRemote(o.target, o.dataDir);
  const host = await startRemoteHost({ remoteUrl: remote.url, fingerprint: remote.fingerprint, certPem: remote.certPem, credential: remote.credential, machine: remote.machine, rendererDir: o.rendererDir, ...(o.port !== undefined ? { port: o.port } : {}) });
  process.stdout.write(o.json ? `${JSON.stringify({ url: host.url, remote: remote.machine })}\n` : `Deskhand on ${remote.machine} is driven from ${host.url}\n`);
  await untilStopSignal();
  await host.close();
  return 0;
}
