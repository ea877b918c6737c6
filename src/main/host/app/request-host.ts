/**
 * What a UI needs to answer a file pick besides a JSON value: the request's picker options (for the desktop's native
 * dialog) and one folder's entry names for the web folder browser. Names only, never contents, and only while a file
 * pick waits (AppService checks that); what is finally picked is checked again by the `file_pick` kind when answered.
 */
import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { MethodResult } from '../../../shared/contract';
import { DeskhandError } from '../../../shared/errors';
import type { ApprovalRow, Store } from '../../services/store/store';

export interface PickOptions {
  pick: 'file' | 'folder' | 'any';
  multiple: boolean;
  prompt: string;
}

/** A folder with more entries than this is listed in part (the person can type a path to go further). */
const MAX_ENTRIES = 5000;

/** The picker options of a pending file pick; any other request is refused. */
export function filePickOptions(request: ApprovalRow): PickOptions {
  if (request.kind !== 'file_pick') throw new DeskhandError('usage', 'That request does not ask you to pick a file or folder.');
  let data: Partial<PickOptions> = {};
  try {
    data = (JSON.parse(request.request ?? '{}') ?? {}) as Partial<PickOptions>;
  } catch {
    // A damaged request still opens a plain file dialog.
  }
  const pick = data.pick === 'folder' || data.pick === 'any' ? data.pick : 'file';
  return { pick, multiple: data.multiple === true, prompt: typeof data.prompt === 'string' ? data.prompt : request.description };
}

/**
 * One folder's entries: folders, files and links to either (broken links, sockets and devices are left out), names
 * only. Hidden entries (dot names) come last; within each group folders first, then by name.
 */
export function listFolder(input: string): MethodResult<'browseForRequest'> {
  if (!isAbsolute(input)) throw new DeskhandError('usage', `Give a full path (starting with /); "${input}" is not one.`);
  let path: string;
  try {
    path = realpathSync(resolve(input));
  } catch {
    throw new DeskhandError('not_found', `${input} does not exist. Check the path, or go up a folder.`);
  }
  let dirents: Dirent[];
  try {
    if (!statSync(path).isDirectory()) throw new DeskhandError('usage', `${path} is a file, not a folder.`);
    dirents = readdirSync(path, { withFileTypes: true });
  } catch (err) {
    if (DeskhandError.isInstance(err)) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new DeskhandError('usage', code === 'EACCES' || code === 'EPERM' ? `Deskhand may not open ${path} (permission denied). Choose another folder.` : `${path} cannot be opened (${code ?? 'error'}).`);
  }
  const entries: { name: string; kind: 'file' | 'folder' }[] = [];
  for (const d of dirents) {
    const kind = entryKind(d, path);
    if (kind) entries.push({ name: d.name, kind });
  }
  const rank = (e: { name: string; kind: string }) => (e.name.startsWith('.') ? 2 : 0) + (e.kind === 'folder' ? 0 : 1);
  entries.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
  const parent = dirname(path);
  return { path, parent: parent === path ? null : parent, entries: entries.slice(0, MAX_ENTRIES), truncated: entries.length > MAX_ENTRIES };
}

function entryKind(d: Dirent, folder: string): 'file' | 'folder' | null {
  if (d.isDirectory()) return 'folder';
  if (d.isFile()) return 'file';
  if (!d.isSymbolicLink()) return null;
  try {
    const target = statSync(join(folder, d.name));
    return target.isDirectory() ? 'folder' : target.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}

/** A pending request by id; forged and stale ids are logged and refused, and a stale one refreshes the list. */
export function pendingRequest(
  store: Pick<Store, 'getApproval'>,
  approvalId: string,
  method: string,
  log: { warn(message: string, data?: Record<string, unknown>): void },
  onStale: () => void,
): ApprovalRow {
  const approval = store.getApproval(approvalId);
  if (!approval) {
    log.warn(`rejected ${method}: no such approval (forged or deleted id)`, { approvalId });
    throw new DeskhandError('not_found', 'That approval does not exist. The list of approvals waiting has been refreshed.');
  }
  if (approval.status !== 'pending') {
    log.warn(`rejected ${method}: approval already answered (stale id)`, { approvalId, status: approval.status });
    onStale();
    throw new DeskhandError('conflict', `That approval was already ${approval.status}; each approval can be answered once.`);
  }
  return approval;
}
