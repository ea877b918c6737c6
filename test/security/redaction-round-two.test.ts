/**
 * Redaction, round two (issue 9): credential assignments wherever they stand on a line (after read_file's line
 * numbers, grep's `path:line:` prefixes, indentation, `export`, inside connection strings), PEM blocks and JWTs split
 * across lines, secrets reshaped by rev / cut / fold / jq, and redaction before the tools cut long lines. Ordinary
 * variables stay readable.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { grepTool } from '../../src/main/tools/files/grep';
import { readFileTool } from '../../src/main/tools/files/read-file';
import { OUTPUT_CAP_BYTES } from '../../src/main/services/processes/command-process';
import { taskFixture } from '../support/tasks';
import { makeContext, tempDir } from '../support/tool-context';

const VALUE = 'Zq8vK2mP9xR4tW7nB3cY6hJ1';
const redactor = () => new SecretRedactor({ env: {} });

const leaks: [what: string, text: string, secret: string][] = [
  ['.env line', `API_TOKEN=${VALUE}`, VALUE],
  ['export', `export GITHUB_TOKEN=${VALUE}`, VALUE],
  ['indented export', `    export DB_PASSWORD="${VALUE}"`, VALUE],
  ['after read_file line numbers', `    12\tAPI_TOKEN=${VALUE}`, VALUE],
  ['after read_file line numbers, YAML', `     7\t  api_key: ${VALUE}`, VALUE],
  ['after read_file line numbers, quoted YAML', `     7\t  password: "${VALUE}"`, VALUE],
  ['grep match prefix', `services/api/.env:3:DB_PASSWORD=${VALUE}`, VALUE],
  ['grep context prefix', `services/api/.env-4-SECRET_KEY=${VALUE}`, VALUE],
  ['grep prefix, YAML', `deploy/values.yml:12:    client_secret: ${VALUE}`, VALUE],
  ['after a shell prompt and a pipe', `ok | SESSION_TOKEN=${VALUE} ./run`, VALUE],
  ['TOML', `secret_key = "${VALUE}"`, VALUE],
  ['JSON', `{"clientSecret": "${VALUE}"}`, VALUE],
  ['ADO.NET connection string', `Server=db;User Id=sa;Password=${VALUE};Database=x`, VALUE],
  ['libpq connection string', `host=db user=app password=${VALUE} dbname=x`, VALUE],
  ['URL with a password', `postgres://app:${VALUE}@db.example.com:5432/x`, VALUE],
  ['mongodb+srv URL', `mongodb+srv://user:${VALUE}@cluster0.example.net/db`, VALUE],
  ['docker env flag', `docker run -e AWS_SECRET_ACCESS_KEY=${VALUE} image`, VALUE],
  ['CLI flag', `tool --password=${VALUE}`, VALUE],
];

const pemBody = Array.from({ length: 6 }, (_, i) => `MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC${String(i).repeat(13)}`.slice(0, 64)).join('\n');
const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

describe('redaction: credential assignments wherever they stand', () => {
  it.each(leaks)('%s', (_what, text, secret) => {
    const out = redactor().redact(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted:');
  });

  it('leaves ordinary variables alone', () => {
    const text = 'PWD=/home/me/project\nPORT=8080\nHOME=/home/me\nNODE_ENV=production\nMAX_TOKENS=4096\n     3\tHOSTNAME=build-box-01\nsrc/a.ts:4:const port = 3000;';
    expect(redactor().redact(text)).toBe(text);
  });
});

describe('redaction: blocks split across lines', () => {
  // Each asserts the placeholder and the text around it, not only that the secret is gone: a redactor that blanked
  // everything would pass an absence check.
  it('a PEM block with read_file line numbers, begin to end', () => {
    const numbered = ['before', '-----BEGIN RSA PRIVATE KEY-----', ...pemBody.split('\n'), '-----END RSA PRIVATE KEY-----', 'after'].map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join('\n');
    // The key (lines 2–9) becomes one placeholder on its first line's number; the lines around it keep theirs.
    expect(redactor().redact(numbered)).toBe('     1\tbefore\n     2\t[redacted:private-key]\n    10\tafter');
  });

  it('a PEM body whose BEGIN line is not in the text (a read that starts mid-key)', () => {
    for (const text of [pemBody, pemBody.split('\n').map((l, i) => `${String(i + 40).padStart(6)}\t${l}`).join('\n')]) {
      const out = redactor().redact(`${text}\n-----END PRIVATE KEY-----\n    47\tafter`);
      expect(out).not.toContain('MIIEvQIBADAN');
      expect(out).toBe('[redacted:private-key]-----END PRIVATE KEY-----\n    47\tafter');
    }
  });

  it('a JWT folded over lines', () => {
    for (const width of [20, 40, 64]) {
      const folded = jwt.match(new RegExp(`.{1,${width}}`, 'g'))!.join('\n');
      // The whole token, its last (short) line included, becomes one placeholder; the lines around it stay.
      expect(redactor().redact(`token:\n${folded}\nnext line`), `fold -w ${width}`).toBe('token:\n[redacted:jwt]\nnext line');
    }
  });
});

describe('redaction: known secrets reshaped', () => {
  const r = () => new SecretRedactor({ env: { DEPLOY_TOKEN: VALUE } });
  const reshaped: [string, string][] = [
    ['rev', [...VALUE].reverse().join('')],
    ['cut -c1-14', VALUE.slice(0, 14)],
    ['cut -c6-24', VALUE.slice(5)],
    ['fold -w 8', VALUE.match(/.{1,8}/g)!.join('\n')],
    ['fold -w 5 with indentation', VALUE.match(/.{1,5}/g)!.join('\n   ')],
    ['jq -r of a JSON string', JSON.stringify(VALUE)],
    ['rev | fold -w 6', [...VALUE].reverse().join('').match(/.{1,6}/g)!.join('\n')],
  ];
  it.each(reshaped)('%s', (_how, text) => {
    const out = r().redact(`before\n${text}\nafter`);
    for (const piece of VALUE.match(/.{12}/g)!) expect(out).not.toContain(piece);
    expect(out).toContain('[redacted:DEPLOY_TOKEN]');
    expect(out).toMatch(/^before\n[\s\S]*\nafter$/);
  });

  it('learns a high-entropy value from a credential-named assignment, and catches it reshaped later', () => {
    const red = redactor();
    expect(red.redact(`SERVICE_API_KEY=${VALUE}`)).toBe('SERVICE_API_KEY=[redacted:SERVICE_API_KEY]');
    const later = red.redact(`reversed: ${[...VALUE].reverse().join('')}\ncut: ${VALUE.slice(3, 20)}`);
    expect(later).not.toContain(VALUE.slice(3, 15));
    expect(later).not.toContain([...VALUE].reverse().join('').slice(0, 12));
    // A low-entropy value is not learned (it would redact ordinary words).
    const plain = redactor();
    plain.redact('PASSWORD=aaaaaaaaaaaaaaaaaaaa');
    expect(plain.redact('aaaaaaaaaaaaaaaaaaaa')).toBe('aaaaaaaaaaaaaaaaaaaa');
  });
});

describe('redaction before the tools cut long lines', () => {
  const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`;

  it('read_file: a token straddling the 2000-character cut is not shown in part', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'wide.txt'), `${'x'.repeat(1990)} ${token} tail\n`);
    const ctx = { ...makeContext(dir), redact: (t: string) => new SecretRedactor({ env: {} }).redact(t) };
    const out = (await readFileTool.execute(readFileTool.params.parse({ path: 'wide.txt' }), ctx)).output;
    // Redacted whole first, then cut: the cut may fall inside the placeholder, never inside the token.
    expect(out).not.toMatch(/ghp_|A1b2C3/);
    expect(out).toMatch(/ \[red/);
    // Without redaction first the cut shows part of the token, which the runtime's later redaction would not recognise.
    const bare = (await readFileTool.execute(readFileTool.params.parse({ path: 'wide.txt' }), { ...makeContext(dir), redact: (t: string) => t })).output;
    expect(bare).toMatch(/ghp_A1b2/);
    expect(new SecretRedactor({ env: {} }).redact(bare)).toMatch(/ghp_A1b2/);
  });

  it('grep: a token straddling the 500-column cut is not shown in part', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'wide.txt'), `needle ${'y'.repeat(470)} ${token} tail\n`);
    const ctx = { ...makeContext(dir), redact: (t: string) => new SecretRedactor({ env: {} }).redact(t) };
    const out = (await grepTool.execute(grepTool.params.parse({ pattern: 'needle', output_mode: 'content' }), ctx)).output;
    expect(out).not.toMatch(/ghp_|A1b2C3/);
    const bare = (await grepTool.execute(grepTool.params.parse({ pattern: 'needle', output_mode: 'content' }), { ...makeContext(dir), redact: (t: string) => t })).output;
    expect(bare).toMatch(/ghp_A1/);
    expect(out).toContain('omitted end of long line');
  });
});

describe('redaction before command output is cut', () => {
  it('a token straddling the head/tail seam of huge output is dropped, not shown in part', async () => {
    const f = taskFixture();
    try {
      const token = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
      // The head keeps OUTPUT_CAP_BYTES / 2 bytes: the token starts 12 bytes before that, so the head ends inside it.
      const before = OUTPUT_CAP_BYTES / 2 - 12;
      const command = `head -c ${before} /dev/zero | tr '\\0' x; printf '${token}\\n'; yes | head -c 300000`;
      const out = (await f.tools.executeCommand.execute(f.tools.executeCommand.params.parse({ command }), f.ctx())).output;
      expect(out).toContain('bytes omitted');
      expect(out).not.toContain('ghp_A1b2');
      // What stood around the token is still there: the x's of the head and the y lines of the tail.
      expect(out).toMatch(/x{1000}/);
      expect(out).toMatch(/(?:y\n){1000}/);
      expect(new SecretRedactor({ env: {} }).redact(out)).not.toContain('ghp_');
    } finally {
      await f.close();
    }
  });
});
