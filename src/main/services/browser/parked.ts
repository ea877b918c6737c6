/**
 * What a parked conversation's browser session leaves behind: `browser/parked/<conversation>.json` in the data dir,
 * read by whichever process resumes the run (see PlaywrightBrowser.park / unpark).
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface Parked {
  /** `outline`: a hash of the tab's latest outline (never the outline: it may show what was typed). */
  tabs: { name: string; url: string; posted?: boolean; outline?: string; typed?: { ref: string; action: 'fill' | 'type' | 'select' | 'check'; value: string }[]; secrets?: string[] }[];
  current: string | null;
  approved: string[];
}

export function parkedPath(root: string, conversationId: string): string {
  return join(root, 'parked', `${conversationId.replace(/[^\w.-]/g, '_')}.json`);
}

export function readParked(root: string, conversationId: string): Parked | null {
  try {
    return JSON.parse(readFileSync(parkedPath(root, conversationId), 'utf8')) as Parked;
  } catch {
    return null;
  }
}

export function clearParked(root: string, conversationId: string): void {
  rmSync(parkedPath(root, conversationId), { force: true });
}

/** Whether any conversation's session is parked (its sign-ins are kept for the resume). */
export function anyParked(root: string): boolean {
  try {
    return readdirSync(join(root, 'parked')).some((f) => f.endsWith('.json'));
  } catch {
    return false;
  }
}
