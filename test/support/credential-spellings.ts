/**
 * Credentials in the spellings people and tools write them, one per row, each redacted by the credential shapes
 * (src/main/runtime/context/redaction.ts `SHAPES`): shared by the trigger-pass test (shape-triggers.test.ts) and the
 * ripgrep prefilter's (grep-prefilter.test.ts).
 */
export const PEM_LINE = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj'; // 64 base64 characters

/** One credential per row, in the spellings people and tools write them. */
export const CREDENTIALS = [
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
export function spellings(text: string): string[] {
  const alternating = [...text].map((c, i) => (i % 2 ? c.toLowerCase() : c.toUpperCase())).join('');
  return [text, text.toUpperCase(), text.toLowerCase(), alternating, `line one\n${text}\nline three`, `x ${text} y`];
}
