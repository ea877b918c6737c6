/**
 * The mcp_elicitation kind on its own: a form's answer checked against the server's schema (types, bounds, choices,
 * formats, required fields, fields it does not have), secret-shaped fields in many spellings refused before anyone is
 * asked, and URLs judged by the URL guard (only http/https shown; one leading to this machine or its network warned).
 */
import { describe, expect, it } from 'vitest';
import { checkForm, elicitationKind, elicitationRequest, secretShapedFields } from '../../src/main/tools/extensions/mcp-elicitation';
import type { McpFormSchema } from '../../src/main/services/mcp';

const schema: McpFormSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 20 },
    seats: { type: 'integer', minimum: 1, maximum: 10 },
    price: { type: 'number', minimum: 0 },
    ok: { type: 'boolean' },
    meal: { type: 'string', enum: ['veg', 'fish'] },
    size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'l', title: 'Large' }] },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    mail: { type: 'string', format: 'email' },
    site: { type: 'string', format: 'uri' },
    born: { type: 'string', format: 'date' },
  },
  required: ['name'],
};

describe('checkForm', () => {
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['a missing required field', { seats: 2 }, /name: required/],
    ['an empty required field', { name: '' }, /name: required/],
    ['a field the form does not have', { name: 'Ada', extra: 'x' }, /extra: the form has no such field/],
    ['text for an integer', { name: 'Ada', seats: '2' }, /seats: an integer/],
    ['a fraction for an integer', { name: 'Ada', seats: 2.5 }, /seats: an integer/],
    ['under the minimum', { name: 'Ada', seats: 0 }, /seats: at least 1/],
    ['over the maximum', { name: 'Ada', seats: 11 }, /seats: at most 10/],
    ['a negative number', { name: 'Ada', price: -1 }, /price: at least 0/],
    ['text for a boolean', { name: 'Ada', ok: 'yes' }, /ok: true or false/],
    ['too short', { name: 'A' }, /name: at least 2 characters/],
    ['too long', { name: 'A'.repeat(21) }, /name: at most 20 characters/],
    ['not among the enum', { name: 'Ada', meal: 'beef' }, /meal: one of veg, fish/],
    ['not among the oneOf', { name: 'Ada', size: 'm' }, /size: one of s, l/],
    ['a list item not among the choices', { name: 'Ada', tags: ['a', 'z'] }, /tags: z not among a, b/],
    ['a string for a list', { name: 'Ada', tags: 'a' }, /tags: a list of choices/],
    ['not an email', { name: 'Ada', mail: 'ada' }, /mail: an email address/],
    ['not a URL', { name: 'Ada', site: 'nope' }, /site: a URL/],
    ['not a date', { name: 'Ada', born: '10/12/1815' }, /born: a date/],
    ['a number for text', { name: 5 }, /name: text/],
  ];
  it.each(bad)('refuses %s, in words', (_what, content, message) => {
    expect(() => checkForm(schema, content as never)).toThrow(message);
  });

  it('takes an answer that fits', () => {
    const content = { name: 'Ada', seats: 2, price: 9.5, ok: true, meal: 'veg', size: 'l', tags: ['a', 'b'], mail: 'ada@example.com', site: 'https://ada.example', born: '1815-12-10' };
    expect(checkForm(schema, content)).toEqual(content);
    expect(elicitationKind.accept({ action: 'accept', content }, { mode: 'form', server: 's', message: 'm', schema })).toEqual({ action: 'accept', content });
    expect(elicitationKind.accept({ action: 'decline', content }, { mode: 'form', server: 's', message: 'm', schema })).toEqual({ action: 'decline' });
  });
});

describe('secret-shaped fields are never asked in a form', () => {
  const secret: [string, Record<string, unknown>][] = [
    ['password', { type: 'string' }],
    ['Password', { type: 'string' }],
    ['passwd', { type: 'string' }],
    ['passphrase', { type: 'string' }],
    ['db_password', { type: 'string' }],
    ['api_key', { type: 'string' }],
    ['apiKey', { type: 'string' }],
    ['API-KEY', { type: 'string' }],
    ['access_token', { type: 'string' }],
    ['refreshToken', { type: 'string' }],
    ['client_secret', { type: 'string' }],
    ['credentials', { type: 'string' }],
    ['private_key', { type: 'string' }],
    ['pin', { type: 'string' }],
    ['otp', { type: 'string' }],
    ['cvv', { type: 'string' }],
    ['card_number', { type: 'string' }],
    ['cardNumber', { type: 'string' }],
    ['github token', { type: 'string' }],
    ['Secret', { type: 'string' }],
    ['sessionToken', { type: 'string' }],
    ['field1', { type: 'string', title: 'Your password' }],
    ['field2', { type: 'string', title: 'API key' }],
    ['field3', { type: 'string', format: 'password' }],
    ['field4', { type: 'string', writeOnly: true }],
  ];
  it.each(secret)('%s', (name, field) => {
    const s: McpFormSchema = { type: 'object', properties: { [name]: field, city: { type: 'string' } } };
    expect(secretShapedFields(s)).toEqual([name]);
    const made = elicitationRequest({ mode: 'form', server: 'srv', message: 'm', requestedSchema: s });
    expect(made).toEqual({ refuse: expect.stringMatching(/does not take secrets through forms/) as unknown });
  });

  it('leaves ordinary fields alone', () => {
    const s: McpFormSchema = { type: 'object', properties: { name: { type: 'string' }, spinner: { type: 'string' }, city: { type: 'string' }, tokens_used: { type: 'integer', title: 'Count' } } };
    expect(secretShapedFields(s)).toEqual([]);
    expect(secretShapedFields({ type: 'object', properties: { name: {}, city: {}, opinion: {} } })).toEqual([]);
  });
});

describe('URL elicitations go through the URL guard', () => {
  const refused = ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/html,x', 'ftp://example.com/', 'chrome://settings'];
  it.each(refused)('refuses %s', (url) => {
    expect(elicitationRequest({ mode: 'url', server: 's', message: 'm', url, elicitationId: 'e' })).toEqual({ refuse: expect.stringMatching(/does not open/) as unknown });
  });
  const local = ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://[::1]/x', 'http://192.168.1.5/', 'http://169.254.169.254/latest', 'http://printer.local/'];
  it.each(local)('warns that %s leads to this machine or its network', (url) => {
    const made = elicitationRequest({ mode: 'url', server: 's', message: 'm', url, elicitationId: 'e' });
    expect('spec' in made && (made.spec.data as { warning: string | null }).warning).toMatch(/^This address leads to /);
  });
  it('shows a public https URL in full, without warning', () => {
    const made = elicitationRequest({ mode: 'url', server: 's', message: 'Sign in', url: 'https://auth.example.com/start?x=1', elicitationId: 'e' });
    expect('spec' in made && made.spec.data).toEqual({ mode: 'url', server: 's', message: 'Sign in', url: 'https://auth.example.com/start?x=1', host: 'auth.example.com', warning: null });
    expect(elicitationKind.approve!({ mode: 'url' })).toEqual({ action: 'accept' });
  });
});
