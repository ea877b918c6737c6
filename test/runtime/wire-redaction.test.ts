/**
 * The wire redactor (runtime/context/wire-redaction.ts) on its own: what it redacts in a request (every text, every string of
 * a tool's schema at any depth), what it passes through (binary parts, ids, provider options), what it leaves out (a
 * tool whose name or parameter name holds a secret), that it changes nothing given (frozen history), that a secret
 * learned between two requests is redacted in the second although the first was cached, and that the whole built-in
 * tool set and base prompt go through unchanged (no false positives cost the model its tools).
 */
import { describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { redactRequest } from '../../src/main/runtime/context/wire-redaction';
import { basePromptSections } from '../../src/main/runtime/prompt/index';
import { makeRuntime } from '../extensions/helpers';
import { tempDir } from '../support/tool-context';

const SECRET = 'Wire-Canary-Zq81pLm4Xv';
const redactor = () => new SecretRedactor({ env: {}, secrets: { VAULT_ONE: SECRET } });

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v) && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as object)) deepFreeze(x);
  }
  return v;
}

const tool = (name: string, description: string, inputSchema: Record<string, unknown>) => ({ type: 'function' as const, name, description, inputSchema });

describe('what the wire redactor redacts', () => {
  // Where a secret can sit in a request: [what, the request].
  const spellings: [string, unknown][] = [
    ['system text', [{ role: 'system', content: `rules: ${SECRET}` }]],
    ['user text part', [{ role: 'user', content: [{ type: 'text', text: `hi ${SECRET}` }] }]],
    ['assistant text', [{ role: 'assistant', content: [{ type: 'text', text: `said ${SECRET}` }] }]],
    ['assistant tool-call input (nested)', [{ role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'x', input: { a: { b: [`${SECRET}`] } } }] }]],
    ['tool result, text output', [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'x', output: { type: 'text', value: `out ${SECRET}` } }] }]],
    ['tool result, json output', [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'x', output: { type: 'json', value: { k: SECRET } } }] }]],
    ['tool result, content parts', [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'x', output: { type: 'content', value: [{ type: 'text', text: SECRET }] } }] }]],
    ['base64 form', [{ role: 'user', content: [{ type: 'text', text: Buffer.from(SECRET).toString('base64') }] }]],
    ['hex form', [{ role: 'user', content: [{ type: 'text', text: Buffer.from(SECRET).toString('hex') }] }]],
    ['reversed', [{ role: 'user', content: [{ type: 'text', text: [...SECRET].reverse().join('') }] }]],
    ['a credential shape', [{ role: 'system', content: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB' }]],
    ['an assignment in a context block', [{ role: 'system', content: 'DATABASE_PASSWORD=Sv8qLx2PzR7mWn4K' }]],
  ];
  it.each(spellings)('%s', (_what, prompt) => {
    const r = redactRequest(redactor(), { prompt: deepFreeze(prompt), tools: [] });
    const sent = JSON.stringify(r.prompt);
    expect(sent).not.toContain(SECRET);
    expect(sent).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789AB');
    expect(sent).not.toContain('Sv8qLx2PzR7mWn4K');
    expect(sent).toMatch(/\[redacted:[^\]]+\]/);
  });

  const schemas: [string, Record<string, unknown>][] = [
    ['property description', { type: 'object', properties: { q: { type: 'string', description: `use ${SECRET}` } } }],
    ['nested property description', { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string', description: SECRET } } } } }],
    ['items description', { type: 'object', properties: { a: { type: 'array', items: { type: 'string', description: SECRET } } } }],
    ['anyOf branch', { type: 'object', properties: { a: { anyOf: [{ type: 'string', description: SECRET }, { type: 'number' }] } } }],
    ['$defs', { type: 'object', $defs: { x: { type: 'string', description: SECRET } }, properties: {} }],
    ['enum value', { type: 'object', properties: { a: { type: 'string', enum: ['x', SECRET] } } }],
    ['default value', { type: 'object', properties: { a: { type: 'string', default: SECRET } } }],
    ['title', { type: 'object', title: SECRET, properties: {} }],
  ];
  it.each(schemas)('tool schema: %s', (_what, inputSchema) => {
    const r = redactRequest(redactor(), { prompt: [], tools: [tool('t', 'd', deepFreeze(inputSchema))] });
    expect(r.tools).toHaveLength(1);
    expect(JSON.stringify(r.tools)).not.toContain(SECRET);
    expect(JSON.stringify(r.tools)).toContain('[redacted:VAULT_ONE]');
  });

  it('tool description', () => {
    const r = redactRequest(redactor(), { prompt: [], tools: [tool('t', `call with ${SECRET}`, { type: 'object' })] });
    expect(r.tools[0]!.description).toBe('call with [redacted:VAULT_ONE]');
  });

  it.each([
    ['the tool name', tool(`t_${SECRET.replace(/-/g, '_')}`, 'd', { type: 'object' })],
    ['a parameter name', tool('t', 'd', { type: 'object', properties: { [SECRET]: { type: 'string' } } })],
    ['a nested parameter name', tool('t', 'd', { type: 'object', properties: { a: { type: 'object', properties: { [SECRET]: { type: 'string' } } } } })],
  ])('a tool is left out when %s holds a secret', (_what, t) => {
    const r = redactRequest(new SecretRedactor({ env: {}, secrets: { VAULT_ONE: SECRET, VAULT_TWO: SECRET.replace(/-/g, '_') } }), { prompt: [], tools: [t, tool('ok', 'fine', { type: 'object' })] });
    expect(r.tools.map((x) => x.name)).toEqual(['ok']);
    expect(r.droppedTools).toHaveLength(1);
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });
});

describe('what it passes through', () => {
  it('binary file data, ids, tool names of calls and provider options are untouched; nothing given is changed', () => {
    const b64 = Buffer.from(`${SECRET}`).toString('base64');
    const bytes = new Uint8Array(Buffer.from(SECRET));
    const prompt = deepFreeze([
      { role: 'system', content: 'plain', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
      {
        role: 'user',
        content: [
          { type: 'file', data: b64, mediaType: 'image/png' },
          { type: 'file', data: bytes, mediaType: 'image/png' },
          { type: 'text', text: 'look' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'read_file', input: { path: 'a' } }] },
    ]);
    const before = JSON.stringify(prompt);
    const r = redactRequest(redactor(), { prompt, tools: [] });
    // Nothing to redact outside the binary parts: the very same objects come back.
    expect(r.prompt).toBe(prompt);
    expect(JSON.stringify(prompt)).toBe(before);
  });
});

describe('cache', () => {
  it('a secret learned after a request was redacted is redacted in the next one (same frozen history)', () => {
    const red = new SecretRedactor({ env: {} });
    const later = 'Learned-Later-Hq73Ka91';
    const prompt = deepFreeze([{ role: 'user', content: [{ type: 'text', text: `value ${later}` }] }]);
    const schema = deepFreeze({ type: 'object', properties: { a: { type: 'string', description: later } } });
    const first = redactRequest(red, { prompt, tools: [tool('t', later, schema)] });
    expect(JSON.stringify(first)).toContain(later);
    red.addSecret('LATER', later);
    const second = redactRequest(red, { prompt, tools: [tool('t', later, schema)] });
    expect(JSON.stringify(second)).not.toContain(later);
    expect(JSON.stringify(second)).toContain('[redacted:LATER]');
  });
});

describe('no false positives', () => {
  it('the whole built-in tool set and the base prompt go through unchanged (every tool offered)', () => {
    const rt = makeRuntime(tempDir('deskhand-wire-data-'));
    try {
      const tools = rt.registry.modelTools().map((t) => tool(t.name, t.description, t.inputSchema));
      expect(tools.length).toBeGreaterThan(60);
      const system = basePromptSections({ folder: '/work/proj', cwd: '/work/proj', policy: 'low-risk', sandbox: 'workspace-write', catalog: null }).join('\n\n');
      const r = redactRequest(new SecretRedactor({ env: {} }), { prompt: [{ role: 'system', content: system }], tools });
      expect(r.droppedTools).toEqual([]);
      expect((r.prompt as { content: string }[])[0]!.content).toBe(system);
      expect(r.tools.map((t) => [t.name, t.description, JSON.stringify(t.inputSchema)])).toEqual(tools.map((t) => [t.name, t.description, JSON.stringify(t.inputSchema)]));
    } finally {
      rt.store.close();
    }
  });
});
