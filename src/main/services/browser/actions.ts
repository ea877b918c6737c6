/**
 * The pieces of the browser service that talk to one element or one endpoint: performing an action on a located
 * element, describing an element (page code), the person's browser's tab list and finding a tab by target id.
 */
import { createHash } from 'node:crypto';
import type { Browser, Locator, Page } from 'playwright-core';
import type { ActRequest, AdoptableTab, RefInfo } from './index';

export async function performAction(loc: Locator, req: ActRequest, timeout: number): Promise<void> {
  const t = { timeout };
  switch (req.action) {
    case 'click':
      await loc.click(t);
      break;
    case 'hover':
      await loc.hover(t);
      break;
    case 'fill':
      await loc.fill(req.value ?? '', t);
      break;
    case 'type':
      await loc.pressSequentially(req.value ?? '', { ...t, delay: 10 });
      break;
    case 'press':
      await loc.press(req.value || 'Enter', t);
      break;
    case 'select':
      await loc.selectOption(
        (req.value ?? '')
          .split('\n')
          .map((v) => v.trim())
          .filter(Boolean)
          .map((v) => ({ label: v })),
        t,
      ).catch(() => loc.selectOption((req.value ?? '').split('\n').map((v) => v.trim()), t));
      break;
    case 'check':
      await loc.setChecked(!/^(false|off|no|0|uncheck)$/i.test(req.value ?? ''), t);
      break;
    case 'upload':
      await loc.setInputFiles(req.files ?? [], t);
      break;
  }
}

export async function fetchAdoptable(base: string): Promise<AdoptableTab[]> {
  const res = await fetch(`${base}/json/list`, { signal: AbortSignal.timeout(5_000) });
  if (!res.ok) throw new Error(`${base}/json/list answered ${res.status}`);
  const list = (await res.json()) as { id: string; type: string; title: string; url: string }[];
  return list.filter((t) => t.type === 'page').map((t) => ({ id: t.id, title: t.title, url: t.url }));
}

/** The page of a CDP-connected browser whose target id is `id`. */
export async function findTarget(browser: Browser, id: string): Promise<Page | undefined> {
  for (const ctx of browser.contexts()) {
    for (const page of ctx.pages()) {
      const cdp = await ctx.newCDPSession(page).catch(() => null);
      const info = cdp ? ((await cdp.send('Target.getTargetInfo').catch(() => null)) as { targetInfo?: { targetId?: string } } | null) : null;
      await cdp?.detach().catch(() => undefined);
      if (info?.targetInfo?.targetId === id) return page;
    }
  }
  return undefined;
}

/** Runs in the page on one element: what it is, for effects and approvals. */
// Page code, written as text because main has no DOM types.
export const DESCRIBE_ELEMENT = new Function(
  'el',
  `return {
    role: el.getAttribute('role') || el.tagName.toLowerCase(),
    name: el.getAttribute('aria-label') || el.getAttribute('name') || '',
    password: el.tagName === 'INPUT' && el.type === 'password',
    url: el.ownerDocument.location.href,
  };`,
) as (el: unknown) => RefInfo;

export function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
