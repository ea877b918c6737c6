import { describe, expect, it } from 'vitest';
import { shortcutFor, type KeyLike } from '../../src/shared/shortcuts';

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });
const outside = { inTextField: false, inEmptyMessageBox: false };
const emptyBox = { inTextField: true, inEmptyMessageBox: true };
const typing = { inTextField: true, inEmptyMessageBox: false };

describe('keyboard shortcuts', () => {
  it('approves and denies from anywhere but a field with text in it', () => {
    expect(shortcutFor(key('Enter', { ctrlKey: true }), emptyBox)).toBe('approve');
    expect(shortcutFor(key('Enter', { metaKey: true }), outside)).toBe('approve');
    expect(shortcutFor(key('Enter', { ctrlKey: true }), typing)).toBeNull();
    expect(shortcutFor(key('Enter'), emptyBox)).toBeNull();
    expect(shortcutFor(key('Backspace', { ctrlKey: true }), emptyBox)).toBe('deny');
    expect(shortcutFor(key('Backspace', { ctrlKey: true }), typing)).toBeNull();
  });

  it('new conversation with Alt+N everywhere (a browser keeps Ctrl+N) and Mod+N where it reaches the page', () => {
    expect(shortcutFor(key('n', { altKey: true }), typing)).toBe('new');
    expect(shortcutFor(key('N', { ctrlKey: true }), outside)).toBe('new');
    expect(shortcutFor(key('n', { ctrlKey: true, altKey: true }), outside)).toBeNull();
  });

  it('search with Mod+K, or / outside text fields; switch conversations with Alt+arrows', () => {
    expect(shortcutFor(key('k', { metaKey: true }), typing)).toBe('search');
    expect(shortcutFor(key('/'), outside)).toBe('search');
    expect(shortcutFor(key('/'), typing)).toBeNull();
    expect(shortcutFor(key('ArrowUp', { altKey: true }), typing)).toBe('previous');
    expect(shortcutFor(key('ArrowDown', { altKey: true }), outside)).toBe('next');
    expect(shortcutFor(key('ArrowDown'), outside)).toBeNull();
    expect(shortcutFor(key('Enter', { ctrlKey: true, isComposing: true }), emptyBox)).toBeNull();
  });
});
