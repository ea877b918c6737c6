/**
 * `deskhand devices pair|list|revoke` (issue 51): the devices paired with this Deskhand (a phone, another Deskhand).
 * `pair` opens a pairing window on the running listener (`deskhand web --listen ADDR`), prints a QR code (the pairing
 * page's address, the code and the certificate's SHA-256) and the short code, and waits until a device pairs, the
 * window expires or wrong codes close it. `revoke` takes effect at once: the listener closes the device's sockets.
 */
import QRCode from 'qrcode';
import { DeviceRegistry, MAX_WRONG_CODES, pairingLink, type DeviceView } from '../../services/devices/index';
import { resolveDataDir } from '../assembly/data-dir';
import { out, parseSubcommand, usage } from './common';

export const DEVICES_USAGE = `Usage:
  deskhand devices pair [--name NAME] [--minutes N] [--no-wait] [--json]
                                   open a pairing window on the running \`deskhand web --listen ADDR\`: shows a QR code
                                   and a short code the device types (${MAX_WRONG_CODES} wrong codes close it)
  deskhand devices list [--json]   the paired devices, with when each was last used
  deskhand devices revoke NAME|ID  the device's credential stops working at once (its open connections close)`;

const when = (t: number | null) => (t === null ? 'never' : new Date(t).toISOString().replace('T', ' ').slice(0, 16) + ' UTC');

export async function devicesCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || sub === 'help' || sub === '--help' || sub === '-h' || rest.includes('--help')) {
    out(DEVICES_USAGE);
    return sub ? 0 : 2;
  }
  const { values, positionals } = parseSubcommand(rest, { name: { type: 'string' }, minutes: { type: 'string' }, 'no-wait': { type: 'boolean' } });
  const registry = new DeviceRegistry(resolveDataDir(values['data-dir']));
  const json = values.json === true;
  switch (sub) {
    case 'list': {
      const devices = registry.list();
      if (json) out(JSON.stringify({ devices }));
      else if (!devices.length) out('No device is paired. Pair one with `deskhand devices pair` (while `deskhand web --listen ADDR` runs).');
      else for (const d of devices) out(describe(d));
      return 0;
    }
    case 'revoke': {
      if (positionals.length !== 1) throw usage('Usage: deskhand devices revoke NAME|ID (see `deskhand devices list`).');
      const gone = registry.revoke(positionals[0]!);
      out(json ? JSON.stringify({ revoked: gone }) : `Revoked "${gone.name}" (${gone.id}): its credential no longer works.`);
      return 0;
    }
    case 'pair':
      return pair(registry, { name: values.name ?? null, minutes: values.minutes, wait: values['no-wait'] !== true, json });
    default:
      throw usage(`Unknown devices command "${sub}".\n${DEVICES_USAGE}`);
  }
}

function describe(d: DeviceView): string {
  return `${d.name}  (${d.id})  paired ${when(d.pairedAt)}, last used ${when(d.lastUsedAt)}`;
}

async function pair(registry: DeviceRegistry, o: { name: string | null; minutes: string | undefined; wait: boolean; json: boolean }): Promise<number> {
  const minutes = o.minutes === undefined ? 5 : Number(o.minutes);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 60) throw usage(`--minutes is how long the pairing stays open, 1 to 60 (got "${o.minutes}").`);
  const listener = registry.listener();
  if (!listener) throw usage('No paired-device listener is running. Start one with `deskhand web --listen ADDR` (e.g. --listen 192.168.1.20, or 0.0.0.0 for every interface), then pair again.');
  const { code, expiresAt } = registry.openPairing({ name: o.name, ttlMs: minutes * 60_000 });
  const link = pairingLink(listener.url, code, listener.fingerprint);
  if (o.json) out(JSON.stringify({ link, code, url: listener.url, fingerprint: listener.fingerprint, expiresAt }));
  else {
    out(await QRCode.toString(link, { type: 'terminal', small: true, errorCorrectionLevel: 'M' }));
    out(`Scan the code with the device's camera, or open ${listener.url}pair on it and type the code:\n\n    ${code}\n`);
    out(`The page must show this certificate (SHA-256): ${listener.fingerprint}`);
    out(`The pairing closes at ${when(expiresAt)} or after ${MAX_WRONG_CODES} wrong codes.`);
  }
  if (!o.wait) return 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const w = registry.pairingWindow();
    if (w?.paired) {
      out(o.json ? JSON.stringify({ paired: w.paired }) : `Paired "${w.paired.name}" (${w.paired.id}). Revoke it any time with \`deskhand devices revoke "${w.paired.name}"\`.`);
      registry.closePairing();
      return 0;
    }
    const failure = !w ? 'The pairing was replaced or closed.' : w.locked ? `Too many wrong codes (${MAX_WRONG_CODES}): the pairing was closed. Start it again.` : Date.now() > w.expiresAt ? 'The pairing expired before a device paired. Start it again.' : null;
    if (failure) {
      if (w && !w.locked) registry.closePairing();
      process.stderr.write(`${failure}\n`);
      return 1;
    }
  }
}
