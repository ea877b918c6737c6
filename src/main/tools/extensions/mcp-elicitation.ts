/**
 * MCP elicitation (a server asks the person for input during a call) as the input request kind `mcp_elicitation`:
 * a form built from the server's flat schema, or a URL for the person to open. The answer goes to the server, never
 * to the model. A field shaped like a secret (a password, a token, an API key) is not asked in a form: the server
 * hears "decline" and the model is told to have the person save the secret in the vault instead. A URL is shown only
 * when the URL guard takes it (http or https), with a warning when it leads to this machine or its network.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DeskhandError } from '../../../shared/errors';
import { classifyHost, parseWebUrl } from '../../../shared/url-guard';
import type { InputKind } from '../../runtime/loop/input-kinds';
import type { CallAnswer, InputSpec } from '../../runtime/tool';
import type { McpElicitation, McpElicitResult, McpFormSchema } from '../../services/mcp';

export const ELICITATION_KIND = 'mcp_elicitation';

type FieldValue = string | number | boolean | string[];
const value = z.union([z.string().max(10_000), z.number(), z.boolean(), z.array(z.string().max(10_000)).max(200)]);

export const elicitationAnswerSchema = z.strictObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), value).optional(),
  /** Where the person answered ("the web UI", "the CLI"…). */
  by: z.string().max(100).optional(),
});
export type ElicitationAnswer = z.infer<typeof elicitationAnswerSchema>;

/** What the request carries for the UI, the terminal and `runs answer` (never an answer, never a secret). */
export type ElicitationData =
  | { mode: 'form'; server: string; message: string; schema: McpFormSchema }
  | { mode: 'url'; server: string; message: string; url: string; host: string; warning: string | null };

/** Words that make a field a secret (by itself, or as a pair of words: api key, private key, card number). */
const SECRET_WORDS = new Set(['password', 'passwords', 'passwd', 'passphrase', 'pwd', 'secret', 'secrets', 'token', 'apikey', 'credential', 'credentials', 'privatekey', 'pin', 'otp', 'cvv', 'cvc', 'ssn', 'cardnumber']);

/** The words of a name or title: camelCase, snake_case, kebab-case and spaces split, lower case. */
function words(text: string): string[] {
  const w = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return [...w, ...w.slice(1).map((x, i) => `${w[i]}${x}`)];
}

/** A field a server must not get through a form: its name, title or format says it is a secret. */
export function secretShapedFields(schema: McpFormSchema): string[] {
  const secret = (text: unknown) => typeof text === 'string' && words(text).some((x) => SECRET_WORDS.has(x));
  return Object.entries(schema.properties ?? {})
    .filter(([name, p]) => secret(name) || secret(p.title) || p.format === 'password' || p.writeOnly === true)
    .map(([name]) => name);
}

/** The values of an enum field (plain `enum`, `oneOf` of consts, or an array's `items`). */
function choices(p: Record<string, unknown>): string[] | null {
  const from = (node: unknown): string[] | null => {
    if (!node || typeof node !== 'object') return null;
    const n = node as Record<string, unknown>;
    if (Array.isArray(n.enum)) return n.enum.map(String);
    const alts = (n.oneOf ?? n.anyOf) as { const?: unknown }[] | undefined;
    if (Array.isArray(alts)) return alts.map((a) => String(a.const));
    return null;
  };
  return p.type === 'array' ? from(p.items) : from(p);
}

/** Checks a form's answer against the server's schema; returns the content to send, or throws a usable error. */
export function checkForm(schema: McpFormSchema, content: Record<string, FieldValue>): Record<string, FieldValue> {
  const props = schema.properties ?? {};
  const problems: string[] = [];
  for (const name of Object.keys(content)) if (!(name in props)) problems.push(`${name}: the form has no such field (fields: ${Object.keys(props).join(', ') || 'none'})`);
  for (const name of schema.required ?? []) if (content[name] === undefined || content[name] === '') problems.push(`${name}: required`);
  for (const [name, p] of Object.entries(props)) {
    const v = content[name];
    if (v === undefined) continue;
    const type = p.type as string;
    const options = choices(p);
    if (type === 'boolean' && typeof v !== 'boolean') problems.push(`${name}: true or false`);
    else if ((type === 'number' || type === 'integer') && (typeof v !== 'number' || (type === 'integer' && !Number.isInteger(v)))) problems.push(`${name}: a${type === 'integer' ? 'n integer' : ' number'}`);
    else if (type === 'string' && typeof v !== 'string') problems.push(`${name}: text`);
    else if (type === 'array' && !Array.isArray(v)) problems.push(`${name}: a list of choices`);
    else if (typeof v === 'number') {
      if (typeof p.minimum === 'number' && v < p.minimum) problems.push(`${name}: at least ${p.minimum}`);
      if (typeof p.maximum === 'number' && v > p.maximum) problems.push(`${name}: at most ${p.maximum}`);
    } else if (typeof v === 'string') {
      if (typeof p.minLength === 'number' && v.length < p.minLength) problems.push(`${name}: at least ${p.minLength} characters`);
      if (typeof p.maxLength === 'number' && v.length > p.maxLength) problems.push(`${name}: at most ${p.maxLength} characters`);
      if (options && !options.includes(v)) problems.push(`${name}: one of ${options.join(', ')}`);
      if (p.format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(v)) problems.push(`${name}: an email address`);
      if (p.format === 'uri' && !URL.canParse(v)) problems.push(`${name}: a URL`);
      if (p.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(v)) problems.push(`${name}: a date (YYYY-MM-DD)`);
    } else if (Array.isArray(v) && options) {
      const bad = v.filter((x) => !options.includes(x));
      if (bad.length) problems.push(`${name}: ${bad.join(', ')} not among ${options.join(', ')}`);
    }
  }
  if (problems.length) throw new DeskhandError('usage', `That answer does not fit the form (${problems.slice(0, 6).join('; ')}).`);
  return content;
}

export const elicitationKind: InputKind<ElicitationAnswer> = {
  kind: ELICITATION_KIND,
  answer: elicitationAnswerSchema,
  accept(answer, data) {
    const d = data as ElicitationData;
    if (answer.action !== 'accept') return { action: answer.action };
    if (d.mode === 'url') return { action: 'accept' };
    return { action: 'accept', content: checkForm(d.schema, answer.content ?? {}) };
  },
  label(data) {
    const d = data as ElicitationData;
    return d.mode === 'url' ? `MCP server ${d.server} asks you to open ${d.host}` : `MCP server ${d.server} asks you to fill in a form`;
  },
  example: '{"action": "accept", "content": {"name": "Ada"}} (or {"action": "decline"})',
  // Approving a URL request means "I opened it and did what it asked".
  approve: (data) => ({ action: (data as ElicitationData).mode === 'url' ? 'accept' : 'decline' }),
};

/** The input request for a server's elicitation, or why Deskhand answers it itself (a refused URL, a secret field). */
export function elicitationRequest(asked: McpElicitation): { spec: InputSpec & { key: string } } | { refuse: string } {
  const key = createHash('sha256').update(JSON.stringify(asked)).digest('hex').slice(0, 32);
  const message = asked.message.slice(0, 2000);
  if (asked.mode === 'url') {
    const parsed = parseWebUrl(asked.url);
    if (!parsed.ok) return { refuse: `MCP server ${asked.server} asked the person to open a URL Deskhand does not open (${parsed.reason}); it was declined.` };
    const local = classifyHost(parsed.dest.host);
    const warning = local ? `This address leads to ${local.detail}.` : null;
    const data: ElicitationData = { mode: 'url', server: asked.server, message, url: parsed.dest.url.href, host: parsed.dest.host, warning };
    return {
      spec: {
        kind: ELICITATION_KIND,
        description: `MCP server ${asked.server} asks you to open ${parsed.dest.host}`,
        prompt: `${message}\n\nOpen: ${parsed.dest.url.href}${warning ? `\n${warning}` : ''}\nApprove once you have done what it asks there; deny to decline.`,
        data,
        key,
      },
    };
  }
  const secret = secretShapedFields(asked.requestedSchema);
  if (secret.length) {
    return {
      refuse:
        `MCP server ${asked.server} asked for ${secret.join(', ')} in a form; Deskhand does not take secrets through forms, so it declined. ` +
        `Ask the person to save the secret with \`deskhand secrets set NAME\` and give it to the server in its configuration (secretEnv).`,
    };
  }
  const fields = Object.entries(asked.requestedSchema.properties ?? {}).map(([name, p]) => `- ${name}${(asked.requestedSchema.required ?? []).includes(name) ? ' (required)' : ''}: ${String(p.title ?? p.description ?? p.type ?? '')}`);
  const data: ElicitationData = { mode: 'form', server: asked.server, message, schema: asked.requestedSchema };
  return {
    spec: {
      kind: ELICITATION_KIND,
      description: `MCP server ${asked.server} asks you to fill in a form`,
      prompt: `${message}\n${fields.join('\n')}`,
      data,
      key,
    },
  };
}

/**
 * Answers a server's elicitation through the call's `ask` (a person's answer, waited for or parked on). `notes` gets
 * a line for the model when Deskhand answered in the person's stead (refused, declined, no one asked).
 */
export async function answerElicitation(asked: McpElicitation, ask: ((spec: InputSpec & { key: string }) => Promise<CallAnswer>) | undefined, notes: string[]): Promise<McpElicitResult> {
  const made = elicitationRequest(asked);
  if ('refuse' in made) {
    notes.push(made.refuse);
    return { action: 'decline' };
  }
  if (!ask) {
    notes.push(`MCP server ${asked.server} asked the person for input; no one could be asked here, so it was declined.`);
    return { action: 'decline' };
  }
  const answer = await ask(made.spec);
  if (!answer.answered) {
    notes.push(`The person declined MCP server ${asked.server}'s request for input${answer.reason ? ` (${answer.reason})` : ''}.`);
    return { action: 'decline' };
  }
  const v = answer.value as { action: McpElicitResult['action']; content?: McpElicitResult['content'] };
  if (v.action !== 'accept') notes.push(`The person answered MCP server ${asked.server}'s request for input with "${v.action}".`);
  return v.action === 'accept' && v.content ? { action: 'accept', content: v.content } : { action: v.action };
}
