/**
 * Slash commands end to end through the built CLI (issue 47, docs/commands.md): a person's command and a Claude Code
 * user's `.claude/commands/` file (Claude Code compatibility on for the folder), run as `deskhand run "/name …"` against the scripted model server. What the model
 * receives proves the expansion: `$1`, `$ARGUMENTS`, the person's words as they are, a project's inside an untrusted
 * envelope.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useCliWorld } from '../support/cli';

const w = useCliWorld('commands');
const firstRequest = () => JSON.stringify(w.server.requests[0]!.body);
/** The person's message as the model got it (the system prompt mentions envelopes itself). */
const userMessage = () => JSON.stringify((w.server.requests[0]!.body as { messages: { role: string; content: unknown }[] }).messages.filter((m) => m.role === 'user'));

function personalCommand(): void {
  mkdirSync(join(w.dataDir, 'commands'), { recursive: true });
  writeFileSync(join(w.dataDir, 'commands', 'review.md'), '---\ndescription: Review a file\nargument-hint: FILE [FOCUS]\nallowed-tools: Bash(git diff:*)\n---\nReview $1 carefully. All: $ARGUMENTS. Marker-Cmd-81\n');
}

async function claudeCommand(): Promise<void> {
  // Claude Code compatibility on for the folder: its .claude/commands are read (off by default).
  expect((await w.cli(['compat', 'on', '--cwd', w.work, '--data-dir', w.dataDir])).code).toBe(0);
  // A Claude Code user's file, in the shape its documentation gives (a subfolder namespaces it).
  mkdirSync(join(w.work, '.claude', 'commands', 'frontend'), { recursive: true });
  writeFileSync(join(w.work, '.claude', 'commands', 'frontend', 'component.md'), '---\ndescription: Create a React component\nargument-hint: [name]\nmodel: claude-3-5-haiku-20241022\n---\n# Component\nCreate the component $ARGUMENTS following our conventions. Proj-Cmd-Marker-29\n');
}

it('a person\'s /review fills $1 and $ARGUMENTS and reaches the model as the person\'s words', async () => {
  personalCommand();
  const r = await w.run('/review src/a.ts "the error paths"');
  expect(r.code, r.stderr).toBe(0);
  expect(firstRequest()).toContain('Review src/a.ts carefully. All: src/a.ts \\"the error paths\\". Marker-Cmd-81');
  expect(userMessage()).not.toContain('<untrusted');
}, 120_000);

it('a .claude/commands file of a cloned folder runs as /frontend:component, inside an untrusted envelope', async () => {
  await claudeCommand();
  const r = await w.run('/frontend:component Button');
  expect(r.code, r.stderr).toBe(0);
  expect(firstRequest()).toMatch(/<untrusted source=\\"project command \/frontend:component[^>]*>\\n# Component\\nCreate the component Button following our conventions\. Proj-Cmd-Marker-29/);
}, 120_000);

it('an unknown /name and a path are sent as typed', async () => {
  personalCommand();
  const r = await w.run('/nope keep this');
  expect(r.code, r.stderr).toBe(0);
  expect(firstRequest()).toContain('/nope keep this');
  expect(firstRequest()).not.toContain('Marker-Cmd-81');
}, 120_000);

it('deskhand commands list shows the person\'s and the folder\'s commands', async () => {
  personalCommand();
  await claudeCommand();
  const r = await w.cli(['commands', 'list', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('/review FILE [FOCUS]  Review a file');
  expect(r.stdout).toContain('/frontend:component [name]  Create a React component  (project: sent as untrusted content)');
  const json = await w.cli(['commands', 'list', '--cwd', w.work, '--data-dir', w.dataDir, '--json']);
  expect(JSON.parse(json.stdout).map((c: { name: string; origin: string }) => `${c.name} ${c.origin}`)).toEqual(['frontend:component project', 'review person']);
}, 120_000);
