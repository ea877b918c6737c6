// Prints one closing line over both suites ("tests: N passed, N failed, N skipped") and holds every skip to
// test/expected-skips.json: it exits 1 on a skip not listed there, on a listed skip whose condition does not hold on
// this machine (its reason is absent, so the test should have run), and on a listed test that ran although its
// condition holds (the list is stale). Reads .test-results/vitest.json and .test-results/playwright.json (what
// scripts/test.sh writes); `--results DIR` and `--skips FILE` point elsewhere (test/lint/test-summary.test.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? resolve(process.argv[i + 1]) : fallback;
};
const resultsDir = arg('--results', join(root, '.test-results'));
const skipsFile = arg('--skips', join(root, 'test', 'expected-skips.json'));

/** Each condition an expected skip may name, as this machine answers it now. */
const conditions = {
  always: async () => true,
  'platform-not-darwin': async () => process.platform !== 'darwin',
  'platform-not-linux': async () => process.platform !== 'linux',
  'not-root': async () => process.getuid?.() !== 0,
  'uid-65534-busy': async () => {
    try {
      return execFileSync('ps', ['-u', '65534', '-o', 'pid='], { encoding: 'utf8' }).trim() !== '';
    } catch {
      return false; // ps exits 1 when it lists nothing
    }
  },
  'no-second-device': async () => !(existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(tmpdir()).dev),
  'keyring-answers': async () => {
    try {
      const keytar = (await import('keytar')).default;
      await keytar.findCredentials(`Deskhand-skip-check-${process.pid}`);
      return true;
    } catch {
      return false;
    }
  },
  'electron-cannot-start': async () => {
    const { electronBinary } = await import('./electron-native.mjs');
    return !electronBinary(root).path;
  },
};

/** Every test of both runners: { runner, project, file, title, skipped }. */
function collect() {
  const tests = [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const vitestFile = join(resultsDir, 'vitest.json');
  if (existsSync(vitestFile)) {
    const v = JSON.parse(readFileSync(vitestFile, 'utf8'));
    passed += v.numPassedTests;
    failed += v.numFailedTests;
    skipped += v.numPendingTests + (v.numTodoTests ?? 0);
    for (const file of v.testResults ?? []) {
      for (const a of file.assertionResults ?? []) {
        tests.push({
          runner: 'vitest',
          project: null,
          file: relative(root, file.name),
          title: [...(a.ancestorTitles ?? []), a.title].join(' > '),
          skipped: ['skipped', 'pending', 'todo'].includes(a.status),
        });
      }
    }
  }
  const playwrightFile = join(resultsDir, 'playwright.json');
  if (existsSync(playwrightFile)) {
    const p = JSON.parse(readFileSync(playwrightFile, 'utf8'));
    passed += p.stats.expected;
    failed += p.stats.unexpected + (p.stats.flaky ?? 0);
    skipped += p.stats.skipped;
    const walk = (suite, titles) => {
      for (const spec of suite.specs ?? []) {
        for (const t of spec.tests ?? []) {
          tests.push({ runner: 'playwright', project: t.projectName, file: join('e2e', spec.file), title: [...titles, spec.title].join(' > '), skipped: t.status === 'skipped' });
        }
      }
      for (const s of suite.suites ?? []) walk(s, [...titles, s.title]);
    };
    // The top suites are the files (their title is the file name, not a describe).
    for (const fileSuite of p.suites ?? []) walk(fileSuite, []);
  }
  return { tests, passed, failed, skipped };
}

const matches = (pattern, value) => pattern === '*' || pattern === value || (pattern.startsWith('*') && value.endsWith(pattern.slice(1)));

function entryMatches(e, t) {
  return e.runner === t.runner && (e.project === undefined || e.project === t.project) && matches(e.file, t.file) && matches(e.title, t.title);
}

const { skips } = JSON.parse(readFileSync(skipsFile, 'utf8'));
for (const e of skips) {
  for (const c of e.when) if (!conditions[c]) throw new Error(`${skipsFile}: unknown condition "${c}" (known: ${Object.keys(conditions).join(', ')})`);
}
const holds = new Map();
for (const c of Object.keys(conditions)) holds.set(c, await conditions[c]());
const expectedNow = (e) => e.when.some((c) => holds.get(c));

const { tests, passed, failed, skipped } = collect();
const problems = [];
for (const t of tests) {
  const listed = skips.filter((e) => entryMatches(e, t));
  const id = `${t.runner}${t.project ? ` [${t.project}]` : ''} ${t.file} › ${t.title}`;
  if (t.skipped) {
    if (listed.length === 0) problems.push(`skipped, not in test/expected-skips.json: ${id}`);
    else if (!listed.some(expectedNow)) problems.push(`skipped, but its reason is absent here (${listed.map((e) => e.when.join(' or ')).join('; ')} does not hold): ${id}`);
  } else if (listed.some(expectedNow)) {
    problems.push(`ran, although test/expected-skips.json expects it skipped here (${listed.filter(expectedNow).map((e) => e.reason).join('; ')}): ${id}`);
  }
}

console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (problems.length) {
  console.log(`skips: ${problems.length} against test/expected-skips.json`);
  for (const p of problems) console.log(`  ${p}`);
  process.exitCode = 1;
} else if (tests.length) {
  console.log(`skips: every skip is expected (${tests.filter((t) => t.skipped).length}, each listed with its reason)`);
}
