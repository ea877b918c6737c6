/**
 * The transcript's scroller: a virtualized, bottom-anchored list on @tanstack/react-virtual. Only the rows near the
 * viewport exist in the DOM; each row's real height is measured by the virtualizer's ResizeObserver. What is ours:
 * - following the end: the virtualizer anchors to the end (`anchorTo: 'end'`: a row growing while the reader is at the
 *   end — streaming text — keeps the end in view; `followOnAppend`: a new row follows only a reader at the end), and
 *   when the scroller itself changes height (the approval panel opens or closes below it) a reader who was at the end
 *   is put back there; a reader who scrolled up is never moved;
 * - a newly opened conversation starts at its end (the list is mounted per opening, starting at the estimated end,
 *   so the first paint already shows the last messages);
 * - a search match scrolls to its row (measured into place by the virtualizer) and marks it;
 * - the person's own message brings them to the end (`sent` changes), wherever they were reading;
 * - a reader who scrolled up sees "Jump to latest", with how many items arrived since they left the end;
 * - a reader who scrolled up keeps their place when a block above it inside the row they are reading changes height
 *   (a reply's paragraph laid out for the first time as it comes near the viewport — until then its height was a guess,
 *   see Markdown.tsx — or one re-rendered above): the scroller's own anchoring is off (`overflow-anchor: none`) and the
 *   virtualizer compensates rows that change wholly above the viewport, not a change inside the row that spans its top.
 *   The block at the viewport's top is the anchor (recorded at each of the reader's scrolls); when its offset inside
 *   its row moved (after a layout: a ResizeObserver on the rows; after a render: a layout effect), the scroller moves
 *   by as much.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';

interface Props<T extends { id: string }> {
  items: T[];
  estimate(item: T): number;
  render(item: T): ReactNode;
  /** Changes when a conversation was opened: jumps to the end (the caller also keys the list by it). */
  generation: number;
  label: string;
  /** Scroll to this item and mark it (a search match); a new token jumps again. Applied once the item exists. */
  focus?: { id: string; token: number } | null;
  /** Changes when the person sent a message: the list goes to its end. */
  sent?: number;
}

/** Rows rendered beyond each edge of the viewport. */
const OVERSCAN = 6;
/** The scroller's last height, for the first render of the next list (before it can measure itself). */
let lastHeight = typeof window === 'undefined' ? 800 : window.innerHeight;
/** The search jump last applied: once only, also across the remount of a reopened conversation. */
let appliedFocusToken: number | null = null;
/** A reader this close to the end is at the end. */
const END_SLACK = 8;

/** The element at the top of the viewport while the reader is away from the end, and its offset inside its row. */
interface Anchor {
  el: Element;
  row: Element;
  offset: number;
}

/** The anchor: the first block of the row spanning the scroller's top (or the row) whose bottom is below that top. */
export function findAnchor(scroller: HTMLElement): Anchor | null {
  const top = scroller.getBoundingClientRect().top;
  const inner = scroller.firstElementChild;
  if (!inner) return null;
  for (const row of Array.from(inner.children)) {
    const r = row.getBoundingClientRect();
    if (!(r.top <= top && r.bottom > top)) continue;
    // The blocks of a reply, in document order (which is their vertical order): the first one reaching below the top.
    const blocks = row.querySelectorAll('.md > *');
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (blocks[mid]!.getBoundingClientRect().bottom > top) hi = mid;
      else lo = mid + 1;
    }
    const el = lo < blocks.length ? blocks[lo]! : row;
    return { el, row, offset: el.getBoundingClientRect().top - r.top };
  }
  return null;
}

export function Transcript<T extends { id: string }>({ items, estimate, render, generation, label, focus = null, sent = 0 }: Props<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  /** Whether the reader is at the end, as of their last scroll (not changed by resizes). */
  const stick = useRef(true);
  /** The reader is away from the end (the jump button shows), and how many items the list had when they left it. */
  const [away, setAway] = useState(false);
  const seen = useRef(items.length);
  /** The height the last resize left; a scroll event at another height comes from a resize, not from the reader. */
  const knownHeight = useRef(-1);
  /** What the reader looks at, while away from the end (see the header). */
  const anchor = useRef<Anchor | null>(null);

  const itemsRef = useRef(items);
  itemsRef.current = items;
  const v = useVirtualizer<HTMLDivElement, HTMLDivElement>({
    // Mounted once per opened conversation (keyed by its generation): the first render is already at the end.
    initialRect: { width: 0, height: lastHeight },
    initialOffset: () => Math.max(0, itemsRef.current.reduce((sum, item) => sum + estimate(item), 0) - lastHeight),
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: useCallback((i: number) => estimate(itemsRef.current[i]!), [estimate]),
    // A new function for new items: the virtualizer rebuilds its measurements when the key function changes.
    getItemKey: useCallback((i: number) => items[i]!.id, [items]),
    overscan: OVERSCAN,
    anchorTo: 'end',
    followOnAppend: true,
    scrollEndThreshold: END_SLACK,
    scrollPaddingStart: 24,
  });

  // A newly opened conversation starts at its end.
  useLayoutEffect(() => {
    stick.current = true;
    if (itemsRef.current.length) v.scrollToEnd();
  }, [generation, v]);

  // The items changed under a reader at the end (a reload swapped the streamed rows for the stored ones): stay there.
  useLayoutEffect(() => {
    if (stick.current) seen.current = items.length;
    if (stick.current && items.length && !v.isAtEnd(END_SLACK)) v.scrollToEnd();
  }, [items, v]);

  const jump = useCallback(() => {
    stick.current = true;
    seen.current = itemsRef.current.length;
    setAway(false);
    if (itemsRef.current.length) v.scrollToEnd();
  }, [v]);

  // The person sent a message: bring them to it, wherever they were reading.
  const lastSent = useRef(sent);
  useLayoutEffect(() => {
    if (sent === lastSent.current) return;
    lastSent.current = sent;
    jump();
  }, [sent, jump]);

  // A search match: leave the end and bring the matched row near the top, once it is in the list.
  const focusIndex = useMemo(() => (focus ? items.findIndex((i) => i.id === focus.id) : -1), [focus, items]);
  useLayoutEffect(() => {
    if (!focus || focusIndex === -1 || appliedFocusToken === focus.token) return;
    appliedFocusToken = focus.token;
    stick.current = false;
    v.scrollToIndex(focusIndex, { align: 'start' });
  }, [focus, focusIndex, generation, v]);

  // A block above the reader's place changed height inside its row: move by as much, before the frame is painted.
  const keepAnchor = useCallback(() => {
    const a = anchor.current;
    const el = scroller.current;
    if (!a || !el || stick.current) return;
    if (!a.el.isConnected || !a.row.isConnected) {
      anchor.current = findAnchor(el);
      return;
    }
    const offset = a.el.getBoundingClientRect().top - a.row.getBoundingClientRect().top;
    const moved = offset - a.offset;
    a.offset = offset;
    if (Math.abs(moved) >= 0.5) el.scrollTop += moved;
  }, []);
  useLayoutEffect(keepAnchor);
  const rowObserver = useMemo(() => (typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(keepAnchor)), [keepAnchor]);
  useLayoutEffect(() => () => rowObserver?.disconnect(), [rowObserver]);
  const observed = useRef(new Set<Element>());
  useLayoutEffect(() => {
    const inner = scroller.current?.firstElementChild;
    if (!rowObserver || !inner) return;
    for (const el of observed.current) {
      if (el.parentElement !== inner) {
        rowObserver.unobserve(el);
        observed.current.delete(el);
      }
    }
    for (const el of Array.from(inner.children)) {
      if (!observed.current.has(el)) {
        rowObserver.observe(el);
        observed.current.add(el);
      }
    }
  });

  // The scroller got shorter or taller (an approval card opened or closed below it): a reader at the end stays there.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    knownHeight.current = lastHeight = el.clientHeight;
    const ro = new ResizeObserver(() => {
      if (el.clientHeight === knownHeight.current) return;
      knownHeight.current = lastHeight = el.clientHeight;
      if (stick.current) v.scrollToEnd();
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [v]);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    // Resizing moved the scroll position (the reader did not): the observer above decides.
    if (!el || el.clientHeight !== knownHeight.current) return;
    stick.current = el.scrollTop + el.clientHeight >= el.scrollHeight - END_SLACK;
    if (stick.current) seen.current = itemsRef.current.length;
    anchor.current = stick.current ? null : findAnchor(el);
    setAway(!stick.current);
  }, []);

  const rows = v.getVirtualItems();
  const fresh = away ? Math.max(0, items.length - seen.current) : 0;
  return (
    <>
    {away && (
      <button type="button" className="jump-latest" onClick={jump} aria-label={fresh ? `Jump to latest: ${fresh} new` : 'Jump to latest'}>
        ↓ Jump to latest{fresh ? <span className="badge">{fresh} new</span> : null}
      </button>
    )}
    <div ref={scroller} className="vlist" onScroll={onScroll} role="log" aria-label={label} aria-live="off" tabIndex={0}>
      <div className="vlist-inner" style={{ height: v.getTotalSize() }}>
        {rows.map((row) => {
          const item = items[row.index]!;
          return <Row key={row.key} index={row.index} top={row.start} measure={v.measureElement} item={item} render={render} focused={focus?.id === item.id} />;
        })}
      </div>
    </div>
    </>
  );
}

interface RowProps<T> {
  index: number;
  top: number;
  focused: boolean;
  item: T;
  measure(el: HTMLDivElement | null): void;
  render(item: T): ReactNode;
}

const Row = memo(function Row<T>({ index, top, item, measure, render, focused }: RowProps<T>) {
  return (
    <div ref={measure} data-index={index} className={`vlist-row${focused ? ' focused' : ''}`} data-focused={focused || undefined} style={{ transform: `translateY(${top}px)` }}>
      {render(item)}
    </div>
  );
}) as <T>(props: RowProps<T>) => ReactNode;
