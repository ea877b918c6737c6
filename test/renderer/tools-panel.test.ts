/**
 * The /tools panel's pieces that decide what a person reads: which composer texts open the panel instead of going to
 * the model, and how the project instruction files are described (cut, untrusted, refused, none).
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Instructions } from '../../src/renderer/components/tools/ToolsPanel';
import { familyLabel, familyOn, isToolsCommand } from '../../src/renderer/state/conversation-tools';
import type { InstructionsView } from '../../src/shared/contract/tools';

const caps = { perFile: 16384, total: 32768 };
const html = (instructions: InstructionsView) => renderToStaticMarkup(createElement(Instructions, { instructions }));

describe('/tools in the composer', () => {
  it.each([
    ['/tools', true],
    ['  /tools  ', true],
    ['/TOOLS', true],
    ['/tools\n', true],
    ['/tools please', false],
    ['list /tools', false],
    ['/tool', false],
    ['tools', false],
    ['', false],
  ])('%j opens the panel: %s', (text, opens) => {
    expect(isToolsCommand(text)).toBe(opens);
  });
});

describe('project instructions in the panel', () => {
  it('names each file with its scope and says when one was cut and by how much', () => {
    const out = html({
      files: [
        { path: '/data/AGENTS.md', scope: 'personal', size: 40, loadedBytes: 40, cut: false, untrusted: false, sha256: 'a'.repeat(64), trusted: true },
        { path: '/w/AGENTS.md', scope: 'workspace', size: 20000, loadedBytes: 16384, cut: true, untrusted: false, sha256: 'b'.repeat(64), trusted: true },
        { path: '/elsewhere/CLAUDE.md', scope: 'outside', size: 10, loadedBytes: 10, cut: false, untrusted: true, sha256: 'c'.repeat(64), trusted: false },
      ],
      refused: [{ path: '/w/sub/AGENTS.md', reason: 'it links outside its folder' }],
      capBytes: caps,
    });
    expect(out).toContain('<code>/data/AGENTS.md</code> <span class="chip">personal</span>');
    expect(out).toContain('Cut: only the first 16384 of its 20000 bytes are loaded (at most 16384 bytes of one file, 32768 in all).');
    expect(out).toContain('<code>/elsewhere/CLAUDE.md</code> <span class="chip">outside the workspace: untrusted</span>');
    expect(out).toContain('<code>/w/sub/AGENTS.md</code> <span class="chip">not loaded</span> <span class="muted small">it links outside its folder</span>');
    expect(out.match(/Cut:/g)).toHaveLength(1);
  });

  it('says what would be loaded when there is none', () => {
    expect(html({ files: [], refused: [], capBytes: caps })).toContain('No AGENTS.md or CLAUDE.md in this folder');
  });
});

describe('family words', () => {
  it('labels and on states', () => {
    expect(familyLabel('computer')).toBe('Computer use');
    expect(familyLabel('memory')).toBe('Memory');
    expect(['default', 'enabled', 'profile', 'deferred', 'off'].map(familyOn)).toEqual([true, true, true, false, false]);
  });
});

describe('untrusted workspace instructions (M1)', () => {
  const file = (trusted: boolean) => ({ path: '/w/AGENTS.md', scope: 'workspace' as const, size: 5, loadedBytes: 5, cut: false, untrusted: !trusted, sha256: 'd'.repeat(64), trusted });
  const view = (trusted: boolean): InstructionsView => ({ files: [file(trusted)], refused: [], capBytes: caps });
  const render = (v: InstructionsView, conversationId?: string) => renderToStaticMarkup(createElement(Instructions, { instructions: v, ...(conversationId ? { conversationId } : {}) }));
  it('a workspace file not yet trusted says so and offers the button in a conversation', () => {
    const out = render(view(false), 'conv_1');
    expect(out).toContain('<span class="chip">workspace: not yet trusted</span>');
    expect(out).toContain('Trust these instructions');
  });
  it('a trusted file has no button; a preview without a conversation has none either', () => {
    expect(render(view(true), 'conv_1')).not.toContain('Trust these instructions');
    expect(render(view(true), 'conv_1')).toContain('<span class="chip">workspace</span>');
    expect(render(view(false))).not.toContain('Trust these instructions');
  });
});
