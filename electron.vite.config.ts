import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Main is ESM (package "type": "module"); dependencies stay external and load from node_modules at run time.
// The preload runs sandboxed, where `import` is impossible: it must be ONE CommonJS file (electron is its only require).
// The renderer uses relative asset URLs, so the same build loads from app://deskhand/ and from the web host's
// /TOKEN/ path.
/**
 * The AI SDK and what it imports (bundled into the main build): the OpenAI-compatible provider with what every
 * provider imports in the `ai-sdk` chunk, Anthropic's and OpenAI's providers in chunks of their own (each loaded by
 * the first call of one of its models), the SDK's core (`ai`, which only the media companion's generateText
 * uses, with its gateway provider) in the `ai-core` chunk, so a run does not load it.
 */
const AI_PROVIDERS = ['@ai-sdk/openai-compatible', '@ai-sdk/provider', '@ai-sdk/provider-utils', 'eventsource-parser'];
const AI_CORE = ['ai', '@ai-sdk/gateway', '@opentelemetry/api', '@vercel/oidc'];
const AI_SDK = [...AI_PROVIDERS, ...AI_CORE, '@ai-sdk/anthropic', '@ai-sdk/openai'];
/**
 * The package a module belongs to: the outermost one in its path, so a copy nested under a package goes with it
 * (`@ai-sdk/openai` carries its own `provider-utils`, which belongs in OpenAI's chunk, not in the one every run loads).
 */
const packageOf = (id: string) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(id)?.[1] ?? '';
const inPackages = (packages: string[]) => (id: string) => packages.includes(packageOf(id));
/**
 * `@ai-sdk/provider-utils` imports from `zod/v3` only the names of zod 3's schema kinds; bundled as it is, that
 * loaded all of zod 3 (≈ 100 kB) into every run. It gets src/main/services/providers/zod-v3-kinds.ts instead.
 */
const zodV3Kinds = {
  name: 'deskhand-zod-v3-kinds',
  enforce: 'pre' as const,
  resolveId(source: string, importer: string | undefined) {
    if (source === 'zod/v3' && importer?.includes('/node_modules/@ai-sdk/provider-utils/')) return resolve(__dirname, 'src/main/services/providers/zod-v3-kinds.ts');
    return null;
  },
};

/**
 * The CommonJS build's dynamic imports of packages (the ES-only ones among them: ripgrep, the ACP SDK, pdf.js) go
 * through a function the entry sets (src/main/host/cli/main-cjs.ts): code V8 gives back from the compile cache loses
 * its module's `import()` on Node 20 ("A dynamic import callback was not specified"), the entry's own does not. Only
 * string specifiers are rewritten; any other `import()` in a chunk fails on every run (compile-cache.ts gives the
 * modules it compiles none), so a test meets it at once.
 */
const externalImports = {
  name: 'deskhand-cjs-external-imports',
  renderChunk(code: string) {
    const out = code.replace(/\bimport\((["'])((?![./])[^"'\s]+)\1\)/g, (_m, q: string, spec: string) => `globalThis[Symbol.for("deskhand.importExternal")](${q}${spec}${q})`);
    return out === code ? null : { code: out, map: null };
  },
};

/**
 * The main process's build. `cjs`: the `deskhand` CLI alone as CommonJS (`electron-vite build --mode cli-cjs`, after the
 * ESM build, into the same folder: out/main/cli.cjs and out/main/chunks/*.cjs beside the ESM files, so every path a
 * module finds from its own place — the job worker, package.json, the renderer — is the same). Node 20 keeps no
 * compile cache for ES modules; for CommonJS it can be given one (src/main/host/cli/compile-cache.ts, used by
 * bin/deskhand.js), and compiling the runtime's modules was the largest part of a CLI run's start.
 */
function mainConfig(cjs: boolean) {
  return {
    plugins: cjs ? [zodV3Kinds, externalImports] : [zodV3Kinds],
    build: {
      outDir: 'out/main',
      emptyOutDir: !cjs,
      // Bundled rather than loaded from node_modules: zod, the AI SDK with its providers (which then share the bundled
      // zod instead of loading a second copy file by file) and diff. Node 20 resolves, reads and compiles every ESM
      // file of a package one by one: the AI SDK alone was some 360 files before a run's first model request.
      externalizeDeps: { exclude: [...AI_SDK, 'zod', 'diff'] },
      rollupOptions: {
        output: {
          ...(cjs ? { format: 'cjs' as const, entryFileNames: '[name].cjs', chunkFileNames: 'chunks/[name]-[hash].cjs' } : {}),
          // The AI SDK in a chunk of its own name, so the import-cost tests can tell which commands load it.
          // Its own modules only: what it imports from the rest (zod) stays in the chunks it was in.
          codeSplitting: {
            groups: [
              { name: 'ai-sdk', test: (id: string) => inPackages(AI_PROVIDERS)(id) || id.endsWith('/providers/zod-v3-kinds.ts') },
              // zod 3, should anything bundled ever import more of it than zodV3Kinds gives (a run must not load it).
              { name: 'zod-v3', test: (id: string) => id.includes('/node_modules/zod/v3/') },
              { name: 'ai-core', test: inPackages(AI_CORE) },
              // Each loaded when a model of that provider is first called (providers.ts).
              { name: 'ai-anthropic', test: inPackages(['@ai-sdk/anthropic']) },
              { name: 'ai-openai', test: inPackages(['@ai-sdk/openai']) },
            ],
            includeDependenciesRecursively: false,
          },
        },
        input: (cjs
          ? { cli: resolve(__dirname, 'src/main/host/cli/main-cjs.ts') }
          : {
              cli: resolve(__dirname, 'src/main/host/cli/main.ts'),
              index: resolve(__dirname, 'src/main/electron/main.ts'),
              // The detached worker of run_background_jobs (spawned with `node out/main/job-worker.js`).
              'job-worker': resolve(__dirname, 'src/main/services/tasks/job-worker-main.ts'),
            }) as Record<string, string>,
      },
    },
  };
}

export default defineConfig(({ mode }) =>
  mode === 'cli-cjs'
    ? { main: mainConfig(true) }
    : {
        main: mainConfig(false),
        preload: {
          build: {
            outDir: 'out/preload',
            rollupOptions: {
              input: { index: resolve(__dirname, 'src/preload/index.ts') },
              output: { format: 'cjs', entryFileNames: '[name].cjs' },
            },
          },
        },
        renderer: {
          root: resolve(__dirname, 'src/renderer'),
          base: './',
          plugins: [react()],
          build: {
            outDir: resolve(__dirname, 'out/renderer'),
            emptyOutDir: true,
            target: 'chrome120',
            minify: true,
            modulePreload: { polyfill: false },
            rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
          },
        },
      },
);
