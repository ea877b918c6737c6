/**
 * The CLI's compile cache (src/main/host/cli/compile-cache.ts): `deskhand` runs the CommonJS build, whose modules a
 * second run compiles from the code V8 made in the first. Proven by the cache's own files and by what the process
 * reports under NODE_DEBUG (the count of modules V8 accepted from the cache), and that what a run prints is the same
 * with and without it. The timing is bench/schedule.bench.ts's (`run_to_request_ms`), not this test's.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';

/** `deskhand runs list` (the store, the CLI's commands: a few chunks) with the cache in `cache`. */
async function list(cache: string, dataDir: string) {
  const r = await runCli(['runs', 'list', '--data-dir', dataDir], { env: { DESKHAND_COMPILE_CACHE: cache, NODE_DEBUG: 'deskhand_compile_cache' } });
  const report = /(\d+) modules from the cache, (\d+) compiled from source/.exec(r.stderr);
  return { ...r, taken: report ? Number(report[1]) : null, compiled: report ? Number(report[2]) : null, out: r.stdout };
}

/** The one folder the cache made for this build and Node, and its files. */
function buildFolder(cache: string): { dir: string; files: string[] } {
  const [name, ...more] = readdirSync(cache);
  expect(more).toEqual([]);
  const dir = join(cache, name!);
  return { dir, files: readdirSync(dir).filter((f) => f.endsWith('.bin')) };
}

/** A cache folder and data folder of the test's own, after one run of `runs list` made the cache. */
async function warmed() {
  requireBuild();
  const cache = join(tempDir('deskhand-cc-'), 'cache');
  const dataDir = tempDir('deskhand-cc-data-');
  const first = await list(cache, dataDir);
  return { cache, dataDir, first, ...buildFolder(cache) };
}

describe('the CLI compile cache', () => {
  it('a first run writes the code of every module it compiled (private files); the next compiles none from source and prints the same', async () => {
    const { cache, dataDir, first, dir, files } = await warmed();
    expect(first.code).toBe(0);
    expect(first.taken).toBe(0);
    expect(first.compiled).toBeGreaterThan(3);
    expect(dir).toContain(`-${process.version}-${process.arch}`);
    expect(files).toHaveLength(first.compiled!);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of files) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);

    const second = await list(cache, dataDir);
    expect(second.code).toBe(0);
    expect(second.taken).toBe(first.compiled);
    expect(second.compiled).toBe(0);
    expect(second.out).toBe(first.out);
  });

  it('a module compiled from the cache still imports a package at run time (`secrets list` imports the keyring library)', async () => {
    requireBuild();
    const cache = join(tempDir('deskhand-cc-'), 'cache');
    const dataDir = tempDir('deskhand-cc-data-');
    const secrets = () => runCli(['secrets', 'list', '--data-dir', dataDir], { env: { DESKHAND_COMPILE_CACHE: cache, NODE_DEBUG: 'deskhand_compile_cache' } });
    const first = await secrets();
    const second = await secrets();
    // Whatever the keyring answers here (listed, or not running), the cached run answers the same.
    expect(second.stderr).toMatch(/[1-9]\d* modules from the cache, 0 compiled from source/);
    expect(second.code).toBe(first.code);
    expect(second.stdout).toBe(first.stdout);
    const words = (r: { stderr: string }) => r.stderr.split('\n').filter((l) => !l.startsWith('DESKHAND_COMPILE_CACHE')).join('\n');
    expect(words(second)).toBe(words(first));
    expect(second.stderr).not.toMatch(/dynamic import|ExperimentalWarning/);
  });

  it('code V8 refuses (a damaged file) costs only that module its cache: the run works, and the file is written again', async () => {
    const { cache, dataDir, first, dir, files } = await warmed();
    const damaged = join(dir, files[0]!);
    const junk = Buffer.alloc(4096, 7);
    writeFileSync(damaged, junk);
    const again = await list(cache, dataDir);
    expect(again.code).toBe(0);
    expect(again.out).toBe(first.out);
    expect(again.compiled).toBe(1);
    expect(again.taken).toBe(first.compiled! - 1);
    expect(readFileSync(damaged).equals(junk)).toBe(false);
  });

  it('a folder others can write to is neither read nor written (compiled code from it would run as ours)', async () => {
    const { cache, dataDir, first, dir, files } = await warmed();
    chmodSync(dir, 0o777);
    const open = await list(cache, dataDir);
    expect(open.code).toBe(0);
    expect(open.out).toBe(first.out);
    expect(open.taken).toBe(0);
    expect(open.compiled).toBe(first.compiled);
    expect(open.stderr).toMatch(/not written: .* is not a private folder/);
    expect(readdirSync(dir).filter((f) => f.endsWith('.bin'))).toEqual(files);
    // Made private again (by its owner), it is used again.
    chmodSync(dir, 0o700);
    expect((await list(cache, dataDir)).taken).toBe(first.compiled);
  });

  it('DESKHAND_COMPILE_CACHE=off: no cache is read or made', async () => {
    requireBuild();
    const root = tempDir('deskhand-cc-');
    const dataDir = tempDir('deskhand-cc-data-');
    const r = await runCli(['runs', 'list', '--data-dir', dataDir], { env: { DESKHAND_COMPILE_CACHE: 'off', NODE_DEBUG: 'deskhand_compile_cache', XDG_CACHE_HOME: root } });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/DESKHAND_COMPILE_CACHE/);
    expect(existsSync(join(root, 'deskhand'))).toBe(false);
  });

  it("a module compiled through the cache gets a require of its own, as Node's: resolved from its folder, the parent of what it loads", () => {
    const build = tempDir('deskhand-cc-build-');
    mkdirSync(join(build, 'sub'));
    writeFileSync(join(build, 'sub', 'b.cjs'), 'module.exports = { name: "b" };\n');
    writeFileSync(
      join(build, 'a.cjs'),
      [
        "const b = require('./sub/b.cjs');",
        "const at = require.resolve('./sub/b.cjs');",
        'module.exports = { b: b.name, at, parentIsA: require.cache[at].parent === module, children: module.children.map((c) => c.id),',
        "  lookup: require.resolve.paths('some-package')[0], dirname: __dirname, filename: __filename };",
      ].join('\n'),
    );
    const script = [
      `import { installCompileCache } from ${JSON.stringify(resolve(__dirname, '../../src/main/host/cli/compile-cache.ts'))};`,
      "import { createRequire } from 'node:module';",
      `installCompileCache(${JSON.stringify(build)}, 'test-build');`,
      `console.log(JSON.stringify(createRequire(import.meta.url)(${JSON.stringify(join(build, 'a.cjs'))})));`,
    ].join('\n');
    const cache = join(tempDir('deskhand-cc-'), 'cache');
    const run = () => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, DESKHAND_COMPILE_CACHE: cache, NODE_DEBUG: 'deskhand_compile_cache' } });
      expect(r.status, r.stderr).toBe(0);
      return { seen: JSON.parse(r.stdout.trim().split('\n').at(-1)!), stderr: r.stderr };
    };
    const first = run();
    expect(first.stderr).toMatch(/0 modules from the cache, 2 compiled from source/);
    const b = join(build, 'sub', 'b.cjs');
    expect(first.seen).toEqual({ b: 'b', at: b, parentIsA: true, children: [b], lookup: join(build, 'node_modules'), dirname: build, filename: join(build, 'a.cjs') });
    const second = run();
    expect(second.stderr).toMatch(/2 modules from the cache, 0 compiled from source/);
    expect(second.seen).toEqual(first.seen);
  });
});
