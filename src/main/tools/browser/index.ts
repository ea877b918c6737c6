/**
 * The browser family (Spec I): browser_navigate, browser_back, browser_snapshot, browser_screenshot, browser_tabs,
 * browser_act (pair execute_browser_act), browser_close and browser_adopt_tab (a `browser_tab` input request). The
 * browser itself is a service (services/browser) the host builds: one Chromium per app, a session per conversation.
 */
import type { InputKind } from '../../runtime/loop/input-kinds';
import type { ToolDefinition } from '../../runtime/tool';
import type { BrowserService } from '../../services/browser/index';
import { createAct } from './act';
import { browserTabKind, createAdoptTab } from './adopt';
import { createBack, createClose, createNavigate, createScreenshot, createSnapshot, createTabs } from './pages';

export interface BrowserDeps {
  browser: BrowserService;
  dataDir: string;
  /** The person's URL grant patterns, read at each call. */
  urlGrants: () => readonly string[];
  /** The person's own browser for browser_adopt_tab (Settings), read at each call. */
  endpoint: () => string | undefined;
  /** Resolves a host name for the url-guard inspector. */
  resolve(host: string): Promise<string[]>;
}

export function createBrowserFamily(deps: BrowserDeps): { tools: ToolDefinition[]; inputKinds: InputKind[] } {
  const pages = { browser: deps.browser, dataDir: deps.dataDir, urlGrants: deps.urlGrants, resolve: deps.resolve };
  return {
    tools: [
      createNavigate(pages),
      createBack(pages),
      createSnapshot(pages),
      createScreenshot(pages),
      createTabs(pages),
      createAct(pages),
      createClose(pages),
      createAdoptTab({ browser: deps.browser, endpoint: deps.endpoint }),
    ] as unknown as ToolDefinition[],
    inputKinds: [browserTabKind as InputKind],
  };
}
