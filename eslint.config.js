// Lint with the layer rules of ARCHITECTURE.md: each folder may import only what its layer allows.
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

// Bare Node builtins are matched by exact name (a gitignore-style pattern "events" would also match ./events).
const NODE_BUILTINS = ['fs', 'fs/promises', 'path', 'os', 'child_process', 'crypto', 'net', 'http', 'https', 'url', 'util', 'stream', 'events', 'worker_threads'];

const restrict = (patterns, message, paths = [], more = []) => ({
  'no-restricted-imports': ['error', { paths: paths.map((name) => ({ name, message })), patterns: [{ group: patterns, message }, ...more] }],
});

/**
 * One door for processes (SECURITY.md, "Round three: one door for processes"): only the launcher may import
 * `child_process` or `execa`, statically, dynamically (`import()`), through `require`, or by re-export, so every
 * process Deskhand starts gets the sandbox plan, the credential filter and an owned process group. Type-only imports
 * (`import type { ChildProcess }`) start nothing and are allowed.
 */
const PROCESS_MODULES = /^(node:)?child_process$|^execa(\/.*)?$/;
const processDoor = {
  meta: { type: 'problem', schema: [], messages: { door: "Start processes through the launcher (src/main/services/processes/launcher.ts: launchForModel for the model's processes, launchHostProgram/runHostProgram for Deskhand's own fixed helpers), never by importing '{{name}}' here." } },
  create(context) {
    const check = (node, source) => {
      if (source && typeof source.value === 'string' && PROCESS_MODULES.test(source.value)) context.report({ node, messageId: 'door', data: { name: source.value } });
    };
    return {
      ImportDeclaration(node) {
        if (node.importKind === 'type' || (node.specifiers.length > 0 && node.specifiers.every((s) => s.importKind === 'type'))) return;
        check(node, node.source);
      },
      ExportNamedDeclaration(node) {
        if (node.source && node.exportKind !== 'type') check(node, node.source);
      },
      ExportAllDeclaration(node) {
        if (node.exportKind !== 'type') check(node, node.source);
      },
      ImportExpression(node) {
        check(node, node.source);
      },
      CallExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node, node.arguments[0]);
      },
      TSImportEqualsDeclaration(node) {
        if (node.moduleReference.type === 'TSExternalModuleReference') check(node, node.moduleReference.expression);
      },
    };
  },
};

const RUNTIME_OUT = ['electron', '**/electron/**', '**/renderer/**', '**/host/**', '**/tools/**/*', 'react'];
const MAIN_ONLY = ['electron', '**/electron/**', '**/renderer/**', '**/preload/**', 'react', 'react-dom'];
const NO_ELECTRON = 'Only src/main/electron may import electron; main never imports the renderer.';

/**
 * src/main/host/ is grouped by what drives the code (docs/architecture.md, "The host"), bottom first: each group may
 * import the groups before it and never one after it, type imports included. assembly/ builds the runtime; background/
 * is what the host runs on its own on that runtime; app/ is the contract's one implementation (and the two transports'
 * shared dispatch); web/ is `deskhand web`; cli/ is the `deskhand` binary, which also starts `deskhand web`.
 */
const HOST_GROUPS = ['assembly', 'background', 'app', 'peers', 'web', 'acp', 'cli'];

/**
 * Hosts behind the app service (issue 44): no host or Electron file imports a store module or the `Store` class, type
 * imports included. Hosts read and change rows through the runtime's records facade (src/main/runtime/records.ts:
 * `runtime.records`, or `withRecords` for a one-shot command); the services on the store are built in the runtime
 * (runtime/store-services.ts; the store opens at runtime/store-door.ts) and the assembly passes them options. No host
 * file is an exception.
 */
const STORE_DOOR = {
  group: ['**/services/store/**'],
  message: 'Hosts and the Electron shell never import the store: read rows through the runtime records facade (runtime/records.ts, `runtime.records`; `withRecords` from host/assembly/open-store.ts for a CLI command); services on the store are built in the runtime (runtime/store-services.ts, runtime/store-door.ts), the host passes options.',
};

const hostGroupRule = (group, i) => {
  const above = HOST_GROUPS.slice(i + 1);
  return restrict(MAIN_ONLY, NO_ELECTRON, [], [
    {
      regex: `^(\\.\\./)+(host/)?(${above.join('|')})(/|$)`,
      message: `host/${group}/ sits below host/${above.join('/, host/')}/: it never imports them (the groups stack assembly → background → app → peers → web → acp → cli). Move what both need down to the lower group.`,
    },
    STORE_DOOR,
  ]);
};
const hostGroupRules = HOST_GROUPS.slice(0, -1).map((group, i) => ({ files: [`src/main/host/${group}/**`], rules: hostGroupRule(group, i) }));

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'e2e/artifacts/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.property.name='invoke']:not([arguments.0.type='Literal']):not([arguments.0.name=/^[A-Z][A-Z0-9_]*$/])", message: 'No generic IPC passthroughs: invoke only a constant channel and name each method in the contract.' }],
    },
  },
  {
    // bin/ is CommonJS (bin/package.json): the `deskhand` entry loads without starting Node's ES module loader.
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Every file of the app: processes start only in the launcher. scripts/*.mjs are build scripts run by npm (not
    // part of the app) and are outside this scope on purpose.
    files: ['src/**'],
    plugins: { deskhand: { rules: { 'process-door': processDoor } } },
    rules: { 'deskhand/process-door': 'error' },
  },
  {
    files: ['src/main/services/processes/launcher.ts'],
    rules: { 'deskhand/process-door': 'off' },
  },
  {
    files: ['src/shared/**'],
    rules: restrict(['node:*', 'electron', 'react', 'react-dom', '**/main/**', '**/renderer/**', '**/preload/**'], 'src/shared is pure TypeScript: no Node, Electron, DOM or other layers.', NODE_BUILTINS),
  },
  {
    files: ['src/main/runtime/**', 'src/main/tools/**', 'src/main/services/**', 'src/main/host/**'],
    rules: restrict(['electron', '**/electron/**', '**/renderer/**', '**/preload/**', 'react', 'react-dom'], NO_ELECTRON),
  },
  {
    // host/cli/ (the top group): never the store either.
    files: ['src/main/host/cli/**'],
    rules: restrict(['electron', '**/electron/**', '**/renderer/**', '**/preload/**', 'react', 'react-dom'], NO_ELECTRON, [], [STORE_DOOR]),
  },
  {
    // The Electron shell: never the store (it opens runtimes through host/assembly/).
    files: ['src/main/electron/**'],
    rules: restrict(['**/renderer/**', '**/preload/**', 'react', 'react-dom'], 'The Electron shell never imports the renderer or the preload.', [], [STORE_DOOR]),
  },
  ...hostGroupRules,
  {
    files: ['src/main/runtime/**'],
    rules: restrict(RUNTIME_OUT, 'The runtime knows tools only through the contract in runtime/tool.ts.'),
  },
  {
    // runtime/ is grouped (docs/architecture.md "The runtime"): loop/ drives a run and may use every group; decision/
    // (holds, inspectors, the approval engine) and prompt/ are what the loop consults and never import it.
    files: ['src/main/runtime/decision/**', 'src/main/runtime/prompt/**'],
    rules: restrict(RUNTIME_OUT, 'The runtime knows tools only through the contract in runtime/tool.ts.', [], [
      { group: ['**/loop/*', '../loop', './loop/*'], message: 'runtime/decision/ and runtime/prompt/ never import runtime/loop/: the loop consults them, not the other way. Move what both need into the lower group.' },
    ]),
  },
  {
    // A family gets services as interfaces from its factory (services/<name>/index.ts), never a concrete service, and
    // never imports another family or a host: the host assembles families (host/assembly/assemble.ts).
    files: ['src/main/tools/**'],
    rules: restrict([...MAIN_ONLY, '**/host/**'], 'Tools never import a host or Electron.', [], [
      { group: ['**/services/*/*', '!**/services/*/index'], message: 'A tool imports a service only through its interface module (services/<name>/index.ts), injected by its family factory.' },
      { regex: '^\\.\\./(?!\\.\\.)[^/]+', message: 'A family never imports another family: the host passes what one family offers another (host/assembly/assemble.ts).' },
    ]),
  },
  {
    files: ['src/main/services/**'],
    rules: restrict([...MAIN_ONLY, '**/runtime/**', '**/tools/**', '**/host/**'], 'Services are below the runtime: they import no runtime, tool or host module.'),
  },
  {
    files: ['src/renderer/**'],
    rules: restrict(['node:*', 'electron', '**/main/**', '**/preload/**'], 'The renderer imports src/shared and itself only.', NODE_BUILTINS),
  },
  {
    // Hooks in the same order on every render: a hook after an early return crashes the component when the branch flips
    // (the sidebar's rename field did, issue 34's merge).
    files: ['src/renderer/**/*.tsx', 'src/renderer/**/*.ts'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error' },
  },
  {
    files: ['src/preload/**'],
    rules: restrict(['node:*', '**/main/**', '**/renderer/**'], 'The preload imports electron and src/shared only.', NODE_BUILTINS),
  },
);
