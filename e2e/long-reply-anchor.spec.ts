/**
 * Item 1 of issue 54 in the browser: a long reply streamed in one burst lays out only what comes near the viewport
 * (`content-visibility: auto` on its blocks, a size guess per block until then). Scrolling up through it, each block
 * above gets its real height as it comes near; what the reader is looking at must not move by as much (the transcript
 * compensates, Transcript.tsx), and every block passed ends with its real height. Nothing here waits for a time: each
 * step polls until the page is settled.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './support';

/** Paragraphs of different lengths and letters as wide as `W` or as narrow as `i`: a guess from the text is often off. */
const PARAGRAPHS = 120;
const WORDS = ['words of a reply that wraps at the column ', 'WWMM MMWW WMWM MWMW ', 'ilil illi iill lili '];
const paragraph = (i: number): string => `P${i}: ` + WORDS[i % 3]!.repeat(1 + ((i * 7) % 13));
const REPLY = Array.from({ length: PARAGRAPHS }, (_, i) => paragraph(i)).join('\n\n');
/** How far each step scrolls up (px): about half the transcript's height. */
const STEP = 300;

interface Snapshot {
  /** The first block whose top is in view: its number and its top, relative to the scroller's top. */
  marker: string;
  top: number;
  scrollTop: number;
  /** Whether every block reaching into the viewport is laid out. */
  laidOut: boolean;
}

/** The page side of `settled` (a string: this project's e2e code has no DOM types). */
const SETTLED = `(async () => {
  const read = () => {
    const scroller = document.querySelector('[role="log"]');
    const box = scroller.getBoundingClientRect();
    const blocks = [...document.querySelectorAll('.msg-assistant .md > p')];
    const inView = blocks.filter((b) => {
      const r = b.getBoundingClientRect();
      return r.bottom > box.top && r.top < box.bottom;
    });
    const first = inView.find((b) => b.getBoundingClientRect().top >= box.top) ?? inView[0];
    return {
      marker: first ? (/^P\\d+/.exec(first.textContent ?? '')?.[0] ?? '') : '',
      top: first ? first.getBoundingClientRect().top - box.top : 0,
      scrollTop: scroller.scrollTop,
      laidOut: inView.every((b) => b.checkVisibility({ contentVisibilityAuto: true })),
    };
  };
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const a = read();
  await frame();
  await frame();
  const b = read();
  return a.laidOut && JSON.stringify(a) === JSON.stringify(b) ? b : null;
})()`;

/** Where the reader's place is, read twice two frames apart: `null` while the page still moves. */
const settled = (page: Page) => page.evaluate(SETTLED) as Promise<Snapshot | null>;

/** Each block's height as laid out now, and as it is when laid out for real (a copy of the reply outside the list). */
const heights = (page: Page) =>
  page.evaluate(`(() => {
    const md = document.querySelector('.msg-assistant .md');
    const host = document.createElement('div');
    host.className = 'msg msg-assistant';
    host.style.cssText = 'position:absolute;left:-20000px;top:0;width:' + md.parentElement.getBoundingClientRect().width + 'px';
    host.append(md.cloneNode(true));
    document.body.append(host);
    const real = [...host.querySelectorAll('.md > p')].map((p) => p.getBoundingClientRect().height);
    host.remove();
    const now = [...md.querySelectorAll(':scope > p')].map((p) => p.getBoundingClientRect().height);
    return { now, real };
  })()`) as Promise<{ now: number[]; real: number[] }>;

/** Scrolls the transcript up by `step` px, as far as its top. */
const scrollUp = (page: Page, step: number) =>
  page.evaluate(`(() => {
    const scroller = document.querySelector('[role="log"]');
    scroller.scrollTop = Math.max(0, scroller.scrollTop - ${step});
  })()`);

/** Where the block numbered `marker` is now, relative to the scroller's top. */
const placeOf = (page: Page, marker: string) =>
  page.evaluate(`(() => {
    const scroller = document.querySelector('[role="log"]');
    const p = [...document.querySelectorAll('.msg-assistant .md > p')].find((b) => b.textContent.startsWith(${JSON.stringify(marker + ':')}));
    return p ? p.getBoundingClientRect().top - scroller.getBoundingClientRect().top : null;
  })()`) as Promise<number | null>;

test('scrolling up through a long streamed reply keeps the reader’s place while its blocks get their real height', async ({ deskhand }) => {
  test.skip(deskhand.kind === 'electron', 'The renderer is the same in both shells; the web one covers it.');
  // One burst: the reply in pieces of 2,000 characters, no delay between them.
  await deskhand.startModel([{ text: REPLY.match(/[\s\S]{1,2000}/g)! }]);
  const page = await deskhand.start();
  await deskhand.newConversation('Long reply');
  await deskhand.send('Write a long answer');
  await expect(page.getByText(`P${PARAGRAPHS - 1}:`)).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await expect(page.locator('.msg-assistant .md > p')).toHaveCount(PARAGRAPHS);

  // The blocks the burst scrolled past were not laid out: some still have a guessed height.
  const before = await heights(page);
  expect(before.real).toHaveLength(PARAGRAPHS);
  const guessed = before.now.filter((h, i) => Math.abs(h - before.real[i]!) > 0.5).length;
  expect(guessed).toBeGreaterThan(5);

  // Up through the reply, a step at a time: what was at the top of the view moves down by the step, no more, no less.
  let first: Snapshot | null = null;
  await expect.poll(async () => (first = await settled(page)) !== null).toBe(true);
  let at: Snapshot = first!;
  let steps = 0;
  while (at.scrollTop > 0) {
    const from = at;
    await scrollUp(page, STEP);
    let next: Snapshot | null = null;
    await expect.poll(async () => (next = await settled(page)) !== null && next.scrollTop !== from.scrollTop).toBe(true);
    at = next!;
    const moved = from.scrollTop - at.scrollTop;
    // The reader asked for STEP (less at the very top); the scroller may have moved less, by what was laid out above.
    const asked = Math.min(STEP, from.scrollTop);
    // The block that was first in view is now `asked` further down: found by its number, wherever it went.
    const place = await placeOf(page, from.marker);
    expect(place, `step ${steps}: ${from.marker} (the scroller moved ${moved}px for ${asked}px asked)`).not.toBeNull();
    expect(Math.abs(place! - (from.top + asked)), `step ${steps}: ${from.marker} moved by ${place! - from.top}px for ${asked}px scrolled`).toBeLessThanOrEqual(1);
    steps++;
  }
  expect(steps).toBeGreaterThan(5);

  // Every block was passed on the way up: each one has its real height now.
  const after = await heights(page);
  const wrong = after.now.map((h, i) => [i, h, after.real[i]!] as const).filter(([, h, r]) => Math.abs(h - r) > 0.5);
  expect(wrong).toEqual([]);
});
