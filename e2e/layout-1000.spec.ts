/**
 * A laptop window (issue 52 items 2 and 3): at 1000 px the right panel folds into a drawer (its button reopens it), the
 * conversation keeps most of the width, no header control is clipped, the page never scrolls sideways, the title is
 * not cut while it has room, the composer's placeholder never becomes a box with scroll arrows — also with a
 * composition open. The right panel scrolls as one: no section is a scroll box of its own, none pinned far below.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './support';

const TITLE = 'Make me a quarterly sales report for the team';
const html = '<!doctype html><html><body><h1>Figures</h1><p>Q3: 12, Q4: 15</p></body></html>';

/** Evaluated in the page (a string: the e2e project type-checks without the DOM library). */
const FACTS = `(() => {
  const root = document.documentElement;
  const header = document.querySelector('.conv-header');
  const controls = header ? [...header.querySelectorAll('select, button, .model, .run-chip, h1, .conv-folder')] : [];
  const clipped = controls
    .filter((el) => el.getBoundingClientRect().width > 0)
    .filter((el) => {
      const r = el.getBoundingClientRect();
      const h = header.getBoundingClientRect();
      const own = el.matches('select, button') && el.scrollWidth > el.clientWidth + 1;
      return own || r.right > h.right + 1 || r.left < h.left - 1 || r.right > window.innerWidth;
    })
    .map((el) => el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30));
  const h1 = header?.querySelector('h1');
  return {
    sideScroll: [root, document.body, document.querySelector('.app')].map((el) => el.scrollWidth - el.clientWidth),
    clipped,
    titleCut: h1 ? h1.scrollWidth > h1.clientWidth : null,
    conversation: Math.round(document.querySelector('main.conversation').getBoundingClientRect().width),
  };
})()`;

interface Facts {
  sideScroll: number[];
  clipped: string[];
  titleCut: boolean | null;
  conversation: number;
}
const facts = (page: Page) => page.evaluate(FACTS) as Promise<Facts>;

/** The message box: no scroll of its own around a placeholder that wraps. */
const composerScrolls = (page: Page) =>
  page.evaluate(`(() => { const t = document.querySelector('.composer textarea'); return t.scrollHeight > t.clientHeight + 1 || getComputedStyle(t).overflowY === 'scroll'; })()`) as Promise<boolean>;

test('1000 px: the side panel folds into a drawer, nothing is clipped, no sideways scroll', async ({ deskhand }) => {
  await deskhand.startModel([{ text: ['Working', ' on', ' it', ' now.'], delayMs: 1200 }]);
  const page = deskhand.pageForListeners()!;
  await page.setViewportSize({ width: 1000, height: 760 });
  await deskhand.start();
  await deskhand.newConversation(TITLE);

  await expect(page.locator('.panel-stack')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Show side panel' })).toBeVisible();
  let f = await facts(page);
  expect(f.sideScroll).toEqual([0, 0, 0]);
  expect(f.clipped).toEqual([]);
  expect(f.titleCut).toBe(false);
  // The conversation has most of the window (three columns left it about 440 px).
  expect(f.conversation).toBeGreaterThanOrEqual(680);

  // While it works the placeholder is the long one; at 1000 px and at 760 px it stays in a box without scroll arrows.
  await deskhand.send('Start');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveAttribute('placeholder', /Working/);
  expect(await composerScrolls(page)).toBe(false);
  // The box refits when its width changes (a ResizeObserver, one frame after the new layout): poll, not one look.
  await page.setViewportSize({ width: 760, height: 760 });
  await expect.poll(() => composerScrolls(page)).toBe(false);
  f = await facts(page);
  expect(f.sideScroll).toEqual([0, 0, 0]);
  expect(f.clipped).toEqual([]);
  await page.setViewportSize({ width: 1000, height: 760 });
  await expect(page.getByText('Working on it now.')).toBeVisible();

  // The drawer opens on request; its sections follow one another in one scroller.
  await page.getByRole('button', { name: 'Show side panel' }).click();
  const drawer = page.getByRole('dialog', { name: 'Side panel' });
  await expect(drawer).toBeVisible();
  const sections = (await page.evaluate(`[...document.querySelectorAll('.panel-stack > .panel')].map((p) => {
    const r = p.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, overflowY: getComputedStyle(p).overflowY };
  })`)) as { top: number; bottom: number; overflowY: string }[];
  expect(sections.length).toBeGreaterThan(3);
  for (const [i, s] of sections.entries()) {
    // Not a scroll box of its own (no arrows per section): the stack scrolls.
    expect(s.overflowY, `section ${i}`).toBe('visible');
    if (i > 0) expect(Math.abs(s.top - sections[i - 1]!.bottom), `section ${i} follows the one before`).toBeLessThanOrEqual(1);
  }
  expect((await facts(page)).sideScroll).toEqual([0, 0, 0]);
  await page.keyboard.press('Escape');
  await expect(drawer).toHaveCount(0);

  // Wide again: the panel is a column once more, open as it is by default on a wide window.
  await page.setViewportSize({ width: 1440, height: 900 });
  await expect(page.locator('.panel-stack')).toBeVisible();
  await expect(page.getByRole('dialog', { name: 'Side panel' })).toHaveCount(0);
  f = await facts(page);
  expect(f.sideScroll).toEqual([0, 0, 0]);
  expect(f.clipped).toEqual([]);
  expect(f.titleCut).toBe(false);
});

test('1000 px with a composition open: the header is not clipped and nothing scrolls sideways', async ({ deskhand }) => {
  await deskhand.startModel([{ tools: [{ name: 'create_composition', args: { title: 'Figures', kind: 'html', content: html } }] }, { text: ['Made the figures page.'] }]);
  const page = await deskhand.start();
  await deskhand.newConversation(TITLE);
  await deskhand.send('Make a figures page');
  await expect(page.getByRole('article', { name: 'Deskhand' }).last()).toContainText('Made the figures page.');
  await page.getByRole('complementary', { name: 'Compositions' }).getByRole('button', { name: 'Open composition Figures' }).click();
  await expect(page.getByRole('region', { name: 'Composition Figures' })).toBeVisible();
  for (const width of [1440, 1000]) {
    await page.setViewportSize({ width, height: 800 });
    const f = await facts(page);
    expect(f.sideScroll, `at ${width} px`).toEqual([0, 0, 0]);
    expect(f.clipped, `at ${width} px`).toEqual([]);
    await expect.poll(() => composerScrolls(page), { message: `at ${width} px` }).toBe(false);
  }
});
