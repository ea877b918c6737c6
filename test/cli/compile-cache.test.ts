/**
 * The CLI's compile cache (src/main/host/cli/compile-cache.ts): `deskhand` runs the CommonJS build, whose modules a
 * second run compiles from the code V8 made in the first. Proven by the cache's own files and by what the process
 * reports under NODE_DEBUG (the count of modules V8 accepted from the cache), and that what a run prints is the same
 * with and without it. The timing is bench/schedule.bench.ts's (`run_to_request_ms`), not this test's.
 *
 * The built-in tools' JSON schemas are kept in the same folder (src/main/host/cli/schema-cache.ts): proven by the
 * file a run leaves, by the next run's request carrying a mark put into that file, and by the request being the same
 * as without the file when the folder is not private or the file is damaged.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireBuild, runCli } from '../support/cli';
import { startModelServer } from '../support/model-server';
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

describe("the CLI's tool schema memo", () => {
  it('a run keeps its request\'s tool schemas (a private file); the next takes them from it; a folder others can write to or a damaged file is not used', async () => {
    requireBuild();
    const model = await startModelServer();
    model.setFallback(() => ({ text: ['ok'] }));
    try {
      const cache = join(tempDir('deskhand-cc-'), 'cache');
      const dataDir = tempDir('deskhand-cc-data-');
      const work = tempDir('deskhand-cc-work-');
      const run = async () => {
        const before = model.requests.length;
        const r = await runCli(['run', '--cwd', work, '--provider', 'openai', '--base-url', model.baseURL, '--model', 'm', '--data-dir', dataDir, 'hello'], { env: { DESKHAND_COMPILE_CACHE: cache } });
        expect(r.code, r.stderr).toBe(0);
        const sent = model.requests.slice(before);
        expect(sent).toHaveLength(1);
        const body = sent[0]!.body as { tools?: { function: { name: string; parameters: Record<string, unknown> } }[] };
        return Object.fromEntries((body.tools ?? []).map((t) => [t.function.name, t.function.parameters]));
      };
      const kept = () => JSON.parse(readFileSync(file, 'utf8')) as { version: number; tools: Record<string, Record<string, unknown>> };

      const first = await run();
      expect(Object.keys(first)).toEqual(expect.arrayContaining(['read_file', 'execute_command', 'get_time']));
      const [folder] = readdirSync(cache);
      const dir = join(cache, folder!);
      const file = join(dir, 'tool-schemas.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const byName = Object.fromEntries(Object.entries(kept().tools).map(([key, schema]) => [key.split('\n')[0], schema]));
      expect(byName).toEqual(first);

      // A mark no conversion makes, put into the file, is what the next run sends.
      const marked = kept();
      const readKey = Object.keys(marked.tools).find((k) => k.startsWith('read_file\n'))!;
      marked.tools[readKey]!.description = 'FROM-THE-MEMO';
      writeFileSync(file, JSON.stringify(marked), { mode: 0o600 });
      const second = await run();
      expect(second.read_file).toEqual({ ...first.read_file, description: 'FROM-THE-MEMO' });
      expect({ ...second, read_file: first.read_file }).toEqual(first);

      // Others could have written it: not read (the schema is converted again, as the first run's).
      chmodSync(dir, 0o777);
      expect(await run()).toEqual(first);
      chmodSync(dir, 0o700);

      // Damaged: not used, and written whole again.
      writeFileSync(file, '{"version": 1, "tools": ');
      expect(await run()).toEqual(first);
      expect(Object.keys(kept().tools).map((k) => k.split('\n')[0]).sort()).toEqual(Object.keys(first).sort());
    } finally {
      await model.close();
    }
  });
});
