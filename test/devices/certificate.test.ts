import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeCertificate, serialBytes } from '../../src/main/services/devices/certificate';

describe('the paired-device certificate', () => {
  // The random serial's first byte once could be zero; DER then holds a padding byte OpenSSL refuses to read
  // ("illegal padding"), one certificate in about 256 (CI met it once).
  it.each([
    ['all zero', new Uint8Array(16)],
    ['zero then a low byte', Uint8Array.from([0, 0x12, ...new Array(14).fill(0xff)])],
    ['top bit set', Uint8Array.from([0x80, 0, ...new Array(14).fill(0)])],
    ['all ones', new Uint8Array(16).fill(0xff)],
  ])('reads back with a %s serial, positive and minimal', async (_name, random) => {
    const made = await makeCertificate(['127.0.0.1', 'localhost'], random);
    const cert = new X509Certificate(made.certPem);
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    const serial = serialBytes(random);
    expect(cert.serialNumber).toBe(Buffer.from(serial).toString('hex').toUpperCase());
    expect(serial[0]).toBeGreaterThan(0);
    expect(serial[0]).toBeLessThan(0x80);
  });
});
