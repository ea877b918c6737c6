/**
 * scripts/test-summary.mjs holds every skip to an expected-skips list: run on made-up results, it exits 0 only when
 * each skip is listed with a condition that holds here, and names the test otherwise (a skip not listed; a listed
 * skip whose reason is absent; a listed test that ran although its condition holds).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tool-context';

const ROOT = resolve(__dirname, '../..');

type Status = 'passed' | 'skipped';
/**
 * Runs the summary on made-up results over a tree of its own (`--tree`): the summary also holds the run to a floor
 * counted from the tree (test/ci/test-summary.test.ts), so the tree holds exactly the files the results name — a
 * passing file of its own when none is given, and one spec passing in both projects unless `playwright` is given.
 */
function summary(tests: { file: string; titles: string[]; status: Status }[], skips: unknown[], playwright?: unknown): { code: number | null; out: string } {
  const dir = tempDir('deskhand-summary-');
  const tree = join(dir, 'tree');
  const results = join(dir, 'results');
  mkdirSync(results);
  const all = tests.length ? tests : [{ file: 'test/z.test.ts', titles: ['works'], status: 'passed' as Status }];
  const byFile = new Map<string, { name: string; assertionResults: unknown[] }>();
  for (const t of all) {
    const entry = byFile.get(t.file) ?? { name: join(tree, t.file), assertionResults: [] };
    entry.assertionResults.push({ ancestorTitles: t.titles.slice(0, -1), title: t.titles.at(-1), status: t.status });
    byFile.set(t.file, entry);
    mkdirSync(dirname(join(tree, t.file)), { recursive: true });
    writeFileSync(join(tree, t.file), '');
  }
  mkdirSync(join(tree, 'e2e'), { recursive: true });
  writeFileSync(join(tree, 'e2e', 'x.spec.ts'), '');
  writeFileSync(join(tree, 'playwright.config.ts'), "export default { projects: [{ name: 'web' }, { name: 'electron' }] };\n");
  const count = (s: Status) => all.filter((t) => t.status === s).length;
  writeFileSync(join(results, 'vitest.json'), JSON.stringify({ numPassedTests: count('passed'), numFailedTests: 0, numPendingTests: count('skipped'), numTodoTests: 0, testResults: [...byFile.values()] }));
  const specRan = {
    stats: { expected: 2, unexpected: 0, flaky: 0, skipped: 0 },
    suites: [{ title: 'x.spec.ts', file: 'x.spec.ts', specs: [{ title: 'shows it', file: 'x.spec.ts', tests: [{ projectName: 'web', status: 'expected' }, { projectName: 'electron', status: 'expected' }] }] }],
  };
  writeFileSync(join(results, 'playwright.json'), JSON.stringify(playwright ?? specRan));
  writeFileSync(join(dir, 'skips.json'), JSON.stringify({ skips }));
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/test-summary.mjs'), '--tree', tree, '--results', results, '--skips', join(dir, 'skips.json')], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

const mac = { runner: 'vitest', file: 'test/a.test.ts', title: 'macOS > runs sandbox-exec', reason: 'macOS only', when: ['platform-not-darwin'] };
const linuxOnly = { runner: 'vitest', file: 'test/a.test.ts', title: 'linux > runs bwrap', reason: 'Linux only', when: ['platform-not-linux'] };

describe('the test summary against test/expected-skips.json', () => {
  it('passes when every skip is listed and its condition holds', () => {
    const r = summary([{ file: 'test/a.test.ts', titles: ['macOS', 'runs sandbox-exec'], status: 'skipped' }, { file: 'test/a.test.ts', titles: ['linux', 'runs bwrap'], status: 'passed' }], [mac, linuxOnly]);
    expect(r.out).toContain('tests: 3 passed, 0 failed, 1 skipped');
    expect(r.out).toContain('every skip is expected (1');
    expect(r.code).toBe(0);
  });

  it('fails on a skip nobody listed, naming it', () => {
    const r = summary([{ file: 'test/b.test.ts', titles: ['quietly', 'skipped here'], status: 'skipped' }], [mac]);
    expect(r.out).toContain('skipped, not in test/expected-skips.json: vitest test/b.test.ts › quietly > skipped here');
    expect(r.code).toBe(1);
  });

  it('fails on a listed skip whose reason is absent on this machine', () => {
    const r = summary([{ file: 'test/a.test.ts', titles: ['linux', 'runs bwrap'], status: 'skipped' }], [mac, linuxOnly]);
    expect(r.out).toMatch(/skipped, but its reason is absent here \(platform-not-linux does not hold\): vitest test\/a\.test\.ts › linux > runs bwrap/);
    expect(r.code).toBe(1);
  });

  it('fails on a listed test that ran although its condition holds (the list is stale)', () => {
    const r = summary([{ file: 'test/a.test.ts', titles: ['macOS', 'runs sandbox-exec'], status: 'passed' }], [mac]);
    expect(r.out).toContain('ran, although test/expected-skips.json expects it skipped here (macOS only): vitest test/a.test.ts › macOS > runs sandbox-exec');
    expect(r.code).toBe(1);
  });

  it('reads Playwright projects and wildcards, and refuses an unknown condition', () => {
    const playwright = {
      stats: { expected: 1, unexpected: 0, flaky: 0, skipped: 1 },
      suites: [{ title: 'x.spec.ts', file: 'x.spec.ts', specs: [{ title: 'does it', file: 'x.spec.ts', tests: [{ projectName: 'electron', status: 'skipped' }, { projectName: 'web', status: 'expected' }] }] }],
    };
    const electron = { runner: 'playwright', project: 'electron', file: '*', title: '*', reason: 'by design', when: ['always'] };
    expect(summary([], [electron], playwright).code).toBe(0);
    const web = summary([], [{ ...electron, project: 'web' }], playwright);
    expect(web.out).toContain('skipped, not in test/expected-skips.json: playwright [electron] e2e/x.spec.ts › does it');
    expect(web.out).toContain('ran, although');
    expect(web.code).toBe(1);
    const unknown = summary([], [{ ...mac, when: ['tuesday'] }]);
    expect(unknown.out).toContain('unknown condition "tuesday"');
    expect(unknown.code).not.toBe(0);
  });

  it('the repository list names only known conditions and real test files', () => {
    const { skips } = JSON.parse(readFileSync(join(ROOT, 'test/expected-skips.json'), 'utf8')) as { skips: { file: string; reason: string; when: string[] }[] };
    for (const s of skips) {
      if (s.file !== '*') expect(existsSync(join(ROOT, s.file)), s.file).toBe(true);
      expect(s.reason.length).toBeGreaterThan(10);
      expect(s.when.length).toBeGreaterThan(0);
    }
    // Electron cannot start here: the repository's list expects each of its tests skipped.
    const electronSkipped = {
      stats: { expected: 1, unexpected: 0, flaky: 0, skipped: 1 },
      suites: [{ title: 'x.spec.ts', file: 'x.spec.ts', specs: [{ title: 'shows it', file: 'x.spec.ts', tests: [{ projectName: 'web', status: 'expected' }, { projectName: 'electron', status: 'skipped' }] }] }],
    };
    expect(summary([], skips, electronSkipped).code).toBe(0);
  });
});
