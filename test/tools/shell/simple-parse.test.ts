/**
 * The short parse of plain commands (tools/shell/command-classifier/simple-parse.ts) against the bash parser: for a
 * corpus of commands (every program the classifier's tables name, each with many argument spellings, in a workspace
 * with secrets, links, git metadata and Deskhand's data inside), the classification with the short parse is the one
 * the parser's tree gives, field for field; commands it must not take go to the parser.
 */
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { classifyCommand, clearClassifierCache } from '../../../src/main/tools/shell/command-classifier';
import { setSimpleParse, simpleParse } from '../../../src/main/tools/shell/command-classifier/simple-parse';
import {
  AWKS, CODE_RUNNERS, EDITORS, ELEVATION, INTERPRETERS, NETWORK_CLIENTS, OTHER_SHELLS, PACKAGE_MANAGERS, PAGERS, POSIX_SHELLS, PURE_READERS, WRITERS,
} from '../../../src/main/tools/shell/command-classifier/tables';
import type { ClassifyContext } from '../../../src/main/runtime/tool';
import { tempDir } from '../../support/tool-context';

let ctx: ClassifyContext;
let outside: string;
let dataDir: string;

beforeAll(() => {
  const ws = tempDir('deskhand-simple-ws-');
  outside = tempDir('deskhand-simple-out-');
  dataDir = join(ws, '.deskhand-data');
  mkdirSync(join(ws, 'src'));
  mkdirSync(join(ws, '.git'));
  writeFileSync(join(ws, '.git', 'config'), '[core]\n\tpager = less\n');
  mkdirSync(dataDir);
  writeFileSync(join(ws, 'file.txt'), 'x');
  writeFileSync(join(ws, 'src', 'a.ts'), 'export {}');
  writeFileSync(join(ws, '.env'), 'TOKEN=1');
  writeFileSync(join(ws, 'config.json'), '{"api_key": "abc"}');
  writeFileSync(join(ws, 'Makefile'), 'all:\n\ttrue\n');
  symlinkSync(outside, join(ws, 'outlink'));
  writeFileSync(join(outside, 'victim.txt'), 'x');
  linkSync(join(outside, 'victim.txt'), join(ws, 'hardlink.txt'));
  ctx = { cwd: ws, workspaceRoots: [ws], dataDir } as ClassifyContext;
});

afterEach(() => {
  setSimpleParse(true);
  clearClassifierCache();
});

const PROGRAMS = [
  ...PURE_READERS, ...ELEVATION, ...PAGERS, ...EDITORS, ...AWKS, ...OTHER_SHELLS, ...POSIX_SHELLS, ...NETWORK_CLIENTS, ...INTERPRETERS,
  ...Object.keys(PACKAGE_MANAGERS), ...WRITERS, ...Object.keys(CODE_RUNNERS),
  'git', 'find', 'xargs', 'sed', 'env', 'nice', 'timeout', 'nohup', 'command', 'builtin', 'exec', 'eval', 'source', '.', 'cd', 'echo', 'printf',
  'test', ':', 'true', 'false', 'set', 'shopt', 'trap', 'alias', 'unset', 'kill', 'rm', 'mv', 'cp', 'chmod', 'ln', 'mkdir', 'touch', 'tee', 'dd',
  'tar', 'make', 'tsc', 'man', '/usr/bin/ls', '/tmp/ls', './run.sh', 'bin/x', 'unknown-program', 'x.y', '%1', '-', '--',
];
const ARGS = [
  '', '-la', '--version', 'status', 'log -1 --oneline', 'push origin main', 'config core.pager cat', 'file.txt', 'src/a.ts', '.env',
  'config.json', 'Makefile', 'outlink/victim.txt', 'hardlink.txt', '.deskhand-data', '.git/config', '/etc/shadow', '/dev/null',
  '-rf /', '-i s/a/b/ file.txt', 'install left-pad', 'run build', '-c true', '-o out.txt https://example.com', 'a=b', '. -delete',
  'src/new.txt', '../outside.txt', '+x file.txt', 'if=/dev/zero of=file.txt', '@ % , : + - --',
];
/** Commands near the short parse's edge: each must give the parser's answer (most of them by going to the parser). */
const EDGES = [
  'git  status', ' git status', 'git status ', 'git\tstatus', 'a=b git status', 'FOO=1', 'if true', 'time ls', 'coproc ls', 'declare x',
  'local x', 'export PATH', 'readonly x', 'typeset x', 'let x', 'function f', 'for x', 'select x', 'in x', '!', '{ ls', 'ls }',
  'ls #x', 'ls a#b', 'ls ~', 'ls ~/x', 'ls *.ts', 'ls a?', 'ls [ab]', 'ls {a,b}', 'echo $HOME', 'echo `id`', "echo 'x'", 'echo "x"',
  'ls\\ x', 'ls > x', 'ls | x', 'ls && x', 'ls ; x', 'ls &', 'ls (x)', 'ls é', 'ls \u00a0x', 'ls\nx', '', ' ', 'nameref x',
];

function corpus(): string[] {
  const out = new Set<string>();
  for (const p of PROGRAMS) for (const a of ARGS) out.add(a ? `${p} ${a}` : p);
  for (const e of EDGES) out.add(e);
  return [...out];
}

function classifiedBoth(command: string) {
  setSimpleParse(true);
  clearClassifierCache();
  const short = classifyCommand(command, ctx);
  setSimpleParse(false);
  clearClassifierCache();
  const parser = classifyCommand(command, ctx);
  return { short, parser };
}

describe('the short parse of plain commands classifies as the bash parser does', () => {
  it('every command of the corpus gets the same classification from both', () => {
    const commands = corpus();
    expect(commands.length).toBeGreaterThan(5_000);
    const differ: string[] = [];
    let short = 0;
    for (const c of commands) {
      setSimpleParse(true);
      if (simpleParse(c)) short++;
      const both = classifiedBoth(c);
      if (JSON.stringify(both.short) !== JSON.stringify(both.parser)) differ.push(c);
    }
    expect(differ).toEqual([]);
    // Most of the corpus is plain commands, which the short parse took.
    expect(short).toBeGreaterThan(commands.length / 2);
  }, 600_000);

  it.each(['git status', 'ls -la src', 'npm run build', 'rm -rf src', 'cat .env', 'sh -c true', 'sudo ls', 'curl https://example.com', 'cp file.txt outlink/victim.txt'])(
    '`%s` is read by the short parse, with the verdict the parser gives',
    (command) => {
      expect(simpleParse(command)).not.toBeNull();
      const { short, parser } = classifiedBoth(command);
      expect(short).toEqual(parser);
    },
  );

  it.each(EDGES)('%j is not taken by the short parse unless it is one plain command', (command) => {
    const plain = /^[A-Za-z0-9_./:@%+,=-]+( [A-Za-z0-9_./:@%+,=-]+)*$/.test(command) && !command.split(' ')[0]!.includes('=');
    const reserved = ['if', 'time', 'coproc', 'declare', 'local', 'export', 'readonly', 'typeset', 'let', 'function', 'for', 'select', 'in', 'nameref'];
    expect(simpleParse(command) !== null).toBe(plain && !reserved.includes(command.split(' ')[0]!));
    const { short, parser } = classifiedBoth(command);
    expect(short).toEqual(parser);
  });
});
