/**
 * Redaction, table-driven: credential shapes, exact secrets in every encoding, things that must stay readable, and
 * streamed text split anywhere (across chunks and across stdout/stderr). Plus the environment a child process gets.
 */
import { describe, expect, it } from 'vitest';
import { SecretRedactor, secretVariants } from '../../src/main/runtime/context/redaction';
import { childEnv, isDroppedEnvName } from '../../src/main/services/processes/child-env';

const SECRET = 'Tr0ub4dor&3-horse!battery';
const r = () => new SecretRedactor({ env: {}, secrets: { DB_PASS: SECRET, SHORT: 'p4ss' } });

// [what, text, the secret part that must disappear, placeholder name expected]
type ShapeRow = readonly [what: string, text: string, secret: string, name: string];
const shapes: ShapeRow[] = [
  ['AWS access key id', 'key id AKIAIOSFODNN7EXAMPLE in the log', 'AKIAIOSFODNN7EXAMPLE', 'aws-access-key'],
  ['AWS temporary key id', 'ASIAY34FZKBOKMUTVV7A', 'ASIAY34FZKBOKMUTVV7A', 'aws-access-key'],
  ['AWS secret key (credentials file)', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws-secret-key'],
  ['AWS secret key (env)', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', ''],
  ['GitHub classic token', 'token ghp_16C7e42F292c6912E7710c838347Ae178B4a ok', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'github-token'],
  ['GitHub OAuth token', 'gho_16C7e42F292c6912E7710c838347Ae178B4a', 'gho_16C7e42F292c6912E7710c838347Ae178B4a', 'github-token'],
  ['GitHub app token', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a', 'ghs_16C7e42F292c6912E7710c838347Ae178B4a', 'github-token'],
  ['GitHub fine-grained token', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV', 'github-token'],
  ['GitLab token', 'glpat-xxxxxxxxxxxxxxxxxxxx', 'glpat-xxxxxxxxxxxxxxxxxxxx', 'gitlab-token'],
  ['OpenAI key', 'OPENAI says sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD', 'sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD', 'openai-key'],
  ['OpenAI project key', 'sk-proj-abcdefghijklmnop_qrstuvwxyz-0123456789', 'sk-proj-abcdefghijklmnop_qrstuvwxyz-0123456789', 'openai-key'],
  ['Anthropic key', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFG', 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789-_ABCDEFG', 'anthropic-key'],
  ['Stripe live secret key', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'stripe-key'],
  ['Stripe restricted key', 'rk_live_4eC39HqLyjWDarjtT1zdp7dc', 'rk_live_4eC39HqLyjWDarjtT1zdp7dc', 'stripe-key'],
  ['Stripe webhook secret', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'stripe-webhook-secret'],
  ['Slack bot token', 'xoxb-2048-4096-abcdefghijABCDEFGHIJ', 'xoxb-2048-4096-abcdefghijABCDEFGHIJ', 'slack-token'],
  ['Slack user token', 'xoxp-2048-4096-abcdefghijABCDEFGHIJ', 'xoxp-2048-4096-abcdefghijABCDEFGHIJ', 'slack-token'],
  ['Slack webhook', 'POST https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', 'T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', 'slack-webhook'],
  ['Google API key', 'AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe', 'AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe', 'google-api-key'],
  ['npm token', 'npm_abcdefghijklmnopqrstuvwxyz0123456789', 'npm_abcdefghijklmnopqrstuvwxyz0123456789', 'npm-token'],
  ['Hugging Face token', 'hf_abcdefghijklmnopqrstuvwxyzABCDEF', 'hf_abcdefghijklmnopqrstuvwxyzABCDEF', 'huggingface-token'],
  ['JWT', 'Bearer-less eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c', 'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ', 'jwt'],
  ['RSA private key', 'x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA75\nabc\n-----END RSA PRIVATE KEY-----\ny', 'MIIEpAIBAAKCAQEA75', 'private-key'],
  ['OpenSSH private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----', 'b3BlbnNzaC1rZXktdjEAAAAA', 'private-key'],
  ['unterminated private key', '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B', 'MIIEvQIBADANBgkqhkiG9w0B', 'private-key'],
  ['URL with a password', 'cloning https://alice:s3cretpw@github.com/x/y.git', 's3cretpw', 'url-password'],
  ['database URL', 'DATABASE_URL=postgres://app:Sup3rS3cret@db.internal:5432/app', 'Sup3rS3cret', ''],
  ['redis URL', 'redis://:hunter2hunter2@cache:6379/0', 'hunter2hunter2', 'url-password'],
  ['.env assignment', 'API_KEY=abc123def456ghi', 'abc123def456ghi', 'API_KEY'],
  ['.env export, quoted', 'export DB_PASSWORD="correct horse battery"', 'correct horse battery', 'DB_PASSWORD'],
  ['.env single-quoted', "SECRET_KEY='x9!k2$Lq'", 'x9!k2$Lq', 'SECRET_KEY'],
  ['.env client secret', 'GOOGLE_CLIENT_SECRET=GOCSPX-abcdef123456', 'GOCSPX-abcdef123456', 'GOOGLE_CLIENT_SECRET'],
  ['.env session secret', 'SESSION_SECRET=keyboardcat12', 'keyboardcat12', 'SESSION_SECRET'],
  ['YAML password', 'db:\n  password: supersecret123\n  user: app', 'supersecret123', 'password'],
  ['YAML api_key quoted', 'api_key: "AbCdEf123456"', 'AbCdEf123456', 'api_key'],
  ['TOML token', 'token = "tok-9f8e7d6c5b4a"', 'tok-9f8e7d6c5b4a', 'token'],
  ['JSON password', '{"user": "bob", "password": "hunter2hunter2"}', 'hunter2hunter2', 'password'],
  ['JSON camelCase apiKey', '{"apiKey":"k-1234567890abcdef"}', 'k-1234567890abcdef', 'apiKey'],
  ['JSON client_secret', '{"client_secret": "cs_0987654321"}', 'cs_0987654321', 'client_secret'],
  ['code literal', 'const accessToken = "at-1234-5678-90ab";', 'at-1234-5678-90ab', 'accessToken'],
  ['CLI flag', 'mysql --password="S3cr3t!pw" -u root', 'S3cr3t!pw', 'password'],
  ['Authorization header', 'Authorization: Bearer abcdef0123456789xyz', 'abcdef0123456789xyz', 'authorization'],
  ['Basic auth header', 'authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l', 'YWxhZGRpbjpvcGVuc2VzYW1l', 'authorization'],
  ['token in a query string', 'GET /api?access_token=EAACEdEose0cBA1234&fields=id', 'EAACEdEose0cBA1234', 'url-token'],
  ['signature in a presigned URL', 'https://s3/x?X-Amz-Credential=a&sig=0a1b2c3d4e5f6a7b8c9d', '0a1b2c3d4e5f6a7b8c9d', 'url-token'],
];

// Text that must come out unchanged: the redactor must not make ordinary output unreadable.
const untouched: string[] = [
  'MAX_TOKENS=4096',
  'token_count: 12',
  'auth: true',
  'key: value',
  'primary_key: id',
  'password = getPassword()',
  'password = request.form["password"]',
  'PASSWORD=${DB_PASSWORD}',
  'API_KEY=<your key here>',
  'password: changeme',
  'the secret of good code is tests',
  'sk-short',
  'https://example.com/path?page=2&sort=desc',
  'https://user@example.com/repo.git',
  'commit 3f2a9c1e8b7d6f5a4e3d2c1b0a9f8e7d6c5b4a3f',
  'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'import { apiKeyName } from "./app-service";',
  'const token = tokens[0];',
  '-----BEGIN PUBLIC KEY-----',
  'uuid 123e4567-e89b-12d3-a456-426614174000',
];

// An exact secret in every form it may take in output.
function encodings(secret: string): [string, string][] {
  const bytes = Buffer.from(secret);
  return [
    ['verbatim', `value=${secret};`],
    ['base64', `data: ${bytes.toString('base64')}`],
    ['base64url', `data: ${bytes.toString('base64url')}`],
    ['base64 after 1 byte', Buffer.concat([Buffer.from('x'), bytes]).toString('base64')],
    ['base64 after 2 bytes', Buffer.concat([Buffer.from('xy'), bytes]).toString('base64')],
    ['base64 inside a Basic header', `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`],
    ['hex', `dump ${bytes.toString('hex')}`],
    ['HEX', bytes.toString('hex').toUpperCase()],
    ['URL-encoded', `q=${encodeURIComponent(secret)}&x=1`],
    ['form-encoded', `q=${encodeURIComponent(secret).replace(/%20/g, '+')}`],
    ['JSON-escaped', JSON.stringify({ v: secret })],
    ['JSON in JSON', JSON.stringify(JSON.stringify({ v: secret }))],
  ];
}

describe('redaction: credential shapes', () => {
  it.each(shapes)('%s', (_what, text, secret, name) => {
    const out = r().redact(text);
    expect(out).not.toContain(secret);
    expect(out).toMatch(/\[redacted:[^\]]+\]/);
    if (name) expect(out).toContain(`[redacted:${name}]`);
  });
});

describe('redaction: ordinary text stays readable', () => {
  it.each(untouched)('%s', (text) => {
    expect(r().redact(text)).toBe(text);
  });
});

describe('redaction: exact secrets in every encoding', () => {
  const secrets = [SECRET, 'pa ss"w\\rd with spaces', 'ünïcødé-päss-wörd'];
  const rows = secrets.flatMap((s) => encodings(s).map(([how, text]) => [s, how, text] as const));
  it.each(rows)('%s as %s', (secret, how, text) => {
    const red = new SecretRedactor({ env: {}, secrets: { S: secret } });
    const out = red.redact(text);
    expect(out).toContain('[redacted:S]');
    // No form of the secret survives.
    for (const v of secretVariants(secret)) expect(out).not.toContain(v);
    if (how === 'verbatim') expect(out).toBe('value=[redacted:S];');
  });

  it('redacts credential-named environment variables by value, not others', () => {
    const red = new SecretRedactor({ env: { GITHUB_TOKEN: 'abcdefgh12345678', HOME: '/home/someone-long', MY_API_KEY: 'zzzzzzzz99' } });
    expect(red.redact('t=abcdefgh12345678 k=zzzzzzzz99 h=/home/someone-long')).toBe('t=[redacted:GITHUB_TOKEN] k=[redacted:MY_API_KEY] h=/home/someone-long');
  });

  it('replaces a longer secret whole when it contains a shorter one', () => {
    const red = new SecretRedactor({ env: {}, secrets: { A: 'abcd1234', B: 'xxabcd1234yy' } });
    expect(red.redact('xxabcd1234yy and abcd1234')).toBe('[redacted:B] and [redacted:A]');
  });

  it('is idempotent', () => {
    const text = shapes.map((s) => s[1]).join('\n');
    const once = r().redact(text);
    expect(r().redact(once)).toBe(once);
  });

  it('secrets added later are redacted from then on', () => {
    const red = new SecretRedactor({ env: {} });
    expect(red.redact('v=late-secret-99')).toBe('v=late-secret-99');
    red.addSecret('LATE', 'late-secret-99');
    expect(red.redact('v=late-secret-99')).toBe('v=[redacted:LATE]');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Streams: whatever the split, the secret never appears in what is emitted.

function streamed(red: SecretRedactor, chunks: readonly (readonly [string, string])[]): { all: string; byKey: Record<string, string> } {
  const byKey: Record<string, string> = {};
  let all = '';
  const s = red.stream((key, text) => {
    byKey[key] = (byKey[key] ?? '') + text;
    all += text;
  });
  for (const [key, text] of chunks) s.push(key, text);
  s.flush();
  return { all, byKey };
}

type SplitRow = readonly [what: string, chunks: (readonly [string, string])[], secret: string];
const splits: SplitRow[] = [
  ['secret in one chunk', [['stdout', `a ${SECRET} b`]], SECRET],
  ['split in two', [['stdout', `a ${SECRET.slice(0, 7)}`], ['stdout', `${SECRET.slice(7)} b`]], SECRET],
  ['split into single characters', [...`a ${SECRET} b`].map((c) => ['stdout', c] as const), SECRET],
  ['split across stdout and stderr', [['stdout', `x ${SECRET.slice(0, 10)}`], ['stderr', SECRET.slice(10)], ['stdout', ' y']], SECRET],
  ['split three ways across streams', [['stdout', SECRET.slice(0, 5)], ['stderr', SECRET.slice(5, 12)], ['stdout', SECRET.slice(12)]], SECRET],
  ['base64 form split', [['stdout', Buffer.from(SECRET).toString('base64').slice(0, 9)], ['stdout', `${Buffer.from(SECRET).toString('base64').slice(9)}\n`]], Buffer.from(SECRET).toString('base64').replace(/=+$/, '')],
  ['GitHub token split', [['stdout', 'push with ghp_16C7e42F2'], ['stdout', '92c6912E7710c838347Ae178B4a done']], 'ghp_16C7e42F292c6912E7710c838347Ae178B4a'],
  ['JWT split at a dot', [['stdout', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.'], ['stdout', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig_abc\n']], 'eyJzdWIiOiIxMjM0NTY3ODkwIn0'],
  ['env line split in the value', [['stdout', 'API_KEY=abc12'], ['stdout', '3def456ghi\nNEXT=1\n']], 'abc123def456ghi'],
  ['env line split in the name', [['stdout', 'DB_PASS'], ['stdout', 'WORD=hunter2hunter2\n']], 'hunter2hunter2'],
  ['Authorization header split before the token', [['stderr', '> Authorization: Bearer '], ['stderr', 'abcdef0123456789xyz\n']], 'abcdef0123456789xyz'],
  ['private key arriving line by line', ['-----BEGIN RSA PRIVATE KEY-----\n', 'MIIEpAIBAAKCAQEA75secretbody\n', 'moresecret\n', '-----END RSA PRIVATE KEY-----\n', 'after\n'].map((l) => ['stdout', l] as const), 'MIIEpAIBAAKCAQEA75secretbody'],
  ['URL password split', [['stdout', 'https://alice:s3cr'], ['stdout', 'etpw@github.com/x\n']], 's3cretpw'],
];

describe('redaction: streamed text split anywhere', () => {
  it.each(splits)('%s', (_what, chunks, secret) => {
    const { all, byKey } = streamed(r(), chunks);
    expect(all).not.toContain(secret);
    for (const text of Object.values(byKey)) expect(text).not.toContain(secret);
    expect(all).toMatch(/\[redacted:/);
  });

  it('at every split point of a secret across two streams', () => {
    const text = `before ${SECRET} after`;
    for (let i = 1; i < text.length; i++) {
      const { all, byKey } = streamed(r(), [['stdout', text.slice(0, i)], ['stderr', text.slice(i)]]);
      expect(all, `split at ${i}`).not.toContain(SECRET);
      expect(all.replace('[redacted:DB_PASS]', '')).not.toMatch(/Tr0ub4dor&3-horse/);
      expect((byKey.stdout ?? '') + (byKey.stderr ?? '')).toContain('[redacted:DB_PASS]');
    }
  });

  it('releases ordinary text promptly (only what may still become a secret is held back)', () => {
    const emitted: string[] = [];
    const s = r().stream((_k, t) => emitted.push(t));
    s.push('out', 'Compiling module one\n');
    expect(emitted.join('')).toBe('Compiling module one\n');
    s.push('out', 'Let me ');
    expect(emitted.join('')).toBe('Compiling module one\nLet me ');
    s.push('out', 'check');
    expect(emitted.join('')).toBe('Compiling module one\nLet me ');
    s.flush();
    expect(emitted.join('')).toBe('Compiling module one\nLet me check');
  });

  it('never holds more than the cap', () => {
    const emitted: string[] = [];
    const s = r().stream((_k, t) => emitted.push(t), { cap: 1000 });
    s.push('out', '-----BEGIN PRIVATE KEY-----\n');
    for (let i = 0; i < 50; i++) s.push('out', `${'A'.repeat(63)}\n`);
    expect(emitted.join('')).toContain('[redacted:private-key]');
    s.push('out', 'more key body BBBB\n-----END PRIVATE KEY-----\nvisible again\n');
    s.flush();
    expect(emitted.join('')).not.toContain('BBBB');
    expect(emitted.join('')).toContain('visible again');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Child processes do not inherit credential-named variables.

const dropped = ['AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'NPM_TOKEN', 'OPENAI_API_KEY', 'ANTHROPIC_BASE_URL', 'DB_PASSWORD', 'SESSION_COOKIE', 'GOOGLE_APPLICATION_CREDENTIALS', 'BASH_ENV', 'BASH_FUNC_ls%%', 'ENV', 'my_api_key', 'HTTP_AUTH'];
const kept = ['PATH', 'HOME', 'LANG', 'TERM', 'USER', 'SHELL', 'EDITOR', 'NODE_ENV', 'TZ'];

describe('child environment', () => {
  it.each(dropped)('drops %s', (name) => {
    expect(isDroppedEnvName(name)).toBe(true);
    expect(childEnv({ [name]: 'value-123456', PATH: '/usr/bin' })).toEqual({ PATH: '/usr/bin' });
  });
  it.each(kept)('keeps %s', (name) => {
    expect(isDroppedEnvName(name)).toBe(false);
  });
  it('keeps only absolute PATH entries', () => {
    expect(childEnv({ PATH: '.:/usr/bin::bin:/bin' }).PATH).toBe('/usr/bin:/bin');
  });
});
