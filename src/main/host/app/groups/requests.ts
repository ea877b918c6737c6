/**
 * What a UI needs to answer a file pick besides a JSON value: the request's picker options (for the desktop's native
 * dialog) and one folder's entry names for the web folder browser. Names only, never contents, and only while a file
 * pick waits (AppService checks that); what is finally picked is checked again by the `file_pick` kind when answered.
 * And the contract's requests area as a handler group: listing what waits, approving and denying, secrets, answers
 * and file picks, each answer resuming a parked run through AppService's `answer`.
 */
import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { MethodResult, ParsedParams } from '../../../../shared/contract';
import { DeskhandError, errorMessage } from '../../../../shared/errors';
import type { RunOptions } from '../../../runtime/runtime';
import type { HandlerGroup } from '../handler-groups';
import { type ApprovalRow, type Records } from '../../../runtime/records';

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
  const dirents = folderEntries(path);
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

/** One folder's entries, or a sentence the person can act on (a file, no permission, another error). */
export function folderEntries(path: string): Dirent[] {
  try {
    if (!statSync(path).isDirectory()) throw new DeskhandError('usage', `${path} is a file, not a folder.`);
    return readdirSync(path, { withFileTypes: true });
  } catch (err) {
    if (DeskhandError.isInstance(err)) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new DeskhandError('usage', code === 'EACCES' || code === 'EPERM' ? `Deskhand may not open ${path} (permission denied). Choose another folder.` : `${path} cannot be opened (${code ?? 'error'}).`);
  }
}

/** A pending request by id; forged and stale ids are logged and refused, and a stale one refreshes the list. */
export function pendingRequest(
  store: Pick<Records, 'getApproval'>,
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

type RequestMethods = 'listPendingApprovals' | 'decideApproval' | 'provideSecret' | 'answerRequest' | 'browseForRequest' | 'pickForRequest';

export interface RequestGroupDeps {
  /** Who answers here, as approvals record it ("the web UI", "the editor (Zed)"). */
  answeredBy(): string;
  /** Answers one request through `act`; a parked run's last answer resumes it (answer-resume.ts). */
  answer(approval: ApprovalRow, act: (resume?: RunOptions) => Promise<unknown>): Promise<boolean>;
  /** A conversation's folder (where a file pick starts browsing). */
  folderOf(conversationId: string): string;
  /** Native file dialog for file_pick requests (Electron only): the picked paths, or null when cancelled. */
  pickPaths?: (opts: PickOptions) => Promise<string[] | null>;
}

/** The requests area: what waits for the person and every way of answering it. */
export const requestGroup =
  (deps: RequestGroupDeps): HandlerGroup<RequestMethods> =>
  ({ runtime, log, markChanged, pendingApprovals }) => {
    /** A pending request by id; forged and stale ids are logged and refused. */
    const pending = (approvalId: string, method: string): ApprovalRow => pendingRequest(runtime.records, approvalId, method, log, () => markChanged('approvals'));
    return {
      async listPendingApprovals(): Promise<MethodResult<'listPendingApprovals'>> {
        return { approvals: pendingApprovals() };
      },

      async decideApproval(p: ParsedParams<'decideApproval'>): Promise<MethodResult<'decideApproval'>> {
        const approval = pending(p.approvalId, 'decideApproval');
        const answer = {
          approved: p.decision !== 'deny',
          always: p.decision === 'always',
          ...(p.decision === 'always' && p.scope ? { scope: p.scope } : {}),
          ...(p.decision === 'always' && p.lifetime ? { lifetime: p.lifetime } : {}),
          ...(p.reason?.trim() ? { reason: p.reason.trim() } : {}),
          by: deps.answeredBy(),
        };
        if (p.decision === 'always' && !approval.always_pattern) {
          throw new DeskhandError('usage', 'No "always allow" rule can be saved for this call; approve it once instead.');
        }
        if (approval.kind === 'secret' && answer.approved) {
          throw new DeskhandError('usage', 'This request asks you to type a secret: type it in the hidden field and press "Save secret", or deny it.');
        }
        const resumed = await deps.answer(approval, (resume) => runtime.decideApproval(p.approvalId, answer, resume));
        return { decision: answer.approved ? 'approved' : 'denied', resumed };
      },

      async provideSecret(p: ParsedParams<'provideSecret'>): Promise<MethodResult<'provideSecret'>> {
        const approval = pending(p.approvalId, 'provideSecret');
        if (approval.kind !== 'secret') throw new DeskhandError('usage', 'That approval does not ask for a secret; answer it with Approve or Deny.');
        if (!runtime.vault) throw new DeskhandError('usage', 'This Deskhand has no vault (OS keyring), so a secret cannot be saved here.');
        try {
          return { resumed: await deps.answer(approval, (resume) => runtime.provideSecret(p.approvalId, p.value, resume, deps.answeredBy())) };
        } catch (err) {
          // Whatever failed (the keyring, most likely) says so without the value, to the UI and to the log.
          const scrub = (text: string) => text.split(p.value).join('[the secret]');
          if (DeskhandError.isInstance(err)) throw new DeskhandError(err.code, scrub(err.message));
          throw new DeskhandError('internal', scrub(errorMessage(err)));
        }
      },

      async answerRequest(p: ParsedParams<'answerRequest'>): Promise<MethodResult<'answerRequest'>> {
        const request = pending(p.requestId, 'answerRequest');
        if (request.kind === 'approval') throw new DeskhandError('usage', 'That is an approval: answer it with Approve, Always allow or Deny.');
        if (request.kind === 'secret') throw new DeskhandError('usage', 'That request asks for a secret: type it in the hidden field and press "Save secret", or deny it.');
        return { resumed: await deps.answer(request, (resume) => runtime.answerRequest(p.requestId, p.value, resume, deps.answeredBy())) };
      },

      async browseForRequest(p: ParsedParams<'browseForRequest'>): Promise<MethodResult<'browseForRequest'>> {
        const request = pending(p.requestId, 'browseForRequest');
        filePickOptions(request);
        return listFolder(p.path ?? deps.folderOf(runtime.records.getRun(request.run_id)?.conversation_id ?? ''));
      },

      async pickForRequest(p: ParsedParams<'pickForRequest'>): Promise<MethodResult<'pickForRequest'>> {
        if (!deps.pickPaths) throw new DeskhandError('unsupported', 'A native file dialog exists only in the desktop app; browse for the file in the card instead.');
        const paths = await deps.pickPaths(filePickOptions(pending(p.requestId, 'pickForRequest')));
        if (!paths || paths.length === 0) return { resumed: false, cancelled: true };
        // The dialog may have stayed open a while: the request is looked up again.
        const request = pending(p.requestId, 'pickForRequest');
        return { resumed: await deps.answer(request, (resume) => runtime.answerRequest(p.requestId, { paths }, resume, deps.answeredBy())), cancelled: false };
      },
    };
  };
