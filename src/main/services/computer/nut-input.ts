/**
 * Synthesized input and screen capture through @nut-tree-fork/nut-js (XTest on X11), loaded on first use: the
 * native module costs ~0.5 s to load and needs DISPLAY, which only acting and capturing require.
 */
import type { ComputerOperator, MouseButton, Rect } from './index';
import { encodePng } from './png';

type Nut = typeof import('@nut-tree-fork/nut-js');

let loaded: Promise<Nut> | null = null;

function nut(): Promise<Nut> {
  loaded ??= import('@nut-tree-fork/nut-js').then((m) => {
    m.keyboard.config.autoDelayMs = 8;
    m.mouse.config.autoDelayMs = 20;
    return m;
  });
  return loaded;
}

/** Key names as people and models write them → nut-js keys. Letters, digits and F-keys are mapped by rule. */
const ALIASES: Record<string, string> = {
  ctrl: 'LeftControl', control: 'LeftControl', shift: 'LeftShift', alt: 'LeftAlt', super: 'LeftSuper', meta: 'LeftMeta', cmd: 'LeftCmd', win: 'LeftWin',
  return: 'Return', enter: 'Enter', esc: 'Escape', escape: 'Escape', tab: 'Tab', space: 'Space', backspace: 'Backspace', delete: 'Delete', del: 'Delete',
  up: 'Up', down: 'Down', left: 'Left', right: 'Right', home: 'Home', end: 'End', pageup: 'PageUp', page_up: 'PageUp', pagedown: 'PageDown', page_down: 'PageDown',
  insert: 'Insert', menu: 'Menu', minus: 'Minus', equal: 'Equal', comma: 'Comma', period: 'Period', slash: 'Slash', semicolon: 'Semicolon',
};

export async function keyCodes(names: readonly string[]): Promise<number[]> {
  const { Key } = await nut();
  const table = Key as unknown as Record<string, number>;
  return names.map((n) => {
    const lower = n.toLowerCase();
    let key = ALIASES[lower] ?? (/^[a-z]$/.test(lower) ? lower.toUpperCase() : /^[0-9]$/.test(lower) ? `Num${lower}` : /^f([1-9]|1[0-9]|2[0-4])$/.test(lower) ? lower.toUpperCase() : n);
    if (table[key] === undefined) key = Object.keys(table).find((k) => k.toLowerCase() === lower) ?? key;
    const code = table[key];
    if (typeof code !== 'number') throw new Error(`Unknown key "${n}": use names like Return, Tab, Escape, Backspace, Up, F5, a letter or a digit, joined with + (ctrl+s).`);
    return code;
  });
}

export async function pressKeys(names: readonly string[]): Promise<void> {
  const codes = await keyCodes(names);
  const { keyboard } = await nut();
  await keyboard.pressKey(...codes);
  await keyboard.releaseKey(...codes);
}

export async function typeText(text: string): Promise<void> {
  const { keyboard } = await nut();
  await keyboard.type(text);
}

export async function click(x: number, y: number, button: MouseButton, double: boolean): Promise<void> {
  const { mouse, Point, Button } = await nut();
  await mouse.setPosition(new Point(Math.round(x), Math.round(y)));
  const b = button === 'right' ? Button.RIGHT : button === 'middle' ? Button.MIDDLE : Button.LEFT;
  if (double) await mouse.doubleClick(b);
  else await mouse.click(b);
}

export async function scroll(x: number, y: number, dx: number, dy: number): Promise<void> {
  const { mouse, Point } = await nut();
  await mouse.setPosition(new Point(Math.round(x), Math.round(y)));
  if (dy > 0) await mouse.scrollDown(dy);
  if (dy < 0) await mouse.scrollUp(-dy);
  if (dx > 0) await mouse.scrollRight(dx);
  if (dx < 0) await mouse.scrollLeft(-dx);
}

/** A PNG of a root-window rectangle; HiDPI scale as reported by the capture (physical pixels per logical one). */
export async function capture(rect: Rect): Promise<{ png: Buffer; scale: number; width: number; height: number }> {
  const { screen, Region } = await nut();
  const w = Math.max(1, Math.round(rect.width));
  const h = Math.max(1, Math.round(rect.height));
  const img = await screen.grabRegion(new Region(Math.max(0, Math.round(rect.x)), Math.max(0, Math.round(rect.y)), w, h));
  const rowBytes = img.byteWidth ?? img.width * img.channels;
  const png = encodePng(img.data, img.width, img.height, { bgr: img.colorMode === 0, rowBytes });
  return { png, scale: img.pixelDensity?.scaleX ?? 1, width: img.width, height: img.height };
}

/**
 * The input and capture half of every operator (Linux X11, macOS, Windows): nut-js on all three. An operator extends
 * it and adds how it reads the screen's accessibility tree; one that must check a permission first overrides capture.
 */
export abstract class NutInput implements Pick<ComputerOperator, 'click' | 'scroll' | 'typeText' | 'pressKeys' | 'capture'> {
  click(x: number, y: number, button: MouseButton, double: boolean): Promise<void> {
    return click(x, y, button, double);
  }

  scroll(x: number, y: number, dx: number, dy: number): Promise<void> {
    return scroll(x, y, dx, dy);
  }

  typeText(text: string): Promise<void> {
    return typeText(text);
  }

  pressKeys(keys: readonly string[]): Promise<void> {
    return pressKeys(keys);
  }

  capture(rect: Rect): Promise<{ png: Buffer; scale: number; width: number; height: number }> {
    return capture(rect);
  }
}
