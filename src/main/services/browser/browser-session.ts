/**
 * A conversation's browser session as the service holds it: its named tabs (each with the refs of its latest
 * snapshot, what was typed since the page loaded, its watch), notes for the model's next result, the act running now
 * and the origins its pages talked to.
 */
import type { Browser, Page } from 'playwright-core';
import type { TabWatch } from './settle';

export interface Tab {
  name: string;
  page: Page;
  refs: Set<string>;
  outline: string;
  /** Refs filled with a secret: masked in screenshots. */
  secretRefs: Set<string>;
  watch: TabWatch;
  /** What was typed, chosen and checked since the page loaded (never secrets): replayed when a parked page reopens. */
  typed: { ref: string; action: 'fill' | 'type' | 'select' | 'check'; value: string; at: number }[];
  adopted?: { browser: Browser };
}

export interface Session {
  conversationId: string;
  tabs: Map<string, Tab>;
  current: string | null;
  notes: string[];
  counter: number;
  /** The act running now: where its downloads go and how its dialogs are answered. */
  acting: { downloadDir?: string; dialog: 'accept' | 'dismiss' } | null;
  /** Every http(s) origin the session's pages (popups included) sent a request to: discarded on close unless kept. */
  origins: Set<string>;
}
