/** The change ledger (docs/rewind.md): what each step changed under the writable roots, and rewinding it. */
export { ChangeLedger, DEFAULT_MAX_FILE_BYTES, recordableRoot, netChanges, type ChangeSet, type ChangedPath, type RewindAction, type RewindItem, type RewindResult, type StepScope, type ChangeKind, type EntryState } from './ledger';
export { renderDiff, textOf } from './diff';
export { IGNORED_NAMES } from './scan';
export { ledgerRecords } from './recordable';
