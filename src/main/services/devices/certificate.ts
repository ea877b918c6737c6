/**
 * The paired-device listener's TLS identity: a self-signed certificate made with Node's WebCrypto (pkijs builds the
 * X.509 structure; no openssl process), kept in the data folder's `devices/` (the private key file mode 0600) and
 * reused across launches, so a paired device's pinned fingerprint stays valid. A certificate whose names do not cover
 * the address asked for is made anew (the fingerprint changes; devices pair again).
 */
import { createHash, X509Certificate, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

export interface DeviceCertificate {
  certPem: string;
  keyPem: string;
  /** SHA-256 of the certificate's DER bytes, upper-case hex with colons (what browsers and `openssl x509 -fingerprint` show). */
  fingerprint: string;
}

const CERT = 'tls-cert.pem';
const KEY = 'tls-key.pem';

/** SHA-256 of a certificate (DER bytes), as AA:BB:… */
export function fingerprintOf(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':');
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').match(/.{1,64}/g)!.join('\n');
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

function covers(certPem: string, host: string): boolean {
  try {
    const cert = new X509Certificate(certPem);
    if (new Date(cert.validTo).getTime() < Date.now() + 24 * 3600_000) return false;
    return isIP(host) ? cert.checkIP(host) !== undefined : cert.checkHost(host) !== undefined;
  } catch {
    return false;
  }
}

/** The saved certificate when it covers `host` (an address or a name), else a new one for it (and 127.0.0.1, localhost). */
export async function ensureDeviceCertificate(dir: string, host: string): Promise<DeviceCertificate> {
  const certFile = join(dir, CERT);
  const keyFile = join(dir, KEY);
  if (existsSync(certFile) && existsSync(keyFile)) {
    const certPem = readFileSync(certFile, 'utf8');
    if (covers(certPem, host)) {
      chmodSync(keyFile, 0o600);
      return { certPem, keyPem: readFileSync(keyFile, 'utf8'), fingerprint: fingerprintOf(new X509Certificate(certPem).raw) };
    }
  }
  const made = await makeCertificate([...new Set([host, '127.0.0.1', 'localhost'])]);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const write = (file: string, text: string) => {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  };
  write(keyFile, made.keyPem);
  write(certFile, made.certPem);
  chmodSync(certFile, 0o644);
  return made;
}

/** A new P-256 key and a self-signed certificate for `names` (IP addresses and DNS names), valid ten years. */
export async function makeCertificate(names: string[], random: Uint8Array = webcrypto.getRandomValues(new Uint8Array(16))): Promise<DeviceCertificate> {
  const crypto = webcrypto;
  pkijs.setEngine('node', new pkijs.CryptoEngine({ name: 'node', crypto: crypto as unknown as ConstructorParameters<typeof pkijs.CryptoEngine>[0]['crypto'] }));
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;

  const cert = new pkijs.Certificate();
  cert.version = 2;
  cert.serialNumber = new asn1js.Integer({ valueHex: serialBytes(random).buffer });
  const cn = new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: 'Deskhand paired-device listener' }) });
  cert.issuer.typesAndValues.push(cn);
  cert.subject.typesAndValues.push(new pkijs.AttributeTypeAndValue({ type: '2.5.4.3', value: new asn1js.Utf8String({ value: 'Deskhand paired-device listener' }) }));
  const now = new Date();
  cert.notBefore.value = new Date(now.getTime() - 3600_000);
  cert.notAfter.value = new Date(now.getTime() + 10 * 365 * 24 * 3600_000);
  const altNames = new pkijs.GeneralNames({
    names: names.map((n) =>
      isIP(n)
        ? new pkijs.GeneralName({ type: 7, value: new asn1js.OctetString({ valueHex: ipBytes(n) }) })
        : new pkijs.GeneralName({ type: 2, value: n }),
    ),
  });
  cert.extensions = [
    new pkijs.Extension({ extnID: '2.5.29.17', critical: false, extnValue: altNames.toSchema().toBER(false) }),
    new pkijs.Extension({ extnID: '2.5.29.19', critical: true, extnValue: new pkijs.BasicConstraints({ cA: false }).toSchema().toBER(false) }),
    new pkijs.Extension({ extnID: '2.5.29.37', critical: false, extnValue: new pkijs.ExtKeyUsage({ keyPurposes: ['1.3.6.1.5.5.7.3.1'] }).toSchema().toBER(false) }),
  ];
  await cert.subjectPublicKeyInfo.importKey(keys.publicKey as never);
  await cert.sign(keys.privateKey as never, 'SHA-256');
  const der = cert.toSchema(true).toBER(false);
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { certPem: pem('CERTIFICATE', der), keyPem: pem('PRIVATE KEY', pkcs8), fingerprint: fingerprintOf(Buffer.from(der)) };
}

/**
 * A certificate serial from random bytes, as DER wants it: positive (top bit clear) and minimal (a first byte of zero
 * followed by a byte under 0x80 is padding OpenSSL refuses: "illegal padding", about one certificate in 256 before).
 */
export function serialBytes(random: Uint8Array): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(random, (b, i) => (i === 0 ? (b & 0x7f) | 0x01 : b));
}

function ipBytes(ip: string): ArrayBuffer {
  if (isIP(ip) === 4) return new Uint8Array(ip.split('.').map(Number)).buffer;
  // IPv6: expand "::" and write eight 16-bit groups.
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = parseInt(g, 16);
    out[i * 2] = v >> 8;
    out[i * 2 + 1] = v & 0xff;
  });
  return out.buffer;
}
