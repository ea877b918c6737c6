/**
 * The browser service as the browser family sees it: one Chromium per app (a persistent profile per agent in the data
 * dir, its process group recorded so nothing outlives Deskhand), a session of named tabs per conversation, pages read
 * as aria outlines with refs, and a tab of the person's own browser adopted over CDP when they pick it. The concrete
 * class (PlaywrightBrowser) is built by the host; tools get this interface.
 */
export { formatOutline, diffOutlines, OUTLINE_MAX_CHARS, type Outline } from './snapshot';

export type ActAction = 'click' | 'fill' | 'type' | 'press' | 'select' | 'check' | 'hover' | 'upload';
export const ACT_ACTIONS: readonly ActAction[] = ['click', 'fill', 'type', 'press', 'select', 'check', 'hover', 'upload'];

export interface BrowserSettings {
  /** An explicit Chrome/Chromium/Edge path (else discovery: see services/chromium). */
  executable?: string;
  /** false: a visible window (needs a display). Default true. */
  headless: boolean;
  /** The person's own browser for browser_adopt_tab (`http://127.0.0.1:9222`). */
  endpoint?: string;
  /** Sites (host names, subdomains included) whose cookies and storage survive the end of a browser session. */
  keepSignedIn?: string[];
}

export interface PageInfo {
  tab: string;
  url: string;
  title: string;
}

export interface PageNotes extends PageInfo {
  /** Things that happened on the side: dialogs answered, tabs opened, downloads saved, navigations blocked, a reload. */
  notes: string[];
}

export interface SnapshotResult extends PageNotes {
  outline: string;
  refs: number;
  cut: number;
}

export interface ActRequest {
  ref: string;
  action: ActAction;
  value?: string;
  /** Absolute paths for `upload` (already judged by the path guard). */
  files?: string[];
  /** How a dialog the action opens is answered (alerts are always accepted). Default dismiss. */
  dialog?: 'accept' | 'dismiss';
  /** The value carries a secret: typed only on https or loopback pages, and masked in screenshots. */
  secret?: boolean;
  /** Where a download the action starts is saved (the conversation's workspace). */
  downloadDir?: string;
}

export interface ActResult extends PageNotes {
  /** Lines that went and came in the outline, or null when nothing visible changed. */
  diff: string | null;
  /** The page moved to another document. */
  navigated: boolean;
}

export interface RefInfo {
  role: string;
  name: string;
  /** An `<input type=password>`. */
  password: boolean;
  /** The URL of the page (or frame) the element is in. */
  url: string;
}

export interface AdoptableTab {
  id: string;
  title: string;
  url: string;
}

export interface SessionView {
  conversationId: string;
  tab: string;
  url: string;
  title: string;
  tabs: number;
  /** A small JPEG of the current tab as a data URL (taken when the page changes and someone listens), or null. */
  shot: string | null;
}

export interface BrowserService {
  /** The browser that would be started, or why none can be. */
  available(): { ok: true; path: string } | { ok: false; message: string };
  navigate(conversationId: string, url: string, tab?: string, signal?: AbortSignal): Promise<PageNotes>;
  back(conversationId: string, tab?: string): Promise<PageNotes>;
  snapshot(conversationId: string, tab?: string): Promise<SnapshotResult>;
  screenshot(conversationId: string, opts: { tab?: string; ref?: string; fullPage?: boolean; path: string }): Promise<PageInfo & { path: string; bytes: number }>;
  tabs(conversationId: string, action: 'list' | 'new' | 'select' | 'close', name?: string): Promise<{ current: string | null; tabs: PageInfo[]; notes: string[] }>;
  act(conversationId: string, req: ActRequest, tab?: string): Promise<ActResult>;
  /** What a ref of the latest snapshot is (for effects: password fields), or null when unknown. */
  refInfo(conversationId: string, ref: string, tab?: string): Promise<RefInfo | null>;
  /** The URL of a tab (the current one by default), or null without a session. */
  currentUrl(conversationId: string, tab?: string): string | null;
  /**
   * Ends the conversation's session: its tabs close (adopted tabs are released, not closed) and the cookies and
   * storage of every site its pages reached are discarded, except sites kept in Settings (`keepSignedIn`); when it was
   * the last session, every cookie of a site not kept is discarded too.
   */
  close(conversationId: string): Promise<{ closed: boolean; tabs: number; discarded: { sites: string[]; kept: string[] } }>;
  /**
   * A private destination (`host:port`) a person approved in this conversation: covered for the rest of the
   * conversation's browser session, in this conversation only (another conversation asks for itself).
   */
  approveDestination(conversationId: string, key: string): void;
  destinationApproved(conversationId: string, key: string): boolean;
  /** The tabs of a browser the person started with remote debugging (`/json/list`). */
  listAdoptable(endpoint: string): Promise<AdoptableTab[]>;
  /** The tabs last listed at an endpoint (synchronous, for the input request). */
  lastListed(endpoint: string): AdoptableTab[] | null;
  adopt(conversationId: string, endpoint: string, target: AdoptableTab): Promise<PageNotes>;
  /** A run of the conversation parked: its pages are remembered (for the resume) and its session closed. */
  park(conversationId: string): Promise<void>;
  /** Open sessions (for the UI). */
  sessions(): SessionView[];
  onChange(listener: (view: SessionView | { conversationId: string; closed: true }) => void): () => void;
  /** On quit: every session closed and the browser process ended. */
  shutdown(): Promise<void>;
}

/** Records the browser's process group so a crashed Deskhand's browser is ended at the next start. */
export interface OwnedGroups {
  record(group: { pgid: number; start_time: string; tag: string }): void;
  forget(tag: string): void;
}
