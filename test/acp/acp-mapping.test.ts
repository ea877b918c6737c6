/** The contract ↔ ACP mapping on its own (host/acp/acp-mapping.ts): tables for each direction. */
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/main/tools/files/diff-preview';
import { alwaysScopeOf, decisionOf, denialReason, diffsOf, mcpConfigOf, permissionOptions, planOf, promptText, stopReasonOf, textContent, toolKind, toolLocations, ACP_OUTPUT_CHARS } from '../../src/main/host/acp/acp-mapping';
import { inputLine } from '../../src/main/host/acp/acp-agent';

describe('permission options and answers', () => {
  it('offer allow once and deny always, always-allow only where a rule may be saved, naming the rule', () => {
    expect(permissionOptions({ alwaysPattern: null }).map((o) => o.kind)).toEqual(['allow_once', 'reject_once']);
    const withRule = permissionOptions({ alwaysPattern: 'write_file:src/**' });
    // Issue 46: the editor's allow-always options are Deskhand's grant scopes (conversation, task, folder).
    expect(withRule.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'allow_always', 'allow_always', 'reject_once']);
    expect(withRule.filter((o) => o.kind === 'allow_always').map((o) => alwaysScopeOf(o.optionId))).toEqual(['conversation', 'task', 'workspace']);
    expect(withRule[1]!.name).toContain('write_file:src/**');
    expect(withRule[2]!.name).toMatch(/until this task ends/);
    // A workspace root or a peer: this conversation only.
    expect(permissionOptions({ alwaysPattern: 'workspace-root:/x' }).filter((o) => o.kind === 'allow_always')).toHaveLength(1);
    expect(permissionOptions({ alwaysPattern: 'peer:alice' }).filter((o) => o.kind === 'allow_always')).toHaveLength(1);
    expect(alwaysScopeOf('allow_once')).toBeUndefined();
  });

  it.each([
    ['allow_once', 'p', 'approve'],
    ['allow_once', null, 'approve'],
    ['allow_always', 'p', 'always'],
    ['allow_always', null, null], // never offered without a rule: refused, not guessed
    ['allow_always_task', 'p', 'always'],
    ['allow_always_folder', 'p', 'always'],
    ['allow_always_folder', null, null],
    ['allow_always_folder', 'workspace-root:/x', null],
    ['reject_once', 'p', 'deny'],
    ['reject_always', 'p', null],
    ['allow', 'p', null],
    ['', 'p', null],
  ] as const)('option %j (rule %j) → %j', (optionId, alwaysPattern, decision) => {
    expect(decisionOf(optionId, { alwaysPattern })).toBe(decision);
  });

  it.each([
    [{ reason: '  not here  ' }, 'not here'],
    [{ reason: '' }, undefined],
    [{ reason: 42 }, undefined],
    [null, undefined],
    ['why', undefined],
    [{ reason: 'x'.repeat(5000) }, 'x'.repeat(2000)],
  ])('a denial reason from _meta %j → %j', (meta, reason) => {
    expect(denialReason(meta)).toBe(reason);
  });
});

describe('diffs from the approval preview', () => {
  it('a new file: no old text, the new text whole', () => {
    expect(diffsOf(unifiedDiff('notes/a.txt', null, 'one\ntwo\n'), '/w')).toEqual([{ type: 'diff', path: '/w/notes/a.txt', oldText: null, newText: 'one\ntwo' }]);
  });

  it('an edit: the hunk with its context on both sides', () => {
    const old = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].join('\n') + '\n';
    const next = old.replace('e\n', 'E!\n');
    const [d] = diffsOf(unifiedDiff('x.txt', old, next), '/w');
    expect(d).toMatchObject({ path: '/w/x.txt' });
    expect(d!.oldText).toContain('e');
    expect(d!.oldText).not.toContain('E!');
    expect(d!.newText).toContain('E!');
    expect(d!.newText).not.toMatch(/^e$/m);
    // Context lines appear on both sides.
    expect(d!.oldText).toContain('d');
    expect(d!.newText).toContain('d');
  });

  it.each([null, '', 'rm -rf build', '--- a/x\n+++ b/x\n(no changes)\n', '--- a/big\n+++ b/big\n(the 9 MB file is too large to diff)\n'])('no diff in %j', (preview) => {
    expect(diffsOf(preview, '/w')).toEqual([]);
  });
});

describe('tools, locations, content', () => {
  it.each([
    ['read_file', 'read'],
    ['write_file', 'edit'],
    ['edit_file', 'edit'],
    ['rm', 'delete'],
    ['mv', 'move'],
    ['grep', 'search'],
    ['execute_command', 'execute'],
    ['web_fetch', 'fetch'],
    ['enter_plan_mode', 'switch_mode'],
    ['computer_input', 'other'],
    ['mcp__x__y', 'other'],
  ])('%s is kind %s', (tool, kind) => {
    expect(toolKind(tool)).toBe(kind);
  });

  it('locations are absolute, URLs are not files', () => {
    expect(toolLocations({ path: 'src/a.ts' }, '/w')).toEqual([{ path: '/w/src/a.ts' }]);
    expect(toolLocations({ path: '/etc/hosts', offset: 10 }, '/w')).toEqual([{ path: '/etc/hosts', line: 10 }]);
    expect(toolLocations({ from: 'a', to: 'b' }, '/w')).toEqual([{ path: '/w/a' }, { path: '/w/b' }]);
    expect(toolLocations({ url: 'https://x.test/a', path: 'https://x.test/b' }, '/w')).toEqual([]);
    expect(toolLocations('nope', '/w')).toEqual([]);
  });

  it('output is cut from the front, saying how much is in Deskhand', () => {
    const long = `${'x'.repeat(ACP_OUTPUT_CHARS)}THE END`;
    const [c] = textContent(long);
    const text = (c as { content: { text: string } }).content.text;
    expect(text.endsWith('THE END')).toBe(true);
    expect(text).toMatch(/^…\(7 characters before this are in Deskhand\)/);
    expect(textContent('')).toEqual([]);
  });

  it('todos become the plan; run ends become stop reasons', () => {
    expect(planOf([{ title: 'a', status: 'done', priority: null }, { title: 'b', status: 'pending', priority: 'low' }])).toEqual([
      { content: 'a', priority: 'medium', status: 'completed' },
      { content: 'b', priority: 'low', status: 'pending' },
    ]);
    expect(['finished', 'parked', 'aborted', 'interrupted', 'failed'].map(stopReasonOf)).toEqual(['end_turn', 'end_turn', 'cancelled', 'cancelled', null]);
  });
});

describe('the prompt as a message', () => {
  it('text and embedded text files become the message; links are named', () => {
    const r = promptText([
      { type: 'text', text: 'Fix this' },
      { type: 'resource', resource: { uri: 'file:///w/a.ts', text: 'let x = 1' } },
      { type: 'resource_link', uri: 'file:///w/b.ts', name: 'b.ts' },
    ]);
    expect(r).toEqual({ text: 'Fix this\n\nAttached from the editor: file:///w/a.ts\n```\nlet x = 1\n```\n\n(The person points at file:///w/b.ts "b.ts".)' });
  });

  it.each([
    [[{ type: 'image', data: 'AA', mimeType: 'image/png' }], /takes text and text files only \(got image\)/],
    [[{ type: 'audio', data: 'AA', mimeType: 'audio/wav' }], /got audio/],
    [[{ type: 'resource', resource: { uri: 'file:///w/a.bin', blob: 'AA' } }], /a\.bin is binary/],
    [[{ type: 'text', text: '   ' }], /empty/],
    [[], /empty/],
  ])('refuses %j with a sentence', (blocks, message) => {
    const r = promptText(blocks as never);
    expect('error' in r && r.error).toMatch(message);
  });

  it('an input request the editor cannot show says where to answer it, never the secret', () => {
    expect(inputLine({ approvalId: 'apr_1', kind: 'question', description: 'Which port?', title: 'Ask' })).toMatch(/a question .*runs answer apr_1 --value JSON.*runs deny apr_1/s);
    expect(inputLine({ approvalId: 'apr_2', kind: 'secret', description: 'the token', title: 'Secret' })).toMatch(/hidden field/);
    expect(inputLine({ approvalId: 'apr_3', kind: 'file_pick', description: 'a CSV', title: 'Pick' })).toMatch(/a file pick/);
  });
});

describe('the editor\'s MCP servers as Deskhand configurations', () => {
  it('a stdio server gets a tool-name-safe name, tier ask, the session folder, and a source (so it runs sandboxed)', () => {
    const r = mcpConfigOf({ name: 'My Server!', command: 'node', args: ['s.js'], env: [{ name: 'A', value: '1' }, { name: 'bad name', value: 'x' }] }, 'the editor (Zed)', new Set(['My-Server']), '/w');
    expect(r).toEqual({ config: { name: 'My-Server-2', tier: 'ask', source: 'the editor (Zed): My Server!', transport: 'stdio', command: 'node', args: ['s.js'], cwd: '/w', env: { A: '1' } } });
  });

  it('an HTTP or SSE server keeps its URL and headers; what cannot run is refused in words', () => {
    expect(mcpConfigOf({ type: 'sse', name: 'remote', url: 'https://x.test/sse', headers: [{ name: 'Authorization', value: 'Bearer t' }] }, 'e', new Set(), '/w')).toMatchObject({
      config: { name: 'remote', transport: 'sse', url: 'https://x.test/sse', headers: { Authorization: 'Bearer t' } },
    });
    expect(mcpConfigOf({ type: 'http', name: 'r', url: 'ftp://x', headers: [] }, 'e', new Set(), '/w')).toEqual({ error: 'The editor\'s MCP server "r" has no http(s) URL.' });
    expect(mcpConfigOf({ name: '***', command: ' ', args: [], env: [] }, 'e', new Set(), '/w')).toEqual({ error: 'The editor\'s MCP server "***" has no command.' });
  });
});
