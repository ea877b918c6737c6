#!/usr/bin/env node
// Import loops are refused (issue 32, docs/architecture.md "Where a new file goes"): every module under the given
// folders (default: src/) is read with the TypeScript compiler, each import resolved as the build resolves it, and
// any loop among them fails `npm run lint`. Every kind of import counts: value and `import type`, re-exports,
// `import()` (also in type positions) and `require`. A loop through type imports costs nothing at run time but still
// ties the files together for a reader, so it is refused too.
//
// Usage: node scripts/check-cycles.mjs [folder…]   (exit 1 and one line per loop when there is one)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const EXTENSIONS = /\.(ts|tsx|mts|cts)$/;

/**
 * The one loop kept on purpose, by its exact set of files (a loop that grows or changes fails again): the launcher
 * stops a process tree with what the process table says (proc-info.ts, process-tree.ts), and on macOS the process
 * table is read with `ps`, started through the launcher, the only module allowed to start a process (the
 * `deskhand/process-door` lint rule). Breaking it means a second door, which SECURITY.md's "one door for processes"
 * refuses; the lead decides (issue 32's report).
 */
export const KEPT_LOOPS = [['src/main/services/processes/launcher.ts', 'src/main/services/processes/proc-info.ts', 'src/main/services/processes/process-tree.ts']];

const OPTIONS = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.ReactJSX,
  resolveJsonModule: true,
  allowImportingTsExtensions: true,
  noEmit: true,
};

function listFiles(folder) {
  const out = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(path));
    else if (EXTENSIONS.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Every module specifier a file names, with whether it is a type-only import (for the message). */
function specifiers(file) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const add = (node, kind) => {
    if (node && ts.isStringLiteralLike(node)) found.push({ name: node.text, kind });
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const typeOnly = clause?.isTypeOnly || (clause?.namedBindings && ts.isNamedImports(clause.namedBindings) && !clause.name && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly));
      add(node.moduleSpecifier, typeOnly ? 'type' : 'value');
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly ? 'type' : 'value');
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly ? 'type' : 'value');
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, 'type');
    } else if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], 'dynamic');
      else if (ts.isIdentifier(node.expression) && node.expression.text === 'require') add(node.arguments[0], 'value');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The import graph among `files`: file → Map(imported file → kinds). Imports leaving the set are dropped. */
export function importGraph(files) {
  const inSet = new Set(files.map((f) => resolve(f)));
  const host = ts.createCompilerHost(OPTIONS);
  const cache = ts.createModuleResolutionCache(process.cwd(), (s) => s, OPTIONS);
  const graph = new Map();
  for (const file of inSet) {
    const edges = new Map();
    for (const { name, kind } of specifiers(file)) {
      const resolved = ts.resolveModuleName(name, file, OPTIONS, host, cache).resolvedModule?.resolvedFileName;
      if (!resolved) continue;
      const target = resolve(resolved);
      if (!inSet.has(target)) continue;
      if (!edges.has(target)) edges.set(target, new Set());
      edges.get(target).add(kind);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** Strongly connected components of more than one file (or a file importing itself), each as one loop through it. */
export function findCycles(graph) {
  let index = 0;
  const stack = [];
  const onStack = new Set();
  const indices = new Map();
  const low = new Map();
  const components = [];
  const strong = (v) => {
    // Iterative Tarjan, so a deep chain of imports cannot overflow the call stack.
    const work = [[v, [...graph.get(v).keys()], 0]];
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, next] = frame;
      if (frame[2] < next.length) {
        const w = next[frame[2]++];
        if (!indices.has(w)) {
          indices.set(w, index);
          low.set(w, index);
          index++;
          stack.push(w);
          onStack.add(w);
          work.push([w, [...graph.get(w).keys()], 0]);
        } else if (onStack.has(w)) {
          low.set(node, Math.min(low.get(node), indices.get(w)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === indices.get(node)) {
        const component = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          component.push(w);
        } while (w !== node);
        if (component.length > 1 || graph.get(node).has(node)) components.push(component);
      }
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) strong(v);
  return components.map((component) => loopThrough(graph, component));
}

/** One shortest loop inside a component, starting at its first file in name order: [a, b, …, a] with edge kinds. */
function loopThrough(graph, component) {
  const members = new Set(component);
  const start = [...component].sort()[0];
  const previous = new Map([[start, null]]);
  const queue = [start];
  let last = null;
  while (queue.length > 0 && !last) {
    const v = queue.shift();
    for (const w of graph.get(v).keys()) {
      if (!members.has(w)) continue;
      if (w === start) {
        last = v;
        break;
      }
      if (!previous.has(w)) {
        previous.set(w, v);
        queue.push(w);
      }
    }
  }
  const path = [start];
  for (let v = last; v !== start; v = previous.get(v)) path.splice(1, 0, v);
  path.push(start);
  const steps = path.slice(0, -1).map((from, i) => ({ from, to: path[i + 1], kinds: [...graph.get(from).get(path[i + 1])] }));
  return { files: [...component].sort(), steps };
}

export function checkFolders(folders, cwd = process.cwd(), kept = KEPT_LOOPS) {
  const files = folders.flatMap((f) => (statSync(f).isDirectory() ? listFiles(f) : [f]));
  const keptKeys = new Set(kept.map((loop) => loop.map((f) => resolve(cwd, f)).sort().join('\n')));
  const cycles = findCycles(importGraph(files)).filter((c) => !keptKeys.has(c.files.join('\n')));
  return cycles.map((c) => {
    const chain = c.steps.map((s, i) => `${i === 0 ? relative(cwd, s.from) : ''} -(${s.kinds.join('+')})-> ${relative(cwd, s.to)}`).join('');
    return `import loop among ${c.files.length} files: ${chain}`;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const folders = process.argv.slice(2);
  const loops = checkFolders(folders.length > 0 ? folders : ['src']);
  for (const line of loops) console.error(line);
  if (loops.length > 0) {
    console.error(`\n${loops.length} import loop(s). Move what both sides share to a module both import downward (docs/architecture.md, "Where a new file goes").`);
    process.exit(1);
  }
}
