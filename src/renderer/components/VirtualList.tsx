/**
 * A virtualized, bottom-anchored list: only the rows near the viewport exist in the DOM, each row's real height is
 * measured once it renders (ResizeObserver), and the scroll position is kept on the row the person is reading when
 * heights above it change — or pinned to the end while they are at the end (streaming).
 */
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';

interface Props<T extends { id: string }> {
  items: T[];
  estimate(item: T): number;
  render(item: T): ReactNode;
  /** Changing it (a conversation was opened) jumps to the end. */
  generation: number;
  label: string;
  overscanPx?: number;
  /** Scroll to this item and mark it (a search match); a new token jumps again. Applied once the item exists. */
  focus?: { id: string; token: number } | null;
}

interface Anchor {
  id: string;
  delta: number;
}

export function VirtualList<T extends { id: string }>({ items, estimate, render, generation, label, overscanPx = 800, focus = null }: Props<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const [version, setVersion] = useState(0);
  const [viewport, setViewport] = useState({ top: 0, height: 0 });
  const stick = useRef(true);
  /** The height the last resize left; a scroll event at another height comes from a resize, not from the reader. */
  const knownHeight = useRef(-1);
  const anchor = useRef<Anchor | null>(null);

  const layout = useMemo(() => {
    const n = items.length;
    const offsets = new Float64Array(n + 1);
    const index = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const item = items[i]!;
      index.set(item.id, i);
      offsets[i + 1] = offsets[i]! + (heights.current.get(item.id) ?? estimate(item));
    }
    return { offsets, index, total: offsets[n]!, version };
  }, [items, version, estimate]);

  // One observer for every row (created before the first rows mount); height changes make one re-layout.
  const [observer] = useState(() => {
    let pending = false;
    return new ResizeObserver((entries) => {
      let changed = false;
      for (const entry of entries) {
        const el = entry.target as HTMLElement;
        const id = el.dataset.rowId;
        if (!id) continue;
        const h = entry.borderBoxSize[0]?.blockSize ?? el.offsetHeight;
        if (h > 0 && Math.abs((heights.current.get(id) ?? -1) - h) > 0.5) {
          heights.current.set(id, h);
          changed = true;
        }
      }
      if (changed && !pending) {
        pending = true;
        queueMicrotask(() => {
          pending = false;
          setVersion((v) => v + 1);
        });
      }
    });
  });
  useEffect(() => () => observer.disconnect(), [observer]);

  // Keep the viewport size current.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => {
      // The list got shorter or taller (an approval card opened or closed below it): a reader at the end stays there.
      knownHeight.current = el.clientHeight;
      if (stick.current) el.scrollTop = Math.max(0, el.scrollHeight - el.clientHeight);
      setViewport((v) => (v.height === el.clientHeight && v.top === el.scrollTop ? v : { top: el.scrollTop, height: el.clientHeight }));
    });
    ro.observe(el);
    setViewport({ top: el.scrollTop, height: el.clientHeight });
    return () => ro.disconnect();
  }, []);

  // A newly opened list starts at its end.
  useLayoutEffect(() => {
    stick.current = true;
    anchor.current = null;
  }, [generation]);

  // A search match: leave the end and anchor the matched row near the top, once it is in the list.
  const appliedFocus = useRef<number | null>(null);
  const focusReady = focus !== null && layout.index.has(focus.id);
  useLayoutEffect(() => {
    if (!focus || !focusReady || appliedFocus.current === focus.token) return;
    appliedFocus.current = focus.token;
    stick.current = false;
    anchor.current = { id: focus.id, delta: -24 };
  }, [focus, focusReady, generation]);

  // After every re-layout: stay at the end, or keep the anchored row where it was.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    let target: number | null = null;
    if (stick.current) target = Math.max(0, layout.total - el.clientHeight);
    else if (anchor.current) {
      const i = layout.index.get(anchor.current.id);
      if (i !== undefined) target = layout.offsets[i]! + anchor.current.delta;
    }
    if (target !== null && Math.abs(el.scrollTop - target) > 1) {
      el.scrollTop = target;
      setViewport((v) => ({ ...v, top: el.scrollTop }));
    }
  }, [layout]);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    if (el.clientHeight !== knownHeight.current) {
      // Resizing moved the scroll position (the reader did not): keep following the end if they were.
      if (stick.current) el.scrollTop = Math.max(0, el.scrollHeight - el.clientHeight);
      return;
    }
    const top = el.scrollTop;
    stick.current = top + el.clientHeight >= el.scrollHeight - 8;
    const i = Math.max(0, upperBound(layout.offsets, top) - 1);
    const item = items[i];
    anchor.current = item ? { id: item.id, delta: top - layout.offsets[i]! } : null;
    setViewport((v) => (v.top === top ? v : { ...v, top }));
  }, [layout, items]);

  const start = Math.max(0, upperBound(layout.offsets, viewport.top - overscanPx) - 1);
  const end = Math.min(items.length, upperBound(layout.offsets, viewport.top + viewport.height + overscanPx));

  const rows: ReactNode[] = [];
  for (let i = start; i < end; i++) {
    const item = items[i]!;
    rows.push(<Row key={item.id} id={item.id} top={layout.offsets[i]!} observer={observer} item={item} render={render} focused={focus?.id === item.id} />);
  }

  return (
    <div ref={scroller} className="vlist" onScroll={onScroll} role="log" aria-label={label} aria-live="off" tabIndex={0}>
      <div className="vlist-inner" style={{ height: layout.total }}>
        {rows}
      </div>
    </div>
  );
}

interface RowProps<T> {
  id: string;
  top: number;
  focused: boolean;
  item: T;
  observer: ResizeObserver;
  render(item: T): ReactNode;
}

const Row = memo(function Row<T>({ id, top, item, observer, render, focused }: RowProps<T>) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    observer.observe(el);
    return () => observer.unobserve(el);
  }, [observer]);
  return (
    <div ref={ref} data-row-id={id} className={`vlist-row${focused ? ' focused' : ''}`} data-focused={focused || undefined} style={{ transform: `translateY(${top}px)` }}>
      {render(item)}
    </div>
  );
}) as <T>(props: RowProps<T>) => ReactNode;

/** First index i with offsets[i] > value. */
function upperBound(offsets: Float64Array, value: number): number {
  let lo = 0;
  let hi = offsets.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
