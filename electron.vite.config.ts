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

export default defineConfig({
  main: {
    plugins: [zodV3Kinds],
    build: {
      outDir: 'out/main',
      // Bundled rather than loaded from node_modules: zod, the AI SDK with its providers (which then share the bundled
      // zod instead of loading a second copy file by file) and diff. Node 20 resolves, reads and compiles every ESM
      // file of a package one by one: the AI SDK alone was some 360 files before a run's first model request.
      externalizeDeps: { exclude: [...AI_SDK, 'zod', 'diff'] },
      rollupOptions: {
        output: {
          // The AI SDK in a chunk of its own name, so the import-cost tests can tell which commands load it.
          // Its own modules only: what it imports from the rest (zod) stays in the chunks it was in.
          codeSplitting: {
            groups: [
              { name: 'ai-sdk', test: (id) => inPackages(AI_PROVIDERS)(id) || id.endsWith('/providers/zod-v3-kinds.ts') },
              // zod 3, should anything bundled ever import more of it than zodV3Kinds gives (a run must not load it).
              { name: 'zod-v3', test: (id) => id.includes('/node_modules/zod/v3/') },
              { name: 'ai-core', test: inPackages(AI_CORE) },
              // Each loaded when a model of that provider is first called (providers.ts).
              { name: 'ai-anthropic', test: inPackages(['@ai-sdk/anthropic']) },
              { name: 'ai-openai', test: inPackages(['@ai-sdk/openai']) },
            ],
            includeDependenciesRecursively: false,
          },
        },
        input: {
          cli: resolve(__dirname, 'src/main/host/cli/main.ts'),
          index: resolve(__dirname, 'src/main/electron/main.ts'),
          // The detached worker of run_background_jobs (spawned with `node out/main/job-worker.js`).
          'job-worker': resolve(__dirname, 'src/main/services/tasks/job-worker-main.ts'),
        },
      },
    },
  },
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
});
