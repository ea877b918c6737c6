/**
 * Agent definitions end to end through the built CLI (issue 47 item 3, docs/subagents-context.md): a Markdown file
 * with front matter becomes a subagent type. What the scripted model server receives proves it: the child's request
 * carries the definition's instructions (a project's inside an untrusted envelope), only the tools it names of those
 * its parent has, and its model.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { reply, type OpenAIChatRequest } from '../support/model-server';
import { useCliWorld } from '../support/cli';

const w = useCliWorld('agents');
const req = (i: number) => w.server.requests[i]!.body as OpenAIChatRequest;
const system = (i: number) => JSON.stringify(req(i).messages.filter((m) => m.role === 'system' || m.role === 'developer'));
const toolNames = (i: number) => (req(i).tools ?? []).map((t) => t.function.name).sort();

function define(dir: string, file: string, text: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), text);
}

it('a person\'s definition: the child gets its instructions, only its tools (by Claude Code\'s names) and its model', async () => {
  // browser_navigate: a tool the parent does not have (the browser family is off) — a definition cannot add it.
  define(join(w.dataDir, 'agents'), 'reviewer.md', '---\nname: reviewer\ndescription: Reviews code for bugs\ntools: Read, Grep, browser_navigate, spawn_subagent\nmodel: child-model-7\n---\nYou are a meticulous reviewer. Reviewer-Marker-55\n');
  w.server.enqueue(reply().tool('spawn_subagent', { prompt: 'Review a.ts', description: 'review a.ts', type: 'reviewer' }));
  w.server.enqueue(reply().text('no bugs'));
  w.server.enqueue(reply().text('All done.'));
  const r = await w.run('review it');
  expect(r.code, r.stderr).toBe(0);
  // The parent is told which definitions it may name.
  expect(system(0)).toContain('- reviewer: Reviews code for bugs');
  expect(system(0)).not.toContain('Reviewer-Marker-55');
  // The child: the definition's instructions as the person's own text, its tools, its model.
  expect(system(1)).toContain('You are a meticulous reviewer. Reviewer-Marker-55');
  expect(system(1)).not.toMatch(/<untrusted source=\\"project agent/);
  expect(toolNames(1)).toEqual(['grep', 'read_file']);
  expect(req(1).model).toBe('child-model-7');
  expect(req(0).model).toBe('m');
  expect(JSON.stringify(req(2).messages)).toContain('no bugs');
}, 120_000);

it('a Claude Code project definition (.claude/agents, compatibility on) reaches the child as untrusted content and keeps its parent\'s model', async () => {
  expect((await w.cli(['compat', 'on', '--cwd', w.work, '--data-dir', w.dataDir])).code).toBe(0);
  define(join(w.work, '.claude', 'agents'), 'test-runner.md', '---\nname: test-runner\ndescription: Use proactively to run tests\ntools: Bash(npm test:*), Glob\nmodel: inherit\n---\nRun the tests and fix failures. Proj-Agent-Marker-12\n');
  w.server.enqueue(reply().tool('spawn_subagent', { prompt: 'Run the tests', description: 'run tests', type: 'test-runner' }));
  w.server.enqueue(reply().text('tests pass'));
  w.server.enqueue(reply().text('All done.'));
  const r = await w.run('run the tests');
  expect(r.code, r.stderr).toBe(0);
  // The parent sees the project's definition by name only (its description is the project's text).
  expect(system(0)).toContain('- test-runner (the project\'s,');
  expect(system(0)).not.toContain('Use proactively');
  expect(system(1)).toMatch(/<untrusted source=\\"project agent definition [^>]*test-runner\.md[^>]*>\\nRun the tests and fix failures\. Proj-Agent-Marker-12/);
  expect(toolNames(1)).toEqual(['execute_command', 'find']);
  expect(req(1).model).toBe('m');
}, 120_000);

it('an unknown type is refused with the types the model can use', async () => {
  define(join(w.dataDir, 'agents'), 'helper.md', '---\ndescription: helps\n---\nHelp.\n');
  w.server.enqueue(reply().tool('spawn_subagent', { prompt: 'x', description: 'x', type: 'nobody' }));
  w.server.enqueue(reply().text('ok'));
  const r = await w.run('go');
  expect(r.code, r.stderr).toBe(0);
  expect(w.server.requests).toHaveLength(2);
  expect(JSON.stringify(req(1).messages)).toMatch(/No subagent type \\"nobody\\": use coder, explore, general, researcher, helper/);
}, 120_000);

it('deskhand agents list shows the person\'s and the folder\'s definitions', async () => {
  define(join(w.dataDir, 'agents'), 'reviewer.md', '---\nname: reviewer\ndescription: Reviews code\ntools: Read\n---\nReview.\n');
  define(join(w.work, '.deskhand', 'agents'), 'explore.md', '---\nname: explore\n---\nShadow the built-in.\n');
  define(join(w.work, '.deskhand', 'agents'), 'docs.md', '---\ndescription: Writes docs\n---\nWrite docs.\n');
  const r = await w.cli(['agents', 'list', '--cwd', w.work, '--data-dir', w.dataDir]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('reviewer  Reviews code  (tools: Read)');
  expect(r.stdout).toContain('docs  Writes docs  (project: its instructions reach the child as untrusted content)');
  expect(r.stdout).toContain('"explore" is a built-in type; the built-in is used');
  const json = await w.cli(['agents', 'list', '--cwd', w.work, '--data-dir', w.dataDir, '--json']);
  expect(JSON.parse(json.stdout).agents.map((a: { name: string; origin: string }) => `${a.name} ${a.origin}`)).toEqual(['docs project', 'reviewer person']);
}, 120_000);
