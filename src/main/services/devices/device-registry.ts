/**
 * Paired devices (issue 51): the devices a person paired with this Deskhand, each with its own long-lived credential,
 * and the pairing window that lets one more pair. All of it lives in the data folder's `devices/` as small JSON files
 * (mode 0600), so the running host (`deskhand web --listen`) and `deskhand devices list|revoke|pair` in another
 * process see the same state: every check reads the file again when it changed, so a revocation holds at once.
 *
 * - A credential is `dhd1.<id>.<secret>`; only the secret's SHA-256 is kept here (the secret has 256 random bits, so a
 *   plain hash is enough). It is never the desktop's own token.
 * - A pairing window holds the SHA-256 of a short code, an expiry and a count of wrong codes: after MAX_WRONG wrong
 *   codes the window closes (the person starts pairing again), and it pairs one device at most.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeskhandError } from '../../../shared/errors';
import { statStamp } from '../file-stamp/index';

export interface DeviceRecord {
  id: string;
  name: string;
  /** sha256 hex of the secret. */
  hash: string;
  pairedAt: number;
}

export interface DeviceView {
  id: string;
  name: string;
  pairedAt: number;
  /** When the device last made a request (null: never since pairing). */
  lastUsedAt: number | null;
}

export interface PairingWindow {
  codeHash: string;
  expiresAt: number;
  wrong: number;
  /** The name the person gave when starting (the device may propose its own). */
  name: string | null;
  /** Set once a device paired through this window (it is then closed). */
  paired: { id: string; name: string } | null;
  /** Set when too many wrong codes closed it. */
  locked: boolean;
}

export interface ListenerInfo {
  /** https://ADDR:PORT/ */
  url: string;
  fingerprint: string;
  pid: number;
}

export type PairOutcome =
  | { ok: true; device: DeviceView; credential: string }
  | { ok: false; reason: 'no_window' | 'expired' | 'wrong_code' | 'locked'; message: string };

/** Wrong codes a pairing window takes before it closes. */
export const MAX_WRONG_CODES = 5;
/** How long a pairing window stays open. */
export const PAIRING_TTL_MS = 5 * 60_000;
/** The code's alphabet: no 0/O, 1/I/L, so it reads aloud and types on a phone without doubt. */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CREDENTIAL_RE = /^dhd1\.([a-f0-9]{16})\.([A-Za-z0-9_-]{43})$/;
const NAME_RE = /^[\p{L}\p{N}][\p{L}\p{N} ._'’-]{0,39}$/u;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A code as typed: case, spaces and dashes do not matter. */
export function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[\s-]/g, '');
}

export function checkDeviceName(raw: string): string {
  const name = raw.trim().replace(/\s+/g, ' ');
  if (!NAME_RE.test(name)) throw new DeskhandError('usage', `A device name is 1 to 40 letters, digits, spaces, dots, dashes or apostrophes, starting with a letter or digit (got "${raw.slice(0, 60)}").`);
  return name;
}

export class DeviceRegistry {
  readonly dir: string;
  private cache: { stamp: string; devices: DeviceRecord[] } | null = null;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'devices');
  }

  private file(name: string): string {
    return join(this.dir, name);
  }

  private write(name: string, value: unknown): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const file = this.file(name);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(value, null, 1)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  }

  private read<T>(name: string, fallback: T): T {
    try {
      return JSON.parse(readFileSync(this.file(name), 'utf8')) as T;
    } catch {
      return fallback;
    }
  }

  /** The paired devices, read again whenever the file changed (another process may have revoked one). */
  records(): DeviceRecord[] {
    const file = this.file('devices.json');
    let st;
    try {
      st = statSync(file);
    } catch {
      this.cache = null;
      return [];
    }
    const stamp = statStamp(st);
    if (this.cache?.stamp !== stamp) {
      const parsed = this.read<{ devices?: DeviceRecord[] }>('devices.json', {});
      this.cache = { stamp, devices: Array.isArray(parsed.devices) ? parsed.devices : [] };
    }
    return this.cache.devices;
  }

  private save(devices: DeviceRecord[]): void {
    this.write('devices.json', { devices });
    this.cache = null;
  }

  list(): DeviceView[] {
    const used = this.read<Record<string, number>>('last-use.json', {});
    return this.records().map((d) => ({ id: d.id, name: d.name, pairedAt: d.pairedAt, lastUsedAt: used[d.id] ?? null }));
  }

  /** The device a credential belongs to, or null (malformed, unknown, revoked, wrong secret; compared in constant time). */
  verify(credential: string | undefined | null): DeviceRecord | null {
    const m = CREDENTIAL_RE.exec(credential ?? '');
    if (!m) return null;
    const device = this.records().find((d) => d.id === m[1]);
    if (!device) return null;
    const given = Buffer.from(sha256(m[2]!), 'hex');
    const kept = Buffer.from(device.hash, 'hex');
    return given.length === kept.length && timingSafeEqual(given, kept) ? device : null;
  }

  /** Notes a request from the device (kept in its own file, so it never races a revocation's write). */
  touch(id: string, at = Date.now()): void {
    const used = this.read<Record<string, number>>('last-use.json', {});
    if (used[id] !== undefined && at - used[id] < 60_000) return;
    used[id] = at;
    this.write('last-use.json', used);
  }

  /** One line in `devices/audit.jsonl` for an action a device took (what it changed, never its arguments). */
  audit(device: { id: string; name: string }, action: string, at = Date.now()): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    appendFileSync(this.file('audit.jsonl'), `${JSON.stringify({ at, deviceId: device.id, device: device.name, action })}\n`, { mode: 0o600 });
  }

  /** Removes a device by name or id; its credential stops working at once. Returns the removed device. */
  revoke(nameOrId: string): DeviceView {
    const key = nameOrId.trim();
    const devices = this.records();
    const matches = devices.filter((d) => d.id === key || d.name.toLowerCase() === key.toLowerCase());
    if (matches.length === 0) {
      const known = devices.map((d) => `${d.name} (${d.id})`).join(', ');
      throw new DeskhandError('not_found', `No paired device is called "${key.slice(0, 60)}"${known ? `; paired: ${known}` : '; none is paired'}.`);
    }
    const gone = matches[0]!;
    this.save(devices.filter((d) => d.id !== gone.id));
    const view = this.list().find((d) => d.id === gone.id);
    return view ?? { id: gone.id, name: gone.name, pairedAt: gone.pairedAt, lastUsedAt: null };
  }

  /** Where the running listener is (written by `deskhand web --listen`, read by `deskhand devices pair`). */
  writeListener(info: ListenerInfo): void {
    this.write('listener.json', info);
  }

  listener(): ListenerInfo | null {
    const info = this.read<ListenerInfo | null>('listener.json', null);
    if (!info || typeof info.url !== 'string' || !info.pid) return null;
    // A listener whose process is gone (killed, the machine restarted) is no listener.
    try {
      process.kill(info.pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return null;
    }
    return info;
  }

  /** The port the listener had last time (so a paired device finds it again after a restart), or null. */
  lastPort(): number | null {
    const info = this.read<ListenerInfo | null>('listener.json', null);
    const port = info && typeof info.url === 'string' ? Number(/:(\d+)\/?$/.exec(info.url)?.[1]) : NaN;
    return Number.isInteger(port) && port > 0 ? port : null;
  }

  /** The listener stopped (its address is kept for lastPort). */
  clearListener(pid = process.pid): void {
    const info = this.read<ListenerInfo | null>('listener.json', null);
    if (info?.pid === pid) this.write('listener.json', { ...info, pid: 0 });
  }

  /** Opens a pairing window (replacing any open one) and returns its code, shown as XXXX-XXXX. */
  openPairing(opts: { name?: string | null; ttlMs?: number; now?: number } = {}): { code: string; expiresAt: number } {
    const name = opts.name ? checkDeviceName(opts.name) : null;
    let code = '';
    for (let i = 0; i < 8; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const expiresAt = (opts.now ?? Date.now()) + (opts.ttlMs ?? PAIRING_TTL_MS);
    this.write('pairing.json', { codeHash: sha256(code), expiresAt, wrong: 0, name, paired: null, locked: false } satisfies PairingWindow);
    return { code: `${code.slice(0, 4)}-${code.slice(4)}`, expiresAt };
  }

  pairingWindow(): PairingWindow | null {
    if (!existsSync(this.file('pairing.json'))) return null;
    return this.read<PairingWindow | null>('pairing.json', null);
  }

  closePairing(): void {
    try {
      unlinkSync(this.file('pairing.json'));
    } catch {
      // already closed
    }
  }

  /** Exchanges a pairing code for a new device and its credential (shown once; only its hash is kept). */
  pair(code: string, proposedName: string | null, now = Date.now()): PairOutcome {
    const w = this.pairingWindow();
    if (!w || w.paired) return { ok: false, reason: 'no_window', message: 'No pairing is open. On the desktop, start pairing (Settings → Devices, or `deskhand devices pair`) and use the new code.' };
    if (w.locked) return { ok: false, reason: 'locked', message: 'Too many wrong codes: this pairing was closed. Start pairing again on the desktop.' };
    if (now > w.expiresAt) return { ok: false, reason: 'expired', message: 'This pairing code has expired. Start pairing again on the desktop.' };
    const given = Buffer.from(sha256(normalizeCode(code)), 'hex');
    const kept = Buffer.from(w.codeHash, 'hex');
    if (given.length !== kept.length || !timingSafeEqual(given, kept)) {
      const wrong = w.wrong + 1;
      const locked = wrong >= MAX_WRONG_CODES;
      this.write('pairing.json', { ...w, wrong, locked });
      return locked
        ? { ok: false, reason: 'locked', message: 'Too many wrong codes: this pairing was closed. Start pairing again on the desktop.' }
        : { ok: false, reason: 'wrong_code', message: `That code is wrong (${MAX_WRONG_CODES - wrong} tries left). Type the code the desktop shows.` };
    }
    const devices = this.records();
    let name = proposedName?.trim() ? checkDeviceName(proposedName) : (w.name ?? `device ${devices.length + 1}`);
    const taken = new Set(devices.map((d) => d.name.toLowerCase()));
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${name.replace(/ \d+$/, '')} ${n}`;
    const id = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('base64url');
    const record: DeviceRecord = { id, name, hash: sha256(secret), pairedAt: now };
    this.save([...devices, record]);
    this.write('pairing.json', { ...w, paired: { id, name } });
    return { ok: true, device: { id, name, pairedAt: now, lastUsedAt: null }, credential: `dhd1.${id}.${secret}` };
  }
}

/** What the pairing QR encodes: the listener's pairing page, with the code and the certificate's SHA-256 in the fragment (never sent over the network). */
export function pairingLink(listenerUrl: string, code: string, fingerprint: string): string {
  return `${listenerUrl.replace(/\/?$/, '/')}pair#code=${encodeURIComponent(code)}&fp=${fingerprint.replace(/:/g, '')}`;
}
