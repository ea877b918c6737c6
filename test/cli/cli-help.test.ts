/**
 * Item 11 of issue 52: the CLI's own conventions. `deskhand --version` prints the version; every command and
 * subcommand answers `--help` (or `-h`) with its own usage and exit code 0 — `deskhand run --help` said "Unknown
 * option '--help'" before. A table over every command the dispatcher knows (read from its source, so a new command
 * without usage lines fails here) and every subcommand the usage text names; then the built binary for each.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandUsage, helpAnswer, usageCommands, USAGE } from '../../src/main/host/cli/usage';
import { BIN, cliEnv, requireBuild } from '../support/cli';

const DISPATCHER = readFileSync(resolve(__dirname, '../../src/main/host/cli/commands.ts'), 'utf8');
/** Every command `deskhand` dispatches (its `case 'name':` lines), without the help words. */
const COMMANDS = [...DISPATCHER.matchAll(/case '([a-z]+)':/g)].map((m) => m[1]!).filter((c) => c !== 'help');
/** Every `deskhand COMMAND SUB` the usage text names. */
const SUBCOMMANDS = [...USAGE.matchAll(/^ {2}deskhand ([a-z]+) ([a-z][a-z-]*)\b/gm)].map((m) => [m[1]!, m[2]!] as const);
/** Commands whose module prints its own, fuller usage. */
const OWN = ['web', 'acp', 'peers'];
const version = () => '9.9.9';

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: cliEnv(), encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('deskhand --help and --version (table)', () => {
  it('the dispatcher and the usage text list the same commands', () => {
    expect(COMMANDS.length).toBeGreaterThan(20);
    expect([...usageCommands()].sort()).toEqual([...COMMANDS].sort());
  });

  it.each(COMMANDS.filter((c) => !OWN.includes(c)))('%s --help, -h and help %s: its own usage, exit 0', (command) => {
    for (const argv of [[command, '--help'], [command, '-h'], ['help', command], [command, 'x', '--help']]) {
      const a = helpAnswer(argv, version);
      expect(a, argv.join(' ')).not.toBeNull();
      expect(a!.code).toBe(0);
      expect(a!.text).toMatch(new RegExp(`^Usage:\\n {2}deskhand ${command}(?=[\\s\\[(]|$)`));
      // Only this command's lines: another command's usage is not printed.
      const others = a!.text.split('\n').filter((l) => /^ {2}deskhand /.test(l) && !new RegExp(`^ {2}deskhand ${command}(?=[\\s\\[(]|$)`).test(l));
      expect(others, argv.join(' ')).toEqual([]);
    }
  });

  it.each(SUBCOMMANDS.filter(([c]) => !OWN.includes(c)))('%s %s --help: the subcommand’s usage, exit 0', (command, sub) => {
    const a = helpAnswer([command, sub, 'ARG', '--help'], version)!;
    expect(a.code).toBe(0);
    expect(a.text).toContain(`deskhand ${command} ${sub}`);
    expect(commandUsage(command, sub)).toBe(a.text);
  });

  it('--version (and -V, version) prints the version; nothing after `--` is read as a flag', () => {
    for (const v of ['--version', '-V', 'version']) expect(helpAnswer([v], version)).toEqual({ text: 'deskhand 9.9.9', code: 0 });
    expect(helpAnswer(['mcp', 'add', 'files', '--', 'npx', 'server', '--help'], version)).toBeNull();
    expect(helpAnswer(['run', 'list the files'], version)).toBeNull();
    expect(helpAnswer([], version)).toEqual({ text: USAGE, code: 2 });
    expect(helpAnswer(['--help'], version)).toEqual({ text: USAGE, code: 0 });
  });
});

describe('the built binary', () => {
  // The table above covers every command's answer; here the binary answers it (and the commands that print their own).
  it('answers --version with package.json’s version, and --help with exit 0', () => {
    requireBuild();
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as { version: string };
    expect(cli(['--version'])).toEqual({ code: 0, stdout: `deskhand ${pkg.version}\n`, stderr: '' });
    for (const command of ['run', 'mcp', ...OWN]) {
      const r = cli([command, '--help']);
      expect({ command, code: r.code, stderr: r.stderr }).toEqual({ command, code: 0, stderr: '' });
      expect(r.stdout, command).toMatch(/usage/i);
      expect(r.stdout, command).toContain(`deskhand ${command}`);
    }
    for (const args of [['run', '--cwd', '.', '--help'], ['peers', 'add', '--help'], ['peers', 'serve', '--help'], ['runs', 'approve', '-h'], ['schedule', 'doctor', '--help']]) {
      const r = cli(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
    const run = cli(['run', '--help']);
    expect(run.stdout).not.toMatch(/Unknown option/);
    expect(run.stdout.split('\n')[1]).toMatch(/^ {2}deskhand run \[/);
  }, 180_000);

  it('an unknown command with --help is still a usage error', () => {
    requireBuild();
    const r = cli(['frobnicate', '--help']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Unknown command "frobnicate"');
  });
});
