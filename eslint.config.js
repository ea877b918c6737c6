// Lint with the layer rules of ARCHITECTURE.md: each folder may import only what its layer allows.
import tseslint from 'typescript-eslint';

const NODE_BUILTINS = ['node:*', 'fs', 'fs/*', 'path', 'os', 'child_process', 'crypto', 'net', 'http', 'https', 'url', 'util', 'stream', 'events', 'worker_threads'];

const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
});

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'e2e/artifacts/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.property.name='invoke'][arguments.0.type!='Literal']", message: 'No generic IPC passthroughs: name each method in the contract.' }],
    },
  },
  {
    files: ['src/shared/**'],
    rules: restrict([...NODE_BUILTINS, 'electron', 'react', 'react-dom', '**/main/**', '**/renderer/**', '**/preload/**'], 'src/shared is pure TypeScript: no Node, Electron, DOM or other layers.'),
  },
  {
    files: ['src/main/runtime/**', 'src/main/tools/**', 'src/main/services/**', 'src/main/host/**'],
    rules: restrict(['electron', '**/electron/**', '**/renderer/**', '**/preload/**', 'react', 'react-dom'], 'Only src/main/electron may import electron; main never imports the renderer.'),
  },
  {
    files: ['src/main/runtime/**'],
    rules: restrict(['electron', '**/electron/**', '**/renderer/**', '**/host/**', '**/tools/**/*', 'react'], 'The runtime knows tools only through the contract in runtime/tool.ts.'),
  },
  {
    files: ['src/renderer/**'],
    rules: restrict([...NODE_BUILTINS, 'electron', '**/main/**', '**/preload/**'], 'The renderer imports src/shared and itself only.'),
  },
  {
    files: ['src/preload/**'],
    rules: restrict([...NODE_BUILTINS, '**/main/**', '**/renderer/**'], 'The preload imports electron and src/shared only.'),
  },
);
