/**
 * Runs before every test file: a throwaway keyring service name, so no test (or host or CLI a test starts, which
 * inherit the environment) ever reads or writes the real "Deskhand" keyring entries.
 */
process.env.DESKHAND_KEYRING_SERVICE ||= `Deskhand-test-${process.pid}-${Date.now()}`;
