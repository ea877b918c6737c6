/** A unified diff of one changed path from the kept bytes, for text files (null for binary, missing or large ones). */
import { createTwoFilesPatch } from 'diff';
import type { BlobStore } from './blobs';
import type { EntryState } from './scan';

/** Files bigger than this are not diffed (the list names them). */
const MAX_DIFF_BYTES = 512 * 1024;

/** A recorded state's text: '' for absent, null for a folder, link, binary, large or unkept file. */
export function textOf(state: EntryState | null, blobs: BlobStore): string | null {
  if (!state) return '';
  if (state.type !== 'file' || !state.hash || state.size > MAX_DIFF_BYTES) return null;
  const bytes = blobs.get(state.hash);
  if (!bytes || bytes.includes(0)) return null;
  return bytes.toString('utf8');
}

export function renderDiff(path: string, before: EntryState | null, after: EntryState | null, blobs: BlobStore): string | null {
  if ((before && before.type !== 'file') || (after && after.type !== 'file')) return null;
  const a = textOf(before, blobs);
  const b = textOf(after, blobs);
  if (a === null || b === null || a === b) return null;
  return createTwoFilesPatch(before ? `a${path}` : '/dev/null', after ? `b${path}` : '/dev/null', a, b, '', '', { context: 3 });
}
