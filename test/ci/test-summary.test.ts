/**
 * The guards of scripts/test.sh that keep a run from going green while testing less than the tree holds: the closing
 * summary (scripts/test-summary.mjs) on fixture result files, both runners refusing a focused test under the repo's
 * own configs, and a stage that hangs stopped at its limit (scripts/stage.sh).
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/tool-context';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** A tree with two test files and one spec file, the Playwright projects of the repo's config, and no listed skips. */
function fixtureTree(): string {
  const tree = tempDir('deskhand-summary-tree-');
  mkdirSync(join(tree, 'test', 'deep'), { recursive: true });
  mkdirSync(join(tree, 'e2e'));
  writeFileSync(join(tree, 'test', 'a.test.ts'), '');
  writeFileSync(join(tree, 'test', 'deep', 'b.test.ts'), '');
  writeFileSync(join(tree, 'e2e', 'x.spec.ts'), '');
  writeFileSync(join(tree, 'playwright.config.ts'), "export default { projects: [{ name: 'web' }, { name: 'electron' }] };\n");
  writeFileSync(join(tree, 'test', 'expected-skips.json'), JSON.stringify({ skips: [] }));
  return tree;
}

interface VitestFile {
  name: string;
  status: 'passed' | 'failed';
  message?: string;
  assertionResults: { title: string; ancestorTitles: string[]; status: string }[];
}

function vitestResults(tree: string, files: VitestFile[]): object {
  const all = files.flatMap((f) => f.assertionResults);
  const count = (s: string) => all.filter((a) => a.status === s).length;
  return {
    numPassedTests: count('passed'),
    numFailedTests: count('failed'),
    numPendingTests: count('skipped'),
    numTodoTests: 0,
    testResults: files.map((f) => ({ ...f, name: join(tree, f.name) })),
  };
}

const passing = (name: string, titles = ['works']): VitestFile => ({
  name,
  status: 'passed',
  assertionResults: titles.map((title) => ({ title, ancestorTitles: [], status: 'passed' })),
});

function playwrightResults(projects: string[], opts: { errors?: object[]; specs?: string[] } = {}): object {
  const specs = opts.specs ?? ['x.spec.ts'];
  return {
    stats: { expected: specs.length * projects.length, unexpected: 0, flaky: 0, skipped: 0 },
    errors: opts.errors ?? [],
    suites: specs.map((file) => ({ title: file, file, specs: [{ title: 'shows it', file, tests: projects.map((projectName) => ({ projectName, status: 'expected' })) }] })),
  };
}

/** Writes the result files (null: that runner wrote none) and runs the summary over the fixture tree. */
async function summary(tree: string, vitest: object | null, playwright: object | null): Promise<{ code: number; out: string }> {
  const results = join(tree, '.test-results');
  rmSync(results, { recursive: true, force: true });
  mkdirSync(results);
  if (vitest) writeFileSync(join(results, 'vitest.json'), JSON.stringify(vitest));
  if (playwright) writeFileSync(join(results, 'playwright.json'), JSON.stringify(playwright));
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'test-summary.mjs'), '--tree', tree], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

const complete = (tree: string) => vitestResults(tree, [passing('test/a.test.ts'), passing('test/deep/b.test.ts')]);

describe('the closing summary', () => {
  it('passes a run where every file of the tree ran (the control)', async () => {
    const tree = fixtureTree();
    const r = await summary(tree, complete(tree), playwrightResults(['web', 'electron']));
    expect(r.out).toContain('floor: all 2 test files and 1 spec files × 2 projects ran');
    expect(r.code, r.out).toBe(0);
  });

  it('fails when a suite of the tree is not in the results (deleted from the run, not collected, narrowed)', async () => {
    const tree = fixtureTree();
    const r = await summary(tree, vitestResults(tree, [passing('test/a.test.ts')]), playwrightResults(['web', 'electron']));
    expect(r.out).toMatch(/floor: 1 test file of the tree not in the results[\s\S]*vitest test\/deep\/b\.test\.ts/);
    expect(r.code).toBe(1);
  });

  it('fails on "0 passed": a runner that ran nothing', async () => {
    const tree = fixtureTree();
    const r = await summary(tree, vitestResults(tree, []), playwrightResults(['web', 'electron'], { specs: [] }));
    expect(r.out).toContain('tests: 0 passed, 0 failed, 0 skipped');
    expect(r.out).toMatch(/floor: 4 test files of the tree not in the results/);
    expect(r.code).toBe(1);
  });

  it('fails when a Playwright project ran no spec, or a spec file is missing from one project', async () => {
    const tree = fixtureTree();
    const r = await summary(tree, complete(tree), playwrightResults(['web']));
    expect(r.out).toContain('playwright [electron] e2e/x.spec.ts');
    expect(r.code).toBe(1);
  });

  it.each([
    ['vitest', 'no vitest results'],
    ['playwright', 'no Playwright results'],
  ])('fails when the %s results are missing (a stage that did not run or did not finish)', async (missing, says) => {
    const tree = fixtureTree();
    const r = await summary(tree, missing === 'vitest' ? null : complete(tree), missing === 'playwright' ? null : playwrightResults(['web', 'electron']));
    expect(r.out).toContain(says);
    expect(r.code).toBe(1);
  });

  it('fails on an error outside any test: a focused test under forbidOnly, a file that does not load', async () => {
    const tree = fixtureTree();
    const forbidden = playwrightResults(['web', 'electron'], { errors: [{ message: 'Error: item focused with \'.only\' is not allowed due to the \'forbidOnly\' option in \'playwright.config.ts\'' }] });
    const a = await summary(tree, complete(tree), forbidden);
    expect(a.out).toMatch(/runs: 1 problem outside any test\n {2}playwright: Error: item focused with '\.only'/);
    expect(a.code).toBe(1);
    const unloadable = vitestResults(tree, [passing('test/a.test.ts'), { name: 'test/deep/b.test.ts', status: 'failed', message: 'Unexpected .only modifier.', assertionResults: [] }]);
    const b = await summary(tree, unloadable, playwrightResults(['web', 'electron']));
    expect(b.out).toContain('vitest: test/deep/b.test.ts failed outside its tests: Unexpected .only modifier.');
    expect(b.code).toBe(1);
  });

  it('fails when the tree has no Playwright config to count projects from', async () => {
    const tree = fixtureTree();
    rmSync(join(tree, 'playwright.config.ts'));
    const r = await summary(tree, complete(tree), playwrightResults(['web', 'electron']));
    expect(r.out).toContain('playwright.config.ts missing?');
    expect(r.code).toBe(1);
  });

  it('fails on a test narrowed by a focus the runner let through (its neighbours skipped, listed nowhere)', async () => {
    const tree = fixtureTree();
    const narrowed = vitestResults(tree, [
      { name: 'test/a.test.ts', status: 'passed', assertionResults: [{ title: 'focused', ancestorTitles: [], status: 'passed' }, { title: 'neighbour', ancestorTitles: [], status: 'skipped' }] },
      passing('test/deep/b.test.ts'),
    ]);
    const r = await summary(tree, narrowed, playwrightResults(['web', 'electron']));
    expect(r.out).toContain('skipped, not in test/expected-skips.json: vitest test/a.test.ts › neighbour');
    expect(r.code).toBe(1);
  });
});

describe('focused tests under the repo configs', () => {
  /** A folder outside the tree with the repo's node_modules, so a config there can import the repo's. */
  function outside(): string {
    const dir = tempDir('deskhand-focus-');
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    return dir;
  }

  it('vitest (allowOnly: false) fails a file with it.only instead of running only it', async () => {
    const dir = outside();
    writeFileSync(
      join(dir, 'vitest.config.ts'),
      `import base from ${JSON.stringify(join(ROOT, 'vitest.config.ts'))};\n` +
        'const { projects: _projects, setupFiles: _setup, ...test } = base.test;\n' +
        "export default { ...base, test: { ...test, include: ['*.test.ts'] } };\n",
    );
    writeFileSync(join(dir, 'focus.test.ts'), "import { it } from 'vitest';\nit.only('focused', () => {});\nit('neighbour', () => {});\n");
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', join(dir, 'vitest.config.ts'), '--root', dir], { encoding: 'utf8', timeout: 90_000, env: { ...process.env, CI: '' } });
    expect(r.stdout + r.stderr).toMatch(/Unexpected \.only modifier/);
    expect(r.status).not.toBe(0);
  }, 120_000);

  it('Playwright (forbidOnly: true, whatever CI says) refuses a spec with test.only', async () => {
    const dir = outside();
    writeFileSync(
      join(dir, 'playwright.config.ts'),
      `import base from ${JSON.stringify(join(ROOT, 'playwright.config.ts'))};\n` + "export default { ...base, testDir: '.', globalSetup: undefined, projects: [{ name: 'web' }] };\n",
    );
    writeFileSync(join(dir, 'focus.spec.ts'), "import { test } from '@playwright/test';\ntest.only('focused', () => {});\ntest('neighbour', () => {});\n");
    const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--list', '--config', join(dir, 'playwright.config.ts')], { encoding: 'utf8', timeout: 90_000, cwd: dir, env: { ...process.env, CI: '' } });
    expect(r.stdout + r.stderr).toMatch(/forbidOnly|forbid-only/);
    expect(r.status).not.toBe(0);
  }, 120_000);
});

describe('a stage under its wall-clock limit (scripts/stage.sh)', () => {
  it('stops a hanging stage with everything it started, and fails naming the stage and its limit', async () => {
    const dir = tempDir('deskhand-stage-');
    const pidFile = join(dir, 'child.pid');
    // The stage starts a child that would outlive a plain kill of the stage's own process.
    const r = await run('bash', [join(ROOT, 'scripts', 'stage.sh'), 'hang-fixture', '1s', 'bash', '-c', `sleep 300 & echo $! > ${pidFile}; wait`], { env: { ...process.env, STAGE_KILL_AFTER: '2s' } }).then(
      () => ({ code: 0, stderr: '' }),
      (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
    );
    expect(r.code).toBe(124);
    expect(r.stderr).toContain('stage "hang-fixture" was stopped at its limit of 1s');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    // The child got the signal with its group; wait until it is gone (it is not waited on by anyone we know).
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      try {
        process.kill(pid, 0);
        await new Promise((res) => setTimeout(res, 50));
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  });

  it('passes a stage that ends in time through with its own exit code (the control)', async () => {
    const r = await run('bash', [join(ROOT, 'scripts', 'stage.sh'), 'quick-fixture', '60s', 'bash', '-c', 'exit 3']).catch((err: { code: number }) => err);
    expect((r as { code?: number }).code).toBe(3);
  });
});
