// Prints one closing line over both suites ("tests: N passed, N failed, N skipped") and fails the run (exit 1) when it
// tested less than the tree holds or skipped what nobody expects:
// - a runner's results are missing (scripts/test.sh clears .test-results/ first, so a stage that never wrote is seen),
//   or the runner reported an error outside any test (a focused test under forbidOnly/allowOnly, a config error);
// - the floor, counted from the tree: every test file (test/**/*.test.ts) and every spec file (e2e/*.spec.ts, in each
//   Playwright project) must be in the results with at least one test, and no file that failed to load; so a deleted
//   or uncollected suite, a narrowed run and "0 passed" all fail;
// - any failed test;
// - a skip not listed in test/expected-skips.json, a listed skip whose condition does not hold on this machine (its
//   reason is absent, so the test should have run), a listed test that ran although its condition holds (stale).
// Reads .test-results/vitest.json and .test-results/playwright.json (what scripts/test.sh writes); `--results DIR`,
// `--skips FILE` and `--tree DIR` (where test/ and e2e/ are counted, and result paths are relative to) point elsewhere
// (test/ci/test-summary.test.ts runs it on fixtures).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i > 0 && process.argv[i + 1] ? resolve(process.argv[i + 1]) : fallback;
};
const root = arg('--tree', repo);
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
    return !electronBinary(repo).path;
  },
};

/** The test files of the tree, relative to it: what each runner must have run. */
function treeFiles() {
  const walk = (dir, match) => {
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true, recursive: true })
      .filter((d) => d.isFile() && match.test(d.name))
      .map((d) => relative(root, join(d.parentPath ?? d.path, d.name)))
      .sort();
  };
  // As vitest.config.ts and playwright.config.ts select them (e2e: testMatch '*.spec.ts' at any depth of e2e/).
  return { vitest: walk(join(root, 'test'), /\.test\.ts$/), playwright: walk(join(root, 'e2e'), /\.spec\.ts$/) };
}

/** The Playwright projects the config declares (each runs every spec file). */
function playwrightProjects() {
  const config = join(root, 'playwright.config.ts');
  if (!existsSync(config)) return [];
  return [...readFileSync(config, 'utf8').matchAll(/\{\s*name:\s*'([^']+)'/g)].map((m) => m[1]);
}

/** Every test of both runners: { runner, project, file, title, skipped }, and what was wrong outside any test. */
function collect() {
  const tests = [];
  const broken = [];
  /** Files each runner ran (vitest: file; playwright: `project file`), and the files that failed to load. */
  const ran = { vitest: new Set(), playwright: new Set() };
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const vitestFile = join(resultsDir, 'vitest.json');
  if (!existsSync(vitestFile)) broken.push(`no vitest results (${relative(root, vitestFile)}): the unit stage did not run or did not finish`);
  else {
    const v = JSON.parse(readFileSync(vitestFile, 'utf8'));
    passed += v.numPassedTests;
    failed += v.numFailedTests;
    skipped += v.numPendingTests + (v.numTodoTests ?? 0);
    for (const file of v.testResults ?? []) {
      const name = relative(root, file.name);
      if ((file.assertionResults ?? []).length) ran.vitest.add(name);
      if (file.status === 'failed' && !(file.assertionResults ?? []).some((a) => a.status === 'failed')) {
        broken.push(`vitest: ${name} failed outside its tests: ${String(file.message ?? '').split('\n')[0]}`);
      }
      for (const a of file.assertionResults ?? []) {
        tests.push({
          runner: 'vitest',
          project: null,
          file: relative(root, file.name),
          title: [...(a.ancestorTitles ?? []), a.title].join(' > '),
          skipped: ['skipped', 'pending', 'todo'].includes(a.status),
          failed: a.status === 'failed',
          message: String((a.failureMessages ?? [])[0] ?? '').split('\n')[0],
        });
      }
    }
  }
  const playwrightFile = join(resultsDir, 'playwright.json');
  if (!existsSync(playwrightFile)) broken.push(`no Playwright results (${relative(root, playwrightFile)}): the e2e stage did not run or did not finish`);
  else {
    const p = JSON.parse(readFileSync(playwrightFile, 'utf8'));
    passed += p.stats.expected;
    failed += p.stats.unexpected + (p.stats.flaky ?? 0);
    skipped += p.stats.skipped;
    // Errors outside any test: a focused test under forbidOnly, a spec that does not load, a global setup that threw.
    for (const e of p.errors ?? []) broken.push(`playwright: ${String(e.message ?? e.value ?? JSON.stringify(e)).split('\n')[0]}`);
    const walk = (suite, titles) => {
      for (const spec of suite.specs ?? []) {
        const file = join('e2e', spec.file);
        for (const t of spec.tests ?? []) {
          ran.playwright.add(`${t.projectName} ${file}`);
          const last = (t.results ?? []).at(-1);
          tests.push({
            runner: 'playwright',
            project: t.projectName,
            file,
            title: [...titles, spec.title].join(' > '),
            skipped: t.status === 'skipped',
            failed: t.status === 'unexpected' || t.status === 'flaky',
            message: String(last?.error?.message ?? '').split('\n')[0],
          });
        }
      }
      for (const s of suite.suites ?? []) walk(s, [...titles, s.title]);
    };
    // The top suites are the files (their title is the file name, not a describe).
    for (const fileSuite of p.suites ?? []) walk(fileSuite, []);
  }
  return { tests, broken, ran, passed, failed, skipped };
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

const { tests, broken, ran, passed, failed, skipped } = collect();
const problems = [];
const tree = treeFiles();
const projects = playwrightProjects();
const missing = [
  ...tree.vitest.filter((f) => !ran.vitest.has(f)).map((f) => `vitest ${f}`),
  ...projects.flatMap((project) => tree.playwright.filter((f) => !ran.playwright.has(`${project} ${f}`)).map((f) => `playwright [${project}] ${f}`)),
];
if (tree.vitest.length === 0) broken.push(`no test files under ${relative(repo, join(root, 'test')) || '.'}/: nothing to count the floor from`);
if (tree.playwright.length === 0 || projects.length === 0) broken.push('no e2e spec files or no Playwright project (playwright.config.ts missing?): nothing to count the floor from');
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

// The failed tests by name, last, where a log that keeps only its tail still shows them.
const failures = tests.filter((t) => t.failed);
if (failures.length) {
  console.log(`failed: ${failures.length} test${failures.length === 1 ? '' : 's'}`);
  for (const t of failures) {
    const msg = t.message.replace(/\x1b\[[0-9;]*m/g, '').slice(0, 200);
    console.log(`  ${t.runner}${t.project ? ` [${t.project}]` : ''} ${t.file} › ${t.title}${msg ? ` — ${msg}` : ''}`);
  }
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (broken.length) {
  console.log(`runs: ${broken.length} problem${broken.length === 1 ? '' : 's'} outside any test`);
  for (const b of broken) console.log(`  ${b}`);
  process.exitCode = 1;
}
if (missing.length) {
  console.log(`floor: ${missing.length} test file${missing.length === 1 ? '' : 's'} of the tree not in the results (each must run at least one test):`);
  for (const m of missing) console.log(`  ${m}`);
  process.exitCode = 1;
} else if (!broken.length) {
  console.log(`floor: all ${tree.vitest.length} test files and ${tree.playwright.length} spec files × ${projects.length} projects ran`);
}
if (failed > 0) process.exitCode = 1;
if (problems.length) {
  console.log(`skips: ${problems.length} against test/expected-skips.json`);
  for (const p of problems) console.log(`  ${p}`);
  process.exitCode = 1;
} else if (tests.length) {
  console.log(`skips: every skip is expected (${tests.filter((t) => t.skipped).length}, each listed with its reason)`);
}
