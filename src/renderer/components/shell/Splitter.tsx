/**
 * A drag handle between two columns (role="separator"): drag it with the mouse, or focus it and use ←/→ (Shift for
 * bigger steps), Home/End for the smallest/largest width, Enter to collapse or restore when the side can collapse.
 */
import { useRef, type KeyboardEvent, type PointerEvent } from 'react';

interface Props {
  label: string;
  /** Which side the panel is on: dragging right widens a left panel and narrows a right one. */
  side: 'left' | 'right';
  width: number;
  min: number;
  max: number;
  onWidth(px: number): void;
  onToggle?: () => void;
}

export function Splitter({ label, side, width, min, max, onWidth, onToggle }: Props) {
  const drag = useRef<{ x: number; width: number } | null>(null);
  const sign = side === 'left' ? 1 : -1;

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    const step = e.shiftKey ? 64 : 16;
    let next: number | null = null;
    if (e.key === 'ArrowRight') next = width + sign * step;
    else if (e.key === 'ArrowLeft') next = width - sign * step;
    else if (e.key === 'Home') next = min;
    else if (e.key === 'End') next = max;
    else if (e.key === 'Enter' && onToggle) {
      e.preventDefault();
      onToggle();
      return;
    }
    if (next === null) return;
    e.preventDefault();
    onWidth(next);
  }

  function onPointerDown(e: PointerEvent<HTMLDivElement>) {
    if (e.button !== 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, width };
    document.body.classList.add('resizing');
  }

  function onPointerMove(e: PointerEvent<HTMLDivElement>) {
    if (!drag.current) return;
    onWidth(drag.current.width + sign * (e.clientX - drag.current.x));
  }

  function end(e: PointerEvent<HTMLDivElement>) {
    if (!drag.current) return;
    drag.current = null;
    document.body.classList.remove('resizing');
    if (e.currentTarget.hasPointerCapture(e.pointerId)) e.currentTarget.releasePointerCapture(e.pointerId);
  }

  return (
    <div
      className={`splitter splitter-${side}`}
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={width}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      onKeyDown={onKeyDown}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={end}
      onPointerCancel={end}
    />
  );
}
