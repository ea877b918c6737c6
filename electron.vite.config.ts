import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';

// Main is ESM (package "type": "module"); dependencies stay external and load from node_modules at run time.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          cli: resolve(__dirname, 'src/main/host/cli-main.ts'),
        },
      },
    },
  },
});
