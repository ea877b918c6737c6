/** Where the peer endpoint may listen without TLS: only on this machine (the URL guard's loopback judgement). */
import { describe, expect, it } from 'vitest';
import { endpointBindingProblem } from '../../src/shared/peers';

describe('endpointBindingProblem', () => {
  it.each(['127.0.0.1', '127.5.6.7', '::1', '[::1]', 'localhost', 'LOCALHOST'])('%s stays on this machine: plain HTTP is allowed', (host) => {
    expect(endpointBindingProblem({ host })).toBeNull();
  });

  it.each(['0.0.0.0', '::', '192.168.1.20', '10.0.0.5', '203.0.113.7', 'fe80::1', 'deskhand.example.com'])('%s leaves it: TLS or the person\'s word is needed', (host) => {
    expect(endpointBindingProblem({ host })).toMatch(/leaves this machine/);
    expect(endpointBindingProblem({ host, tlsCert: '/c.pem', tlsKey: '/k.pem' })).toBeNull();
    expect(endpointBindingProblem({ host, tlsInFront: true })).toBeNull();
  });

  it('a certificate without its key (or a key alone) is refused wherever it listens', () => {
    expect(endpointBindingProblem({ host: '127.0.0.1', tlsCert: '/c.pem' })).toMatch(/both a certificate and its key/);
    expect(endpointBindingProblem({ host: '0.0.0.0', tlsKey: '/k.pem' })).toMatch(/both a certificate and its key/);
  });
});
