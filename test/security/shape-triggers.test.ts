/**
 * The redactor's credential shapes run only over texts holding one of their trigger words (issue 54, item 2: one
 * automaton pass, A–Z and a–z alike, decides which shapes can match; src/main/runtime/context/redaction.ts `shapesIn`). The
 * property: the trigger pass never changes an answer. Every spelling below (and its UPPER, lower and mixed-case
 * forms, inside other text, at the start and end of a text, over several lines) is redacted exactly as when every
 * shape runs over every text, and each table row is really redacted (so the comparison can fail).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MultiMatcher } from '../../src/main/runtime/context/multi-match';
import { SecretRedactor, shapeTriggerTuning } from '../../src/main/runtime/context/redaction';

afterEach(() => {
  shapeTriggerTuning.enabled = true;
});

const PEM_LINE = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj'; // 64 base64 characters

/** One credential per row, in the spellings people and tools write them. */
const CREDENTIALS = [
  '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY-----',
  `${PEM_LINE}\n${PEM_LINE}\n${PEM_LINE}\nAB==\n`,
  'id AKIAIOSFODNN7EXAMPLE here',
  'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'ghp_1234567890abcdefghijklmnopqrstuvwxyz12',
  'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
  'glpat-abcdefghij0123456789xyz',
  'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123',
  'sk-proj-abcdefghijklmnopqrstuvwxyz0123',
  'sk_live_abcdefghijklmnop1234',
  'whsec_abcdefghijklmnopqrstuvwxyz12',
  'xoxb-1234567890-abcdefghij',
  'https://hooks.slack.com/services/T000/B000/abcdefghijklmnopqrstuvwx',
  'AIzaSyA1234567890abcdefghijklmnopqrstuv',
  'npm_abcdefghijklmnopqrstuvwxyz0123456789',
  'pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0',
  'hf_abcdefghijklmnopqrstuvwxyzABCDEF',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXZhbHVl',
  'eyJhbGciOiJIUzI1\n  NiJ9.eyJzdWIiOiIx\n  MjM0NTY3ODkwIn0.c2lnbmF0dXJl',
  'postgres://admin:hunter2pass@db.example.com/app',
  'Authorization: Bearer abcdefghijklmnop123456',
  'GET /x?access_token=abcdefgh12345678&y=1',
  'https://example.com/cb?sig=abcdefgh12345678',
  'export DB_PASSWORD=s3cr3tValue99',
  'API_KEY=abcd1234efgh5678',
  'client_secret: "a1b2c3d4e5f6g7h8"',
  'dbPassword: topsecretvalue1',
  'Session_Token = Zm9vYmFyYmF6cXV4',
  'SENTRY_DSN=https://abc@o1.ingest.sentry.io/1',
  '{"apiKey": "abcdef123456xyz"}',
  '{\n  "auth_token":\n    "abcdef123456xyz"\n}',
  'const password = "hunter2-hunter2";',
  'login --password=\'correct-horse-battery\'',
  'cookie: sessionid=abcdef0123456789',
  'slack_webhook_url: https://example.com/hook/abc123def',
  'BEARER = "abcdefgh12345678"',
];

/** Spellings of one row: as written, UPPER, lower, alternating case, and inside other text. */
function spellings(text: string): string[] {
  const alternating = [...text].map((c, i) => (i % 2 ? c.toLowerCase() : c.toUpperCase())).join('');
  return [text, text.toUpperCase(), text.toLowerCase(), alternating, `line one\n${text}\nline three`, `x ${text} y`];
}

describe('shape triggers', () => {
  it('leave every answer as it is when every shape runs over every text', () => {
    let redactedRows = 0;
    for (const row of CREDENTIALS) {
      for (const text of spellings(row)) {
        shapeTriggerTuning.enabled = true;
        const fast = new SecretRedactor({ env: {} }).redact(text);
        shapeTriggerTuning.enabled = false;
        const full = new SecretRedactor({ env: {} }).redact(text);
        expect(fast, JSON.stringify(text)).toBe(full);
      }
      shapeTriggerTuning.enabled = true;
      if (new SecretRedactor({ env: {} }).redact(row) !== row) redactedRows++;
      else expect.fail(`not redacted at all: ${row}`);
    }
    expect(redactedRows).toBe(CREDENTIALS.length);
  });

  it('learn the same secrets (a value named like a credential is hidden in later output either way)', () => {
    for (const enabled of [true, false]) {
      shapeTriggerTuning.enabled = enabled;
      const r = new SecretRedactor({ env: {} });
      r.redact('export MY_TOKEN=Q9x7Lm2Vb8Nc4Zp1Wd6R');
      expect(r.redact('echo Q9x7Lm2Vb8Nc4Zp1Wd6R | rev')).not.toContain('Q9x7Lm2Vb8Nc4Zp1Wd6R');
    }
  });

  it('ignoreAsciiCase finds what a lower-cased naive search finds', () => {
    const words = ['key', 'pass', 'sk-', 'eyj', 'a3t', 'ghp_', 'authorization', 'token', 'ken'];
    const m = new MultiMatcher(words, { ignoreAsciiCase: true });
    const alphabet = 'kKeEyYpPaAsSsS-_gGhHtToOnN3jJ z';
    let a = 7;
    const rand = (): number => ((a = (a * 1103515245 + 12345) >>> 0) / 4294967296);
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: 60 }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
      const lower = text.toLowerCase();
      const ends = new Set<number>();
      m.scan(text, (start, end, k) => {
        expect(lower.slice(start, end)).toBe(words[k]);
        ends.add(end);
      });
      for (const w of words) for (let i = lower.indexOf(w); i !== -1; i = lower.indexOf(w, i + 1)) expect(ends.has(i + w.length)).toBe(true);
    }
  });
});
