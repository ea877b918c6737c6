/**
 * Redaction, applied by the runtime on every sink (what the model is sent, the store, events, error messages):
 *
 * - exact values of secrets the runtime knows (vault secrets, provider keys, credential-named environment variables)
 *   and their base64 (any alignment, standard and URL-safe), hex, URL-encoded and JSON-escaped forms, each replaced
 *   by `[redacted:NAME]`;
 * - common credential shapes (cloud, VCS, model-provider, payment and chat tokens, JWTs, private keys, URLs with
 *   passwords, secret-named assignments in .env/YAML/JSON/code), replaced by `[redacted:<kind or variable name>]`.
 *
 * `StreamRedactor` does the same for text that arrives in pieces (command output, model text): it holds back just
 * enough that a secret split across chunks, or across stdout and stderr, is redacted whole.
 */

import { MultiMatcher } from './multi-match';

export interface Redactor {
  redact(text: string): string;
}

/**
 * Files this redactor left unchanged, so a search over them need not read them again (grep's redacted matching,
 * grep-redacted.ts). An entry names a file by its path and a key of what it holds (device, inode, size, change and
 * modification times); it counts only for the redactor's needles as they were when it was added: any secret the
 * redactor gains (added or learned) empties the memo, since a file clean before may hold the new one.
 */
export class UnchangedFiles {
  private readonly keys = new Map<string, string>();
  private generation = -1;
  constructor(
    private readonly currentGeneration: () => number,
    private readonly max = 200_000,
    /** What a text must contain for this redactor to change it, as ripgrep patterns (`SecretRedactor.prefilter`). */
    readonly prefilter: () => RedactionPrefilter | null = () => null,
  ) {}

  /** The redactor's generation: it changes whenever the redactor gains a secret. */
  get version(): number {
    return this.currentGeneration();
  }

  private fresh(): Map<string, string> {
    const g = this.currentGeneration();
    if (g !== this.generation) {
      this.keys.clear();
      this.generation = g;
    }
    return this.keys;
  }

  has(path: string, key: string): boolean {
    return this.fresh().get(path) === key;
  }

  add(path: string, key: string): void {
    const keys = this.fresh();
    if (keys.size >= this.max && !keys.has(path)) keys.clear();
    keys.set(path, key);
  }
}

/**
 * ripgrep patterns (one a line, for `rg --file=-`; never on a command line: they hold the secrets' forms) of which a
 * text redaction changes matches at least one, so a file none of them matches need not be read to know redaction
 * leaves it unchanged (grep-redacted.ts). A superset: a match does not mean redaction changes the file.
 */
export interface RedactionPrefilter {
  patterns: string;
  /** Some pattern spans lines (a secret folded over lines): rg needs `--multiline`. */
  multiline: boolean;
  /** The redactor's generation the patterns were built for. */
  version: number;
}

/** Between the characters of a folded secret: what `scanFolded` skips (a line break and the indentation after it). */
const FOLD_GAP = '(?:[\\r\\n][\\r\\n\\t ]*)?';

/**
 * `value` as a ripgrep literal: every character but A–Z, a–z and 0–9 as `\x{…}` (so nothing is a metacharacter and the
 * pattern file stays one line per pattern), `gap` between characters. Lone surrogates and U+FFFD (what an invalid
 * UTF-8 byte decodes to, which the file's bytes do not hold) cannot be matched in bytes: the longest piece between
 * them is used (an occurrence of the value holds it). Null when no piece is left.
 */
function rgLiteral(value: string, gap = ''): string | null {
  const pieces: string[][] = [[]];
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    let cp = code;
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
      const low = value.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp === 0xfffd) {
      pieces.push([]);
      continue;
    }
    const c = String.fromCodePoint(cp);
    pieces[pieces.length - 1]!.push(/^[A-Za-z0-9]$/.test(c) ? c : `\\x{${cp.toString(16)}}`);
  }
  const best = pieces.reduce((a, b) => (b.length > a.length ? b : a));
  return best.length ? best.join(gap) : null;
}

/** A range of text to replace. */
export interface RedactionMatch {
  start: number;
  end: number;
  name: string;
}

export const CREDENTIAL_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;
/** Short environment values would redact ordinary words; real credentials are longer than this. */
const MIN_ENV_SECRET_LENGTH = 8;
/** A vault secret is what the person typed: redact it even when short, but never single letters or digits. */
const MIN_SECRET_LENGTH = 4;
/** Secrets at least this long are also found in pieces (WINDOW characters or more) and folded over lines. */
const MIN_WINDOWED_LENGTH = 16;
const WINDOW = 12;
/** Values learned from credential-named assignments in output, per redactor. */
const MAX_LEARNED = 500;

/** Shannon entropy in bits per character: random tokens score high, words and repeated characters low. */
export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Encoded forms of very short secrets would match ordinary text: encode only from this length. */
const MIN_ENCODED_LENGTH = 6;
/**
 * A line that mentions one of these may be an assignment or header whose secret is still arriving: streamed text holds
 * back the whole line (until its newline) instead of only its last word.
 */
const SECRET_HINT = /key|token|secret|pass|pwd|auth|cookie|session|credential|bearer|private|dsn|BEGIN|:\/\/[^\s/]*:/i;

export const PLACEHOLDER = (name: string): string => `[redacted:${name}]`;

interface Shape {
  name: string | ((m: RegExpExecArray) => string);
  re: RegExp;
  /** Which capture group is the secret (default: the whole match). */
  group?: number;
  /** Extra check on the secret part (e.g. skip `${VAR}` references). */
  accept?: (secret: string, m: RegExpExecArray) => boolean;
  /**
   * Substrings (A–Z and a–z alike) of which every match contains at least one: a text holding none of them is not
   * scanned with this shape. All shapes' triggers are found in one pass over the text (`shapesIn`), so a text with no
   * credential-like word costs one automaton scan instead of a RegExp pass per shape. Absent: the shape always runs.
   */
  triggers?: readonly string[];
  /** Runs only where the text has 64 base64 characters in a row (a PEM body's line), found in the same pass. */
  base64Run?: true;
}

/**
 * Every word a credential-named variable contains (SECRET_NAME's alternatives each hold one, whole: the camelCase
 * split only inserts `_` between words): a name-keyed shape, whose `accept` needs `isSecretName`, cannot match a text
 * without one of them.
 */
const SECRET_NAME_WORDS = ['pass', 'pwd', 'secret', 'token', 'key', 'credential', 'session', 'cookie', 'dsn', 'webhook', 'bearer'];

/** Variable names whose values are secrets: they end in a secret word (MAX_TOKENS, auth: true and `key:` do not). */
const SECRET_NAME = /(?:^|[_.\-\s])(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token|credentials?|session[_-]?(?:id|key|token|secret)|cookie|signing[_-]?key|encryption[_-]?key|master[_-]?key|dsn|webhook[_-]?url|bearer)$|^(?:pass(?:word|wd)?|pwd|secret|token|apikey|api_key|cookie|credentials?|pgpassword|mysql_pwd)$/i;

/** Ordinary variables whose names happen to look like credentials. */
const ORDINARY_NAMES = /^(pwd|oldpwd)$/i;

export function isSecretName(name: string): boolean {
  if (ORDINARY_NAMES.test(name.trim())) return false;
  // camelCase counts as separated words: apiKey, accessToken, clientSecret.
  const words = name.trim().replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  return SECRET_NAME.test(words);
}

/** Values that are references or examples, not secrets. */
function isRealValue(value: string): boolean {
  const v = value.trim();
  if (v.length < MIN_SECRET_LENGTH) return false;
  if (/^\[redacted:[^\]]*\]$/.test(v)) return false;
  if (/^(true|false|null|none|nil|undefined|yes|no|on|off|required|optional|string|secret|password|changeme|example|xxx+|\*+|\.+)$/i.test(v)) return false;
  if (/^(\$\{?[A-Za-z_][\w]*\}?|%[A-Za-z_]\w*%|<[^>]*>|\{\{.*\}\}|\$\(.*\))$/.test(v)) return false;
  if (/^(<|\$\{|\$\(|\{\{|%[A-Za-z_])/.test(v)) return false;
  return true;
}

const unquote = (v: string): string => (/^(["'`]).*\1$/s.test(v) ? v.slice(1, -1) : v);

const SHAPES: Shape[] = [
  { name: 'private-key', triggers: ['-----BEGIN'], re: /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  { name: 'aws-access-key', triggers: ['AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'A3T'], re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g },
  { name: 'aws-secret-key', triggers: ['aws'], re: /\baws_?(?:secret_?(?:access_?)?key|secret)\b["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi, group: 1 },
  { name: 'github-token', triggers: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'], re: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g },
  { name: 'github-token', triggers: ['github_pat_'], re: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  { name: 'gitlab-token', triggers: ['glpat-', 'gldt-', 'glptt-', 'glrt-', 'glcbt-', 'glsoat-', 'glffct-'], re: /\bgl(?:pat|dt|ptt|rt|cbt|soat|ffct)-[A-Za-z0-9_-]{20,}/g },
  { name: 'anthropic-key', triggers: ['sk-ant-'], re: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: 'openai-key', triggers: ['sk-'], re: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'stripe-key', triggers: ['_live_', '_test_'], re: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { name: 'stripe-webhook-secret', triggers: ['whsec_'], re: /\bwhsec_[A-Za-z0-9]{24,}\b/g },
  { name: 'slack-token', triggers: ['xoxa-', 'xoxb-', 'xoxp-', 'xoxo-', 'xoxs-', 'xoxr-'], re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: 'slack-webhook', triggers: ['https://hooks.slack.com/services/'], re: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g },
  { name: 'google-api-key', triggers: ['AIza'], re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { name: 'npm-token', triggers: ['npm_'], re: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'pypi-token', triggers: ['pypi-AgE'], re: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g },
  { name: 'huggingface-token', triggers: ['hf_'], re: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { name: 'jwt', triggers: ['eyJ'], re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?/g },
  // A JWT folded over lines (fold, base64 -w, a wrapped log line). The signature goes on over lines of 8+ token
  // characters, and takes a last shorter line when that line is nothing but token characters (the fold's remainder;
  // a one-word line right after a folded token is redacted with it, the price of not showing the signature's end).
  { name: 'jwt', triggers: ['eyJ'], re: /\beyJ(?:[A-Za-z0-9_-]|\r?\n[ \t]*){8,}\.(?:\r?\n[ \t]*)?eyJ(?:[A-Za-z0-9_-]|\r?\n[ \t]*){8,}(?:\.(?:[A-Za-z0-9_-]|\r?\n[ \t]*(?=[A-Za-z0-9_-]{8}))*(?:\r?\n[ \t]*[A-Za-z0-9_-]{1,7}(?=\r?\n|$))?)?/g },
  // The body of a PEM block whose BEGIN line is not in this text (a read that starts mid-key): 64-column base64 lines.
  { name: 'private-key', base64Run: true, re: /(?:^[ \t]*(?:\d+\t)?[A-Za-z0-9+/]{64}[ \t]*\r?\n){2,}(?:[ \t]*(?:\d+\t)?[A-Za-z0-9+/]{1,63}={0,2}[ \t]*(?:\r?\n|$))?/gm },
  // scheme://user:password@host → the password.
  { name: 'url-password', re: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/?#"'<>]*:([^\s@/?#"'<>]+)@/gi, triggers: ['://'], group: 1, accept: (s) => !/^\[redacted:/.test(s) && !/^\$\{?\w+\}?$/.test(s) },
  // Authorization headers.
  { name: 'authorization', triggers: ['authorization'], re: /\b(?:proxy-)?authorization\b["']?\s*[:=]\s*["']?(?:bearer|basic|token|digest)\s+([A-Za-z0-9._~+/=-]{8,})/gi, group: 1 },
  // ?access_token=…&
  { name: 'url-token', re: /[?&](?:access_token|refresh_token|id_token|token|api_key|apikey|key|secret|password|sig|signature|client_secret|auth)=([^&\s#"'<>]{8,})/gi, triggers: ['token', 'key', 'secret', 'pass', 'sig', 'auth'], group: 1, accept: (s) => isRealValue(s) },
  // .env, shell and connection strings: NAME=value wherever it stands on a line (after line numbers, `path:line:`
  // prefixes, indentation, `export`, `;` of a connection string); the value is unquoted or quoted.
  {
    name: (m) => m[1]!,
    re: /(?:^|(?<=[\s:;|,(\[{]|--))(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.-]*)=("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s#'";]+)/gm,
    triggers: SECRET_NAME_WORDS,
    group: 2,
    accept: (s, m) => isSecretName(m[1]!) && isRealValue(unquote(s)),
  },
  // YAML / INI / TOML: name: value, name = value (line start; quoted or a plain token that is not a reference).
  {
    name: (m) => m[1]!,
    re: /^(?:[^\s:]*?[:-]\d+[:-])?(?:[ \t]*\d+\t)?[ \t]*(?:- )?["']?([A-Za-z_][\w.-]*)["']?[ \t]*[:=][ \t]*("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s#'"{[(&*!|>][^\s#]*)[ \t]*(?:#.*)?$/gm,
    triggers: SECRET_NAME_WORDS,
    group: 2,
    // An unquoted value with brackets, parentheses or quotes is code (`request.form["password"]`), not a secret.
    accept: (s, m) => isSecretName(m[1]!) && isRealValue(unquote(s)) && (/^["']/.test(s) || !/[()[\]{}"'<>]/.test(s)),
  },
  // JSON: "name": "value".
  {
    name: (m) => m[1]!,
    re: /"([^"\\\n]{1,64})"\s*:\s*"((?:[^"\\\n]|\\.)*)"/g,
    triggers: SECRET_NAME_WORDS,
    group: 2,
    accept: (s, m) => isSecretName(m[1]!) && isRealValue(s),
  },
  // Code and config anywhere on a line: name = "literal", name: 'literal', --password=literal.
  {
    name: (m) => m[1]!,
    re: /(?:\b|--)([A-Za-z_][\w-]*)\s*[:=]\s*(["'`])((?:(?!\2)[^\\\n]|\\.)+)\2/g,
    triggers: SECRET_NAME_WORDS,
    group: 3,
    accept: (s, m) => isSecretName(m[1]!) && isRealValue(s),
  },
];

/** Tests turn the trigger pass off to compare its answers with every shape run over every text. */
export const shapeTriggerTuning = { enabled: true };

/** Every shape's triggers in one automaton (A–Z and a–z alike), and for each trigger the shapes it opens. */
let triggerIndex: { matcher: MultiMatcher; opens: number[][] } | null = null;

function triggers(): { matcher: MultiMatcher; opens: number[][] } {
  if (triggerIndex) return triggerIndex;
  const words: string[] = [];
  const byWord = new Map<string, number[]>();
  SHAPES.forEach((shape, i) => {
    for (const t of shape.triggers ?? []) {
      const w = t.toLowerCase();
      if (!byWord.has(w)) {
        words.push(w);
        byWord.set(w, []);
      }
      byWord.get(w)!.push(i);
    }
  });
  // The automaton reports the longest trigger ending at a position: it opens the shapes of every trigger that ends it.
  const opens = words.map((w) => [...new Set(words.filter((v) => w.endsWith(v)).flatMap((v) => byWord.get(v)!))]);
  return (triggerIndex = { matcher: new MultiMatcher(words, { ignoreAsciiCase: true }), opens });
}

/** Characters of a PEM body line (base64 without padding). */
const BASE64_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') BASE64_CHAR[c.charCodeAt(0)] = 1;

/**
 * Which shapes can match `text` (by index in SHAPES): those without triggers, those one of whose triggers the text
 * holds (one automaton pass), and the PEM-body shape where 64 base64 characters stand in a row.
 */
function shapesIn(text: string): boolean[] {
  if (!shapeTriggerTuning.enabled) return SHAPES.map(() => true);
  const present = SHAPES.map((s) => s.triggers === undefined && !s.base64Run);
  const { matcher, opens } = triggers();
  matcher.scan(text, (_start, _end, k) => {
    for (const i of opens[k]!) present[i] = true;
  });
  if (SHAPES.some((s) => s.base64Run)) {
    let run = 0;
    let found = false;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 128 && BASE64_CHAR[c] === 1) {
        if (++run >= 64) {
          found = true;
          break;
        }
      } else run = 0;
    }
    if (found) SHAPES.forEach((s, i) => {
      if (s.base64Run) present[i] = true;
    });
  }
  return present;
}

function nameOf(shape: Shape, m: RegExpExecArray): string {
  const raw = typeof shape.name === 'string' ? shape.name : shape.name(m);
  return raw.replace(/[^A-Za-z0-9_.:-]/g, '_').slice(0, 64) || 'secret';
}

/** The forms a secret may take in output: itself, base64 at every alignment, hex, URL-encoded, JSON-escaped. */
export function secretVariants(value: string): string[] {
  const out = new Set<string>([value]);
  if (value.length >= MIN_ENCODED_LENGTH) {
    const bytes = Buffer.from(value, 'utf8');
    for (let k = 0; k < 3; k++) {
      // base64 of (k unknown bytes + value): keep only the characters that depend on the value's bytes alone.
      const b64 = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
      const first = Math.ceil((8 * k) / 6);
      const last = Math.floor((8 * (k + bytes.length)) / 6);
      const core = b64.slice(first, last);
      if (core.length >= MIN_ENCODED_LENGTH) {
        out.add(core);
        out.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
      }
    }
    out.add(bytes.toString('hex'));
    out.add(bytes.toString('hex').toUpperCase());
  }
  // Reshaped: reversed (rev).
  if (value.length >= MIN_ENCODED_LENGTH) out.add([...value].reverse().join(''));
  const url = encodeURIComponent(value);
  out.add(url);
  out.add(url.replace(/%20/g, '+'));
  out.add(url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()));
  const json = JSON.stringify(value).slice(1, -1);
  out.add(json);
  out.add(JSON.stringify(json).slice(1, -1));
  out.add(value.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  return [...out].filter((v) => v.length >= Math.min(MIN_SECRET_LENGTH, value.length));
}

interface Needle {
  text: string;
  name: string;
}

export interface SecretRedactorOptions {
  /** Credential-named variables of this environment are redacted (default: process.env). Pass {} for none. */
  env?: NodeJS.ProcessEnv;
  /** Secrets known up front, by name. */
  secrets?: Record<string, string>;
  /** Redact credential shapes (default true). */
  shapes?: boolean;
}

/** The one redactor: exact secrets (with their encodings) and credential shapes. Secrets can be added while it runs. */
export class SecretRedactor implements Redactor {
  private needles: Needle[] = [];
  /** Long secrets (and their reversal) also searched with line breaks ignored (fold, wrapped output). */
  private folded: Needle[] = [];
  /**
   * All needles (and all folded needles) in one automaton each, so a text is scanned once whatever the number of
   * secrets (multi-match.ts); rebuilt on the first scan after the needles change.
   */
  private matcher: MultiMatcher | null = null;
  private foldedMatcher: MultiMatcher | null = null;
  private learned = 0;
  private readonly values = new Map<string, string>();
  private readonly shapes: boolean;
  /** Bumped whenever the needles change (a secret added or learned). */
  private generation = 0;
  /** Files this redactor left unchanged, valid until it gains a secret. */
  readonly unchangedFiles = new UnchangedFiles(
    () => this.generation,
    undefined,
    () => this.prefilter(),
  );
  private prefilterCache: RedactionPrefilter | null = null;

  constructor(opts: SecretRedactorOptions = {}) {
    this.shapes = opts.shapes ?? true;
    for (const [name, value] of Object.entries(opts.env ?? process.env)) {
      if (value && value.length >= MIN_ENV_SECRET_LENGTH && CREDENTIAL_ENV_NAME.test(name)) this.addSecret(name, value);
    }
    for (const [name, value] of Object.entries(opts.secrets ?? {})) this.addSecret(name, value);
  }

  /** Adds a secret value (and its encoded forms) under `name`. Values shorter than 4 characters are ignored. */
  addSecret(name: string, value: string | null | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH || this.values.get(value) === name) return;
    this.values.set(value, name);
    this.generation++;
    const byText = new Map(this.needles.map((n) => [n.text, n]));
    for (const text of secretVariants(value)) if (!byText.has(text)) byText.set(text, { text, name });
    // Reshaped (cut -c, substr): every window of a long secret, so any long enough piece of it is replaced whole.
    if (value.length >= MIN_WINDOWED_LENGTH) {
      const reversed = [...value].reverse().join('');
      for (const v of [value, reversed]) {
        for (let i = 0; i + WINDOW <= v.length; i++) {
          const text = v.slice(i, i + WINDOW);
          if (!byText.has(text)) byText.set(text, { text, name });
        }
      }
      this.folded.push({ text: value, name }, { text: reversed, name });
    }
    // Longest first (the automaton reports the longest needle ending at each position; the order is kept for names).
    this.needles = [...byText.values()].sort((a, b) => b.text.length - a.text.length);
    this.matcher = null;
    this.foldedMatcher = null;
  }

  private needleMatcher(): MultiMatcher {
    return (this.matcher ??= new MultiMatcher(this.needles.map((n) => n.text)));
  }

  /** Changes whenever the redactor gains a secret (added or learned): what was redacted before may differ now. */
  get version(): number {
    return this.generation;
  }

  get secretCount(): number {
    return this.values.size;
  }

  /** Longest exact needle. */
  get longestNeedle(): number {
    return this.needles[0]?.text.length ?? 0;
  }

  /** Every range to replace, sorted and non-overlapping (overlapping findings are merged, so nothing leaks at an edge). */
  matches(text: string): RedactionMatch[] {
    const found: RedactionMatch[] = [];
    if (this.needles.length) {
      // One pass for every needle; the needles are fixed for this scan (a secret learned by a shape below rebuilds
      // the automaton for the next text, and the shape itself covers it in this one).
      const needles = this.needles;
      this.needleMatcher().scan(text, (start, end, k) => found.push({ start, end, name: needles[k]!.name }));
    }
    if (this.folded.length && /[\r\n]/.test(text)) this.foldedMatches(text, found);
    if (this.shapes) {
      const present = shapesIn(text);
      for (let i = 0; i < SHAPES.length; i++) {
        if (!present[i]) continue;
        const shape = SHAPES[i]!;
        shape.re.lastIndex = 0;
        let m: RegExpExecArray | null;
        while ((m = shape.re.exec(text)) !== null) {
          if (m[0].length === 0) {
            shape.re.lastIndex++;
            continue;
          }
          const secret = shape.group ? m[shape.group] : m[0];
          if (secret === undefined || secret === '') continue;
          if (shape.accept && !shape.accept(secret, m)) continue;
          const start = shape.group ? m.index + m[0].lastIndexOf(secret) : m.index;
          found.push({ start, end: start + secret.length, name: nameOf(shape, m) });
          // A high-entropy value named like a credential is remembered, so later output that reshapes it (rev,
          // cut, fold, jq) is still recognised.
          if (typeof shape.name === 'function') this.learn(nameOf(shape, m), unquote(secret));
        }
      }
    }
    if (found.length <= 1) return found;
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    const merged: RedactionMatch[] = [];
    for (const m of found) {
      const last = merged[merged.length - 1];
      if (last && m.start < last.end) {
        if (m.end > last.end) last.end = m.end;
      } else merged.push({ ...m });
    }
    return merged;
  }

  private learn(name: string, value: string): void {
    if (this.learned >= MAX_LEARNED || value.length < MIN_WINDOWED_LENGTH || this.values.has(value) || entropy(value) < 3) return;
    this.learned++;
    this.addSecret(name, value);
  }

  /** Long secrets found with line breaks (and the indentation after them) ignored. */
  private foldedMatches(text: string, found: RedactionMatch[]): void {
    const folded = this.folded;
    this.foldedMatcher ??= new MultiMatcher(folded.map((n) => n.text));
    this.foldedMatcher.scanFolded(text, (start, end, k) => {
      // Only a finding that spans a line break is new: the needle scan found the others.
      if (end - start > folded[k]!.text.length) found.push({ start, end, name: folded[k]!.name });
    });
  }

  /**
   * ripgrep patterns a text must match for `redact` to change it (RedactionPrefilter): every exact needle, every
   * folded needle with line breaks and indentation allowed between its characters, every shape's triggers (case
   * ignored) and the PEM body's 64 base64 characters in a row. Null when that cannot be said (the trigger pass is
   * off, or a needle has no piece ripgrep can match).
   */
  prefilter(): RedactionPrefilter | null {
    if (this.prefilterCache?.version === this.generation) return this.prefilterCache;
    const lines: string[] = [];
    let multiline = false;
    for (const n of this.needles) {
      const lit = rgLiteral(n.text);
      if (lit === null) return null;
      if (n.text.includes('\n')) multiline = true;
      lines.push(lit);
    }
    for (const n of this.folded) {
      const lit = rgLiteral(n.text, FOLD_GAP);
      if (lit === null) return null;
      multiline = true;
      lines.push(lit);
    }
    if (this.shapes) {
      if (!shapeTriggerTuning.enabled) return null;
      for (const shape of SHAPES) {
        if (shape.base64Run) lines.push('[A-Za-z0-9+/]{64}');
        else if (!shape.triggers?.length) return null;
        for (const t of shape.triggers ?? []) lines.push(`(?i:${rgLiteral(t)!})`);
      }
    }
    return (this.prefilterCache = { patterns: [...new Set(lines)].join('\n'), multiline, version: this.generation });
  }

  redact(text: string): string {
    if (!text) return text;
    const ms = this.matches(text);
    if (ms.length === 0) return text;
    let out = '';
    let at = 0;
    for (const m of ms) {
      out += text.slice(at, m.start) + PLACEHOLDER(m.name);
      at = m.end;
    }
    return out + text.slice(at);
  }

  /**
   * The length of the longest suffix of `text` that is a proper prefix of a secret form: text that may become a
   * secret when the next chunk arrives.
   */
  pendingPrefix(text: string): number {
    if (this.needles.length === 0 || !text) return 0;
    return this.needleMatcher().pendingPrefix(text);
  }

  stream(emit: (key: string, text: string) => void, opts: { cap?: number } = {}): StreamRedactor {
    return new StreamRedactor(this, emit, opts);
  }
}

/**
 * How much of the end of `text` may still grow into a credential shape: the last word (tokens contain no whitespace),
 * or the whole last line when it mentions a secret-like name (assignments, headers, key blocks, URLs with passwords).
 */
export function shapeHold(text: string): number {
  const lineStart = text.lastIndexOf('\n') + 1;
  if (SECRET_HINT.test(text.slice(lineStart))) return text.length - lineStart;
  let i = text.length;
  while (i > lineStart && !/\s/.test(text[i - 1]!)) i--;
  return text.length - i;
}

/**
 * Redacts text that arrives in pieces from one or more streams (stdout and stderr of one command, or the text deltas
 * of one model reply), as if they were one interleaved text: a secret split across chunks or across streams is
 * replaced whole. Text is released as soon as it can no longer be part of a secret: held back are a tail that could
 * still become a known secret (or one of its encodings), the last word or secret-looking line (a credential shape may
 * still be arriving), and any finding that reaches the end. `flush()` releases the rest.
 */
export class StreamRedactor {
  private segs: { key: string; text: string }[] = [];
  private length = 0;
  private readonly cap: number;
  /** After a forced release inside an unterminated private key: drop text until its END line. */
  private swallowingKey = false;

  constructor(
    private readonly redactor: SecretRedactor,
    private readonly emit: (key: string, text: string) => void,
    opts: { cap?: number } = {},
  ) {
    this.cap = opts.cap ?? 256 * 1024;
  }

  push(key: string, text: string): void {
    if (!text) return;
    if (this.swallowingKey) {
      const end = /-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/.exec(text);
      if (!end) return;
      this.swallowingKey = false;
      text = text.slice(end.index + end[0].length);
      if (!text) return;
    }
    const last = this.segs[this.segs.length - 1];
    if (last && last.key === key) last.text += text;
    else this.segs.push({ key, text });
    this.length += text.length;
    this.release(false);
  }

  flush(): void {
    this.release(true);
  }

  private release(final: boolean): void {
    if (this.length === 0) return;
    const combined = this.segs.length === 1 ? this.segs[0]!.text : this.segs.map((s) => s.text).join('');
    const matches = this.redactor.matches(combined);
    let cut = final ? combined.length : combined.length - Math.max(shapeHold(combined), this.redactor.pendingPrefix(combined));
    if (!final) {
      // Never cut inside a finding, and hold back findings that reach the end (a token may still be growing).
      for (let changed = true; changed; ) {
        changed = false;
        for (const m of matches) {
          if ((m.start < cut && m.end > cut) || (m.end >= combined.length && m.start < cut)) {
            cut = m.start;
            changed = true;
          }
        }
      }
      if (cut <= 0) {
        if (this.length <= this.cap) return;
        // Something (an unterminated private key) has been growing past the cap: release everything, redacted.
        cut = combined.length;
        const open = matches.find((m) => m.end >= combined.length && m.name === 'private-key');
        if (open) this.swallowingKey = true;
      }
    }
    this.emitRange(combined, cut, matches);
  }

  /** Emits combined[0, cut) stream by stream, each finding as a placeholder in the stream where it starts. */
  private emitRange(combined: string, cut: number, matches: RedactionMatch[]): void {
    const inRange = matches.filter((m) => m.start < cut);
    let offset = 0;
    let mi = 0;
    const kept: { key: string; text: string }[] = [];
    for (const seg of this.segs) {
      const segStart = offset;
      const segEnd = offset + seg.text.length;
      offset = segEnd;
      if (segStart >= cut) {
        kept.push(seg);
        continue;
      }
      const to = Math.min(segEnd, cut);
      let out = '';
      let pos = segStart;
      while (pos < to) {
        const m = inRange[mi];
        if (m && m.end <= pos) {
          mi++;
          continue;
        }
        if (m && m.start <= pos) {
          // Inside a finding: its placeholder went out where it started; skip its characters here.
          if (m.start === pos) out += PLACEHOLDER(m.name);
          pos = Math.min(m.end, to);
          if (m.end <= to) mi++;
          continue;
        }
        const next = m ? Math.min(m.start, to) : to;
        out += combined.slice(pos, next);
        pos = next;
      }
      if (out) this.emit(seg.key, out);
      if (segEnd > cut) kept.push({ key: seg.key, text: combined.slice(cut, segEnd) });
    }
    this.segs = kept;
    this.length = kept.reduce((n, s) => n + s.text.length, 0);
  }
}
