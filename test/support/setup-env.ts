/**
 * Runs before every test file: a throwaway keyring service name, so no test (or host or CLI a test starts, which
 * inherit the environment) ever reads or writes the real "Deskhand" keyring entries; and the check that fails a test
 * whose requests a scripted model server refused as the real provider would (model-server.ts), unless the test said
 * it expects refusals.
 */
import { afterAll, afterEach } from 'vitest';

process.env.DESKHAND_KEYRING_SERVICE ||= `Deskhand-test-${process.pid}-${Date.now()}`;
// Automatic memory extraction is one more model call after each turn; scripted tests control every call, so it is off
// unless a test turns it on (test/memory/memory-e2e.test.ts).
process.env.DESKHAND_MEMORY_EXTRACTION ||= 'off';
// Issue 46 lets confined calls (sandboxed commands, workspace writes the change ledger records) run unasked. Suites
// written before it use exactly those calls as their examples of a call that asks, so they ask here unless a test
// turns the rule on (DESKHAND_CONFINED unset or 'on': test/security/confined-approvals.test.ts, confined-chain-e2e).
process.env.DESKHAND_CONFINED ||= 'ask';

// The same list model-server.ts fills (a symbol on globalThis: this file imports nothing of the server).
const UNEXPECTED = Symbol.for('deskhand.test.unexpectedRefusals');

function failOnRefusals(when: string): void {
  const registry = globalThis as { [UNEXPECTED]?: string[] };
  const lines = registry[UNEXPECTED] ?? [];
  registry[UNEXPECTED] = [];
  if (lines.length === 0) return;
  throw new Error(
    `The scripted model server refused ${lines.length} request(s) ${when}, as the real provider would (a test that sends invalid requests on purpose passes expectRefusals):\n` +
      lines.map((l) => `  - ${l}`).join('\n'),
  );
}

afterEach(() => failOnRefusals('during this test'));
afterAll(() => failOnRefusals('outside any test of this file (in a beforeAll or afterAll, or after its test ended)'));
