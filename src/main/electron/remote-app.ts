/**
 * The desktop app attached to a Deskhand runtime on another machine (issue 51, item 3): `--remote LINK|URL` on the
 * app's command line (or DESKHAND_REMOTE) makes the app a paired device of that machine's `deskhand web --listen`,
 * the same way `deskhand web --remote` does (remote-command.ts `resolveRemote`: the pairing link the first time, the
 * https:// address after that; the credential in this machine's keyring, the certificate pinned). No runtime, store
 * or schedule runs here: every contract call goes to the remote (host/web/remote-client.ts), its events come back to
 * the window, its approvals raise this desktop's notifications, and the page's banner names the machine.
 */
import type { SecretStore } from '../services/vault/secret-store';
import type { Logger } from '../host/app/app-service';
import { connectRemote, type RemoteClient } from '../host/web/remote-client';
import { resolveRemote } from '../host/web/remote-command';

/** The remote to drive: `--remote=X` or `--remote X` on the command line, else DESKHAND_REMOTE, else null. */
export function remoteTarget(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string | null {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--remote=')) return a.slice('--remote='.length) || null;
    if (a === '--remote') return argv[i + 1] ?? null;
  }
  return env.DESKHAND_REMOTE?.trim() || null;
}

/** Pairs (with a pairing link) or finds the saved pairing, and connects. */
export async function attachRemote(o: { target: string; dataDir: string; secrets: SecretStore; log: Logger }): Promise<RemoteClient> {
  const remote = await resolveRemote(o.target, o.dataDir, o.secrets);
  return connectRemote({ remoteUrl: remote.url, fingerprint: remote.fingerprint, certPem: remote.certPem, credential: remote.credential, machine: remote.machine, log: o.log });
}

/**
 * The app's own arguments for a restart (argv without the executable) that drives `url`, or that runs on this
 * computer's own runtime (null: an empty `--remote=`, which also outweighs DESKHAND_REMOTE). An earlier `--remote`
 * is dropped.
 */
export function relaunchArgs(argv: readonly string[], url: string | null): string[] {
  const args: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('--remote=')) continue;
    if (a === '--remote') {
      i++;
      continue;
    }
    args.push(a);
  }
  return [...args, `--remote=${url ?? ''}`];
}
