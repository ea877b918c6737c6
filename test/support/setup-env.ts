/**
 * Runs before every test file: a throwaway keyring service name, so no test (or host or CLI a test starts, which
 * inherit the environment) ever reads or writes the real "Deskhand" keyring entries.
 */
process.env.DESKHAND_KEYRING_SERVICE ||= `Deskhand-test-${process.pid}-${Date.now()}`;
// Automatic memory extraction is one more model call after each turn; scripted tests control every call, so it is off
// unless a test turns it on (test/memory/memory-e2e.test.ts).
process.env.DESKHAND_MEMORY_EXTRACTION ||= 'off';
