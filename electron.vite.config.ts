import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Main is ESM (package "type": "module"); dependencies stay external and load from node_modules at run time.
// The preload runs sandboxed, where `import` is impossible: it must be ONE CommonJS file (electron is its only require).
// The renderer uses relative asset URLs, so the same build loads from app://deskhand/ and from the web host's
// /TOKEN/ path.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      externalizeDeps: { exclude: ['zod'] },
      rollupOptions: {
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
