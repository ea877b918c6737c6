/**
 * The README as a new user reads it (issue 34, item 21; issue 52 item 10): right after the quick start, "Using the
 * app" says what they will see (the browser tab, the first-run panel, the working folder); the four journeys with
 * what each needs from the machine, how to stop the app, and a word on npm's allowScripts notice. The CLI reference
 * (one row per command) is docs/cli.md, linked from the README.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const README = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
const CLI = readFileSync(join(import.meta.dirname, '../../docs/cli.md'), 'utf8');

/** The command of each row of the CLI table: `deskhand X Y` up to the first argument, flag or alternative. */
function commandRows(): string[] {
  const start = CLI.indexOf('| command | what it does |');
  const rows = CLI.slice(start).split('\n').slice(2);
  const out: string[] = [];
  for (const row of rows) {
    if (!row.startsWith('| `deskhand ')) break;
    const cell = /^\| `(deskhand [^`]*)`/.exec(row)![1]!;
    out.push(cell.split(' ').filter((w, i) => i < 3 && /^[a-z][a-z-]*$/.test(w)).join(' '));
  }
  return out;
}

describe('README', () => {
  it('starts with what a newcomer will see, and keeps the CLI reference in docs/cli.md', () => {
    const at = README.indexOf('## Using the app');
    expect(at).toBeGreaterThan(README.indexOf('## Quick start'));
    expect(at).toBeLessThan(README.indexOf('## The four journeys'));
    const section = README.slice(at, README.indexOf('\n## ', at + 1));
    for (const seen of ['**A browser tab**', '**The first-run panel', 'working folder', '**The conversation**', 'approval card']) expect(section).toContain(seen);
    // The CLI table is no longer most of the README: a paragraph and a link.
    expect(README).not.toContain('| command | what it does |');
    expect(README).toContain('[docs/cli.md](docs/cli.md)');
  });

  it('lists each CLI command once (docs/cli.md)', () => {
    const rows = commandRows();
    expect(rows.length).toBeGreaterThan(15);
    expect(rows.filter((r, i) => rows.indexOf(r) !== i)).toEqual([]);
  });

  it('describes the four journeys with their prerequisites', () => {
    const at = README.indexOf('## The four journeys and what each needs');
    expect(at).toBeGreaterThan(-1);
    const section = README.slice(at, README.indexOf('\n## ', at + 1));
    for (const journey of ['**Chat and tools**', '**Reminders and scheduled prompts**', '**Computer use**', '**Compositions**']) expect(section).toContain(journey);
    for (const need of ['`atd`', 'notification server', 'X11 session', 'AT-SPI accessibility bus', 'bubblewrap']) expect(section).toContain(need);
  });

  it('says how to stop the app and what the allowScripts notice means', () => {
    expect(README).toMatch(/\*\*Stopping it:\*\* one Ctrl-C/);
    expect(README).toContain('`allowScripts`');
    expect(README).toContain('npm approve-scripts');
  });
});
