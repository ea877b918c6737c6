/**
 * One door for processes is a lint rule (eslint.config.js, `deskhand/process-door`): source that starts a process
 * any other way than through the launcher is refused wherever it sits in src/, in every spelling of the import; the
 * launcher itself, type-only imports and files outside the app (tests, build scripts) are not. And the tree as it
 * stands has no file that breaks it (the lint run over src/ that CI does, narrowed to this one rule).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function door(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'deskhand/process-door' || m.fatal).map((m) => m.message);
}

const SPELLINGS: readonly (readonly [name: string, source: string])[] = [
  ['named import', "import { spawn } from 'node:child_process';\nvoid spawn;\n"],
  ['bare builtin name', "import { execFile } from 'child_process';\nvoid execFile;\n"],
  ['namespace import', "import * as cp from 'node:child_process';\nvoid cp;\n"],
  ['default import', "import cp from 'child_process';\nvoid cp;\n"],
  ['side-effect import', "import 'node:child_process';\n"],
  ['mixed type and value import', "import { type ChildProcess, spawn } from 'node:child_process';\nexport type C = ChildProcess;\nvoid spawn;\n"],
  ['dynamic import', "export const load = () => import('node:child_process');\n"],
  ['require', "// eslint-disable-next-line @typescript-eslint/no-require-imports\nexport const cp = require('child_process');\n"],
  ['re-export', "export { spawn } from 'node:child_process';\n"],
  ['re-export all', "export * from 'child_process';\n"],
  ['import = require', "import cp = require('child_process');\nvoid cp;\n"],
  ['execa', "import { execa } from 'execa';\nvoid execa;\n"],
  ['execa subpath', "import { execaNode } from 'execa/index.js';\nvoid execaNode;\n"],
];

const PLACES = [
  'src/main/services/notify/example.ts',
  'src/main/services/mcp/example.ts',
  'src/main/services/processes/command-process.ts',
  'src/main/services/processes/proc-info.ts',
  'src/main/services/sandbox/sandbox.ts',
  'src/main/tools/files/rg.ts',
  'src/main/tools/extensions/example.ts',
  'src/main/host/cli/commands.ts',
  'src/main/runtime/example.ts',
  'src/main/electron/example.ts',
  'src/main/services/tower/tower-service.ts',
  'src/main/tools/tower/example.ts',
];

describe('the process door (lint)', () => {
  for (const [name, source] of SPELLINGS) {
    it(`refuses ${name} of a process module everywhere in src/ but the launcher`, async () => {
      for (const place of PLACES) {
        const messages = await door(place, source);
        expect(messages.join('\n'), `${name} in ${place}`).toMatch(/Start processes through the launcher/);
      }
      expect(await door('src/main/services/processes/launcher.ts', source)).toEqual([]);
    });
  }

  it('accepts type-only imports (they start nothing) and unrelated modules named alike', async () => {
    for (const source of [
      "import type { ChildProcess } from 'node:child_process';\nexport type C = ChildProcess;\n",
      "import { type ChildProcessWithoutNullStreams } from 'node:child_process';\nexport type C = ChildProcessWithoutNullStreams;\n",
      "export type { ChildProcess } from 'node:child_process';\n",
      "import { launchHostProgram } from '../processes/launcher';\nvoid launchHostProgram;\n",
      "import { x } from './child_process_notes';\nvoid x;\n",
    ]) {
      expect(await door('src/main/services/notify/example.ts', source), source).toEqual([]);
    }
  });

  it('leaves tests and build scripts alone (they are not the app)', async () => {
    const source = "import { spawn } from 'node:child_process';\nvoid spawn;\n";
    expect(await door('test/lint/example.test.ts', source)).toEqual([]);
    expect(await door('scripts/example.mjs', source)).toEqual([]);
  });

  it('exempts no other file: the coordinator host git goes through the launcher too', async () => {
    const source = "import { execFile } from 'node:child_process';\nvoid execFile;\n";
    expect((await door('src/main/services/tower/git.ts', source)).join('\n')).toMatch(/through the launcher/);
    expect((await door('src/main/services/tower/git-helpers.ts', source)).join('\n')).toMatch(/through the launcher/);
  });

  it('no file of src/ starts a process outside the launcher today', async () => {
    // Lint every file that names a process module at all (parsing the whole tree would take half a minute here).
    const candidates = readdirSync('src', { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|tsx|js|mjs|cjs)$/.test(f))
      .map((f) => join('src', f))
      .filter((f) => /child_process|execa/.test(readFileSync(f, 'utf8')));
    expect(candidates.length).toBeGreaterThan(1);
    const only = new ESLint({ cwd: process.cwd(), ruleFilter: ({ ruleId }) => ruleId === 'deskhand/process-door' });
    const results = await only.lintFiles(candidates);
    const offenders = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'deskhand/process-door').map((m) => `${r.filePath}:${m.line}`));
    expect(offenders).toEqual([]);
  });
});
