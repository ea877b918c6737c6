/**
 * grep's ripgrep prefilter (grep-redacted.ts `mayChange`, `SecretRedactor.prefilter`): before the candidates are read
 * and redacted in JavaScript, ripgrep searches them for every form the redactor could change (needles, folded
 * secrets, shape triggers in any case, a PEM body's base64 run), and a file none of them matches is not read. What must
 * hold: every answer (every mode, every probe) is the same as without the prefilter, no secret's form shows, a file
 * the prefilter clears is really not read, and a secret learned from one candidate is hidden in the candidates the
 * prefilter had already cleared.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretRedactor, shapeTriggerTuning } from '../../src/main/runtime/context/redaction';
import { grepTool } from '../../src/main/tools/files/grep';
import { prefilterTuning, unchangedTuning } from '../../src/main/tools/files/grep-redacted';
import { CREDENTIALS, spellings } from '../support/credential-spellings';
import { makeContext, tempDir } from '../support/tool-context';

type GrepArgs = Parameters<typeof grepTool.execute>[0];
const DEFAULT_MIN = prefilterTuning.minFiles;
const DEFAULT_RACY = unchangedTuning.racyMs;
afterEach(() => {
  prefilterTuning.minFiles = DEFAULT_MIN;
  unchangedTuning.racyMs = DEFAULT_RACY;
});

const LONG = 'Vq7-longvault-9xKpLmN2-hiddenTail';
const SHORT = 'Zr4sW';
const WIDE = 'clé-🔑-Ünïcødé-vault-01';
const GH = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const PEM_LINE = ('MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7' + 'abcdefghijklmnop').slice(0, 64);
const b64 = (s: string) => Buffer.from(s).toString('base64');
const rev = (s: string) => [...s].reverse().join('');

/** name → content: each file holds one form of a secret (or none), with a line every probe matches. */
const FILES: Record<string, string> = {
  'plain.txt': `probe line\nvalue ${LONG} here\n`,
  'short.txt': `probe line\nshort ${SHORT} one\n`,
  'wide.txt': `probe line\nwide ${WIDE} end\n`,
  'base64.txt': `probe line\nencoded ${b64(LONG)}\n`,
  'hex.txt': `probe line\nhex ${Buffer.from(LONG).toString('hex')}\n`,
  'reversed.txt': `probe line\nrev ${rev(LONG)}\n`,
  'window.txt': `probe line\ncut ${LONG.slice(5, 19)}\n`,
  // Folded into pieces shorter than a window (12), so no exact needle is in these files.
  'folded.txt': `probe line\n  ${LONG.slice(0, 8)}\n    ${LONG.slice(8, 16)}\n\t${LONG.slice(16, 24)}\n${LONG.slice(24)}\n`,
  'folded-crlf.txt': `probe line\r\n${LONG.slice(0, 10)}\r\n  ${LONG.slice(10, 20)}\r\n${LONG.slice(20)}\r\n`,
  'folded-reversed.txt': `probe line\n${rev(LONG).slice(0, 11)}\n ${rev(LONG).slice(11, 22)}\n\n${rev(LONG).slice(22)}\n`,
  'github.txt': `probe line\ntoken ${GH}\n`,
  'github-upper-trigger.txt': `probe line\nGHP_${GH.slice(4)}\n`,
  'aws.txt': `probe line\nid AKIAIOSFODNN7EXAMPLE\n`,
  'env-upper.txt': `probe line\nDB_PASSWORD=Hq83nf02kdA9s0\n`,
  'env-mixed.txt': `probe line\nApi_KeY = "Qm4nd8s7f6g5h4j3"\n`,
  'json.txt': `probe line\n{"clientSecret": "Lk2j3h4g5f6d7s8a"}\n`,
  'pem-body.txt': `probe line\n${PEM_LINE}\n${PEM_LINE}\n${PEM_LINE.slice(0, 20)}==\n`,
  'jwt.txt': `probe line\nauth eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig\n`,
  'url.txt': `probe line\npostgres://user:Pw9sd8f7g6h5@db.example/x\n`,
  'binary.bin': `probe line\n\u0000\u0001 ${LONG} after a NUL\n`,
  'clean-1.txt': 'probe line\nnothing to hide\n',
  'clean-2.txt': 'probe line\nordinary words only\n',
  'clean-3.txt': 'probe line\nconst value = 1;\n',
};

const SECRET_FORMS = [LONG, SHORT, WIDE, b64(LONG), rev(LONG), LONG.slice(5, 19), GH, 'AKIAIOSFODNN7EXAMPLE', 'Hq83nf02kdA9s0', 'Lk2j3h4g5f6d7s8a', PEM_LINE, 'Pw9sd8f7g6h5'];

function tree(files: Record<string, string>): string {
  const root = tempDir('deskhand-grep-prefilter-');
  mkdirSync(join(root, 'sub'), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, 'sub', name), text);
  return root;
}

/** A grep over `root` with a fresh redactor; `prefilter` off means every candidate is read (no memo, so no prefilter). */
async function grep(root: string, a: GrepArgs, prefilter: boolean, redactor = newRedactor()): Promise<{ out: string; texts: string[] }> {
  const texts: string[] = [];
  const ctx = { ...makeContext(root), ...(prefilter ? { unchangedByRedaction: redactor.unchangedFiles } : {}) };
  ctx.redact = (text) => {
    texts.push(text);
    return redactor.redact(text);
  };
  return { out: (await grepTool.execute(a, ctx)).output, texts };
}

function newRedactor(): SecretRedactor {
  return new SecretRedactor({ env: {}, secrets: { VAULT: LONG, PIN: SHORT, WIDE } });
}

const PROBES: { name: string; pattern: string; i?: boolean; multiline?: boolean }[] = [
  { name: 'every line', pattern: '.' },
  { name: 'the probe line', pattern: 'probe' },
  { name: 'a prefix of the long secret', pattern: 'Vq7-lo' },
  { name: 'a folded piece', pattern: LONG.slice(8, 14) },
  { name: 'the short secret', pattern: SHORT },
  { name: 'the non-ASCII secret', pattern: 'Ünïcødé' },
  { name: 'base64 characters', pattern: '[A-Za-z0-9+/]{20}' },
  { name: 'a token prefix, any case', pattern: 'ghp_a1b2', i: true },
  { name: 'assignment values', pattern: '(PASSWORD|KeY|Secret)\\W+\\w' },
  { name: 'across lines', pattern: 'probe line\\s+\\S+', multiline: true },
];

const MODES: { name: string; extra: Partial<GrepArgs> }[] = [
  { name: 'content', extra: { output_mode: 'content' } },
  { name: 'content with context', extra: { output_mode: 'content', '-C': 1 } },
  { name: 'files_with_matches', extra: { output_mode: 'files_with_matches' } },
  { name: 'count_matches', extra: { output_mode: 'count_matches' } },
];

describe('grep prefilter: the same answers as reading every candidate', () => {
  const root = tree(FILES);
  for (const mode of MODES) {
    for (const p of PROBES) {
      it(`${mode.name}: ${p.name}`, async () => {
        prefilterTuning.minFiles = 0;
        const a: GrepArgs = { pattern: p.pattern, head_limit: 0, ...(p.i ? { '-i': true } : {}), ...(p.multiline ? { multiline: true } : {}), ...mode.extra };
        const withFilter = (await grep(root, a, true)).out;
        const without = (await grep(root, a, false)).out;
        expect(withFilter).toBe(without);
        for (const form of SECRET_FORMS) if (!p.pattern.includes(form)) expect(withFilter).not.toContain(form);
      });
    }
  }
});

describe('grep prefilter: what it clears is not read, what it could not know is', () => {
  it('a candidate none of the patterns matches never reaches the redactor; every other one does', async () => {
    prefilterTuning.minFiles = 0;
    // Without the files whose values the shapes would learn (a learned value sends the cleared files to be read too).
    const files = Object.fromEntries(Object.entries(FILES).filter(([name]) => name !== 'json.txt' && name !== 'env-mixed.txt'));
    const root = tree(files);
    const { out, texts } = await grep(root, { pattern: 'probe', output_mode: 'files_with_matches', head_limit: 0 }, true);
    // Every text file is a candidate (rg leaves the binary one out of a folder search).
    expect(out.split('\n')).toHaveLength(Object.keys(files).length - 1);
    for (const [name, text] of Object.entries(files)) {
      const read = texts.includes(text);
      if (name.startsWith('clean-')) expect(read, name).toBe(false);
      else if (!name.endsWith('.bin')) expect(read, name).toBe(true);
    }
    // Without the prefilter every candidate is read: the test can tell the two apart.
    const all = await grep(root, { pattern: 'probe', output_mode: 'files_with_matches', head_limit: 0 }, false);
    expect(all.texts.filter((t) => t.startsWith('probe line\n') && t.includes('nothing to hide'))).toHaveLength(1);
  });

  it('a value learned from one candidate is hidden in the candidates the prefilter had cleared', async () => {
    prefilterTuning.minFiles = 0;
    const learned = 'Xk9Qw2Er7Ty5Ui3Op1';
    const files: Record<string, string> = { 'assign.txt': `probe\nAPI_TOKEN=${learned}\n` };
    // Many files with the learned value reversed and no trigger: cleared by ripgrep before the value was known.
    for (let i = 0; i < 12; i++) files[`later-${i}.txt`] = `probe\nreshaped ${rev(learned)} ${i}\n`;
    const root = tree(files);
    const redactor = newRedactor();
    // One search whose candidates are all of them: the assignment is read (a trigger), the others cleared by ripgrep.
    const { out } = await grep(root, { pattern: `probe|${rev(learned).slice(0, 10)}`, output_mode: 'count_matches', head_limit: 0 }, true, redactor);
    for (let i = 0; i < 12; i++) expect(out).toContain(`sub/later-${i}.txt:1`);
    expect(out).toContain('13 matches in 13 files');
    const lines = (await grep(root, { pattern: 'reshaped', output_mode: 'content', head_limit: 0 }, true, redactor)).out;
    expect(lines).toContain('[redacted:API_TOKEN]');
    expect(lines).not.toContain(rev(learned));
  });

  it.each([
    // [case, minFiles, files the first search reads]
    ['sifted', 0, 0],
    ['too few to sift, read one by one', 1000, 12],
  ])('a value learned in a search is hidden in the files the memo vouched for before it was known (%s)', async (_, minFiles, firstReads) => {
    prefilterTuning.minFiles = minFiles;
    unchangedTuning.racyMs = 0; // the files were just written: remember them all the same
    const learned = 'Jq8Wz3Xc6Vb1Nm5Lk7';
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`later-${i}.txt`] = `reshaped ${rev(learned)} ${i}\n`;
    const root = tree(files);
    const redactor = newRedactor();
    // First search: every file is cleared (by rg, or read and found unchanged) and remembered as unchanged.
    const first = await grep(root, { pattern: 'reshaped', output_mode: 'files_with_matches', head_limit: 0 }, true, redactor);
    expect(first.out.split('\n')).toHaveLength(12);
    expect(first.texts.filter((t) => t.includes('reshaped'))).toHaveLength(firstReads);
    // Remembered: the same search again reads none of them.
    const again = await grep(root, { pattern: 'reshaped', output_mode: 'files_with_matches', head_limit: 0 }, true, redactor);
    expect(again.texts.filter((t) => t.startsWith('reshaped'))).toHaveLength(0);
    // The assignment arrives; the next search reads it (a trigger), learns the value, and must not list the
    // remembered files, whose only match is inside the reversed value.
    writeFileSync(join(root, 'sub', 'assign.txt'), `probe\nAPI_TOKEN=${learned}\n`);
    const second = await grep(root, { pattern: `probe|${rev(learned).slice(0, 10)}`, output_mode: 'files_with_matches', head_limit: 0 }, true, redactor);
    expect(second.out).toBe('sub/assign.txt');
    const lines = (await grep(root, { pattern: 'reshaped', output_mode: 'content', head_limit: 0 }, true, redactor)).out;
    expect(lines).toContain('[redacted:API_TOKEN]');
    expect(lines).not.toContain(rev(learned));
  });

  it('no prefilter when the trigger pass is off or a secret has nothing ripgrep can match in bytes', () => {
    expect(newRedactor().prefilter()).not.toBeNull();
    shapeTriggerTuning.enabled = false;
    try {
      expect(newRedactor().prefilter()).toBeNull();
    } finally {
      shapeTriggerTuning.enabled = true;
    }
    expect(new SecretRedactor({ env: {}, secrets: { S: '\ufffd\ufffd\ufffd\ufffd' } }).prefilter()).toBeNull();
  });
});

/** PEM bodies without their BEGIN line (the `private-key` shape's base64 run, which has no literal to trigger on). */
const BASE64_RUNS = [
  `${'A'.repeat(64)}\n${'A'.repeat(64)}\n`,
  `${'+/'.repeat(32)}\n${'9'.repeat(64)}\n`,
  `\t${PEM_LINE}\n  ${PEM_LINE}  \nAB==\n`,
  `12\t${PEM_LINE}\n13\t${PEM_LINE}\n14\tAB==\n`,
  `${PEM_LINE}\r\n${PEM_LINE}\r\n`,
];

/** Credentials holding one trigger word and no other (a row of the shared table may hold several). */
const ONE_TRIGGER = [
  'DB_PASS=Zm9vYmFyYmF6cXV4',
  'MYSQL_PWD=Zm9vYmFyYmF6cXV4',
  'APP_SECRET=Zm9vYmFyYmF6cXV4',
  'GH_TOKEN=Zm9vYmFyYmF6cXV4',
  'API_KEY=Zm9vYmFyYmF6cXV4',
  'CREDENTIALS=Zm9vYmFyYmF6cXV4',
  'SESSION_ID=Zm9vYmFyYmF6cXV4',
  'COOKIE=Zm9vYmFyYmF6cXV4',
  'SENTRY_DSN=Zm9vYmFyYmF6cXV4',
  'WEBHOOK_URL=Zm9vYmFyYmF6cXV4',
  'BEARER=Zm9vYmFyYmF6cXV4',
  '/cb?auth=Zm9vYmFyYmF6cXV4',
  '/cb?sig=Zm9vYmFyYmF6cXV4',
  'redis://u:Zq8wX2cVb7Nm@host',
];

describe('grep prefilter: a necessary condition of redaction changing a file', () => {
  // Every credential spelling the shapes redact (test/support/credential-spellings.ts, each row in six spellings), one
  // credential per trigger word holding no other, and PEM-body spellings, searched by a redactor with no secrets (its
  // prefilter is the shapes' triggers and the base64 run alone): each file redaction changes must reach the redactor.
  // A narrower prefilter (a trigger dropped or cut to something a spelling lacks, the base64 run left out) fails here.
  // Clean files beside them are not read unless a value learned from a file sends every cleared file to be read (so
  // the prefilter is seen at work).
  const rows = [
    ...CREDENTIALS.map((row, i) => [`credential ${i}: ${JSON.stringify(row).slice(0, 48)}`, row] as const),
    ...ONE_TRIGGER.map((row) => [`one trigger: ${row}`, row] as const),
    ...BASE64_RUNS.map((row, i) => [`base64 run ${i}`, row] as const),
  ];
  it.each(rows)('%s', async (_, row) => {
    prefilterTuning.minFiles = 0;
    const files: Record<string, string> = { 'clean-1.txt': 'probe\nconst value = 1;\n', 'clean-2.txt': 'probe\nordinary words only\n' };
    const changed: string[] = [];
    spellings(row).forEach((text, j) => {
      const body = `probe\n${text}\n`;
      files[`s${j}.txt`] = body;
      if (new SecretRedactor({ env: {} }).redact(body) !== body) changed.push(body);
    });
    expect(changed.length).toBeGreaterThan(0);
    const root = tree(files);
    const redactor = new SecretRedactor({ env: {} });
    const { texts } = await grep(root, { pattern: 'probe', output_mode: 'files_with_matches', head_limit: 0 }, true, redactor);
    for (const body of changed) expect(texts, JSON.stringify(body)).toContain(body);
    if (redactor.version === 0) for (const name of ['clean-1.txt', 'clean-2.txt']) expect(texts, name).not.toContain(files[name]);
  });
});
