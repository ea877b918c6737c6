/**
 * The composer's command menu (issue 47 item 4): which commands `/` and a partial name show, in what order, and what
 * the keys do — arrows move (wrapping), Enter and Tab complete `/name `, Escape closes, other keys stay the box's.
 */
import { describe, expect, it } from 'vitest';
import type { CommandView } from '../../src/shared/contract/extensions';
import { completion, menuFor, menuKey, rowLabel } from '../../src/renderer/state/command-menu';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { CommandMenu } from '../../src/renderer/components/chat/CommandMenu';

const C = (name: string, description: string, origin: CommandView['origin'], argumentHint: string | null = null): CommandView => ({ name, description, argumentHint, origin });
const commands = [C('tools', 'Show this conversation\'s tools', 'builtin'), C('review', 'Review a file', 'person', 'FILE [FOCUS]'), C('hello', 'Greet someone', 'plugin', 'NAME'), C('frontend:component', 'Create a React component for review', 'project', '[name]')];
const names = (items: CommandView[] | null) => items?.map((c) => c.name) ?? null;

describe('the composer\'s command menu', () => {
  it('opens on / at the start of the box, filtered by the typed name; names that start with it first', () => {
    expect(names(menuFor('/', commands))).toEqual(['tools', 'review', 'hello', 'frontend:component']);
    expect(names(menuFor('/re', commands))).toEqual(['review', 'frontend:component']);
    expect(names(menuFor('/REV', commands))).toEqual(['review', 'frontend:component']);
    expect(names(menuFor('/frontend:', commands))).toEqual(['frontend:component']);
    expect(names(menuFor('/zzz', commands))).toEqual([]);
  });

  it('keeps filtering while a dotted plugin name is typed (plugin acme.kit\'s /acme.kit:hello)', () => {
    const dotted: CommandView[] = [...commands, { ...commands[0]!, name: 'acme.kit:hello', description: 'Say hello' }];
    expect(names(menuFor('/acme.', dotted))).toEqual(['acme.kit:hello']);
    expect(names(menuFor('/acme.kit:h', dotted))).toEqual(['acme.kit:hello']);
  });

  it.each(['', 'hello', ' /re', '/review src/a.ts', '/review ', 'a /re', '/etc/hosts', '//'])('shows no menu for %j', (text) => {
    expect(menuFor(text, commands)).toBeNull();
  });

  it('arrows move and wrap, Enter and Tab complete the selected command, Escape closes, other keys are the box\'s', () => {
    const items = menuFor('/', commands)!;
    expect(menuKey('ArrowDown', items, 0)).toEqual({ kind: 'move', index: 1 });
    expect(menuKey('ArrowDown', items, 3)).toEqual({ kind: 'move', index: 0 });
    expect(menuKey('ArrowUp', items, 0)).toEqual({ kind: 'move', index: 3 });
    expect(menuKey('Enter', items, 1)).toEqual({ kind: 'pick', text: '/review ' });
    expect(menuKey('Tab', items, 2)).toEqual({ kind: 'pick', text: '/hello ' });
    expect(menuKey('Escape', items, 0)).toEqual({ kind: 'close' });
    expect(menuKey('a', items, 0)).toBeNull();
    expect(menuKey('Enter', [], 0)).toBeNull();
    expect(completion(commands[3]!)).toBe('/frontend:component ');
    // A command typed in full: Enter sends it (the box's), Tab still completes.
    const tools = menuFor('/tools', commands)!;
    expect(menuKey('Enter', tools, 0, '/tools')).toBeNull();
    expect(menuKey('Tab', tools, 0, '/tools')).toEqual({ kind: 'pick', text: '/tools ' });
  });

  it('each row shows the name, argument hint, description and whose it is', () => {
    expect(rowLabel(commands[1]!)).toEqual({ name: '/review', hint: 'FILE [FOCUS]', description: 'Review a file', origin: null });
    expect(rowLabel(commands[3]!).origin).toBe('this folder (sent as untrusted content)');
    expect(rowLabel(commands[0]!).origin).toBe('built-in');
  });

  it('draws a listbox of options, the selected one marked, each with its hint and description', () => {
    const html = renderToStaticMarkup(createElement(CommandMenu, { items: menuFor('/', commands)!, selected: 1, pick: () => undefined }));
    expect(html).toContain('role="listbox" aria-label="Commands"');
    expect(html.match(/role="option"/g)).toHaveLength(4);
    expect(html).toMatch(/id="command-1" role="option" aria-selected="true"[^>]*><code>\/review<\/code><span class="muted small"> FILE \[FOCUS\]<\/span><span class="small"> — Review a file<\/span>/);
    expect(html.match(/aria-selected="true"/g)).toHaveLength(1);
    expect(renderToStaticMarkup(createElement(CommandMenu, { items: [], selected: 0, pick: () => undefined }))).toBe('');
  });
});
