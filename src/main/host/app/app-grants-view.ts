/**
 * App grants (computer use) for hosts: `deskhand grants list | revoke APP` and Settings → App grants read and revoke
 * the same store rows, said in the same words.
 */
import type { AppGrant } from '../../services/computer/index';
import { StoreGrantBook } from '../../services/computer/grant-book';
import { type Records } from '../../runtime/records';

export function appGrantBook(store: Records): StoreGrantBook {
  return new StoreGrantBook(store.appGrants);
}

export interface AppGrantView {
  app: string;
  capabilities: string[];
  createdAt: number;
  expiresAt: number | null;
  /** One line: what Deskhand may do in the app and until when. */
  covers: string;
}

export function viewAppGrant(g: AppGrant): AppGrantView {
  const until = g.expiresAt ? `until ${new Date(g.expiresAt).toLocaleString()}` : 'until you revoke it';
  return { app: g.app, capabilities: [...g.capabilities], createdAt: g.createdAt, expiresAt: g.expiresAt, covers: `${g.capabilities.join(', ')} — ${until}` };
}

export function listAppGrants(store: Records): AppGrantView[] {
  return appGrantBook(store).list().map(viewAppGrant);
}
