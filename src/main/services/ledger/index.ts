/** The change ledger (docs/rewind.md): what each step changed under the writable roots, and rewinding it. */
export { ChangeLedger, DEFAULT_MAX_FILE_BYTES, netChanges, type ChangeSet, type ChangedPath, type RewindAction, type RewindItem, type RewindResult, type StepScope, type ChangeKind, type EntryState } from './ledger';
export { renderDiff } from './diff';
export { ledgerRecords } from './recordable';
