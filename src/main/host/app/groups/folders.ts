/**
 * The web New-conversation dialog's folder browser (issue 34 item 7): one folder's sub-folders, names only, through
 * the path guard. A folder the guard calls sensitive (credentials such as ~/.ssh, Deskhand's own data, VCS hooks and
 * config) is neither listed nor opened: a conversation never starts there by a click. Hidden folders are left out
 * unless asked for. The desktop app's native picker is the same choice (pickFolder); the chosen folder is checked
 * again by createConversation like a typed one.
 */
import { realpathSync, statSync, type Dirent } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { MethodResult, ParsedParams } from '../../../../shared/contract';
import { DeskhandError } from '../../../../shared/errors';
import { expandHome, sensitiveMatch } from '../../../runtime/decision/path-guard';
import type { HandlerGroup } from '../handler-groups';
import { folderEntries } from './requests';

/** A folder with more sub-folders than this is listed in part (the person can type a path to go further). */
const MAX_FOLDERS = 2000;

export function listFolders(p: ParsedParams<'listFolders'>, ctx: { home: string; dataDir: string }): MethodResult<'listFolders'> {
  const input = (p.path ?? '').trim() || ctx.home;
  const expanded = expandHome(input, ctx.home);
  if (!isAbsolute(expanded)) throw new DeskhandError('usage', `Give a full path (starting with / or ~); "${input}" is not one.`);
  let path: string;
  try {
    path = realpathSync(resolve(expanded));
  } catch {
    throw new DeskhandError('not_found', `${input} does not exist. Check the path, or go up a folder.`);
  }
  const guard = { dataDir: ctx.dataDir, roots: [] as string[], home: ctx.home };
  const sensitive = sensitiveMatch(path, guard);
  if (sensitive) throw new DeskhandError('usage', `${path} holds ${sensitive.what}; Deskhand does not browse it or start conversations in it. Choose another folder.`);
  const dirents = folderEntries(path);
  const folders: { name: string; path: string; hidden: boolean }[] = [];
  for (const d of dirents) {
    const hidden = d.name.startsWith('.');
    if (hidden && !p.hidden) continue;
    const full = join(path, d.name);
    if (!isFolder(d, full)) continue;
    // What the guard calls sensitive is not offered, by its own name or where its link leads.
    if (sensitiveMatch(full, guard) || sensitiveMatch(realOf(full), guard)) continue;
    folders.push({ name: d.name, path: full, hidden });
  }
  folders.sort((a, b) => Number(a.hidden) - Number(b.hidden) || a.name.localeCompare(b.name));
  const parent = dirname(path);
  return { path, parent: parent === path ? null : parent, folders: folders.slice(0, MAX_FOLDERS), truncated: folders.length > MAX_FOLDERS };
}

function isFolder(d: Dirent, full: string): boolean {
  if (d.isDirectory()) return true;
  if (!d.isSymbolicLink()) return false;
  try {
    return statSync(full).isDirectory();
  } catch {
    return false;
  }
}

function realOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** listFolders for every UI (the desktop app has its native picker too). */
export const folderGroup: HandlerGroup<'listFolders'> = (ctx) => ({
  listFolders: async (p) => listFolders(p, { home: ctx.env.HOME || homedir(), dataDir: ctx.dataDir }),
});
