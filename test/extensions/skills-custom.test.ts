/**
 * Skills (found, loaded, sectioned; only descriptions until loaded) and custom tools from custom-tools.json through
 * the real runtime: a custom tool's argument `; rm -rf ~` arrives as one literal argument (written by the program
 * itself to a file) and nothing else ran (a canary in HOME survives); the call is classified like execute_command and
 * runs in the sandbox. The project MCP file starts its servers only after the person approved it once.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AppRuntime } from '../../src/main/host/assembly/open-runtime';
import { parseSkill, sections } from '../../src/main/tools/extensions/skills';
import { buildArgv, commandLine } from '../../src/main/tools/extensions/custom-tools';
import { reply, startModelServer, type ModelServer } from '../support/model-server';
import { tempDir } from '../support/tool-context';
import { FAKE, closeTestWorld, makeRuntime, offeredTools, providerFor, toolResults } from './helpers';

let model: ModelServer;
let runtime: AppRuntime | null = null;
beforeEach(async () => {
  model = await startModelServer();
});
afterEach(async () => {
  await closeTestWorld(runtime, model);
  runtime = null;
});

const SKILL = `---
name: release-notes
description: "Write release notes from the git log, grouped by kind"
---
# Release notes

Intro text.

## Gather
Run git log since the last tag.

### Filters
Skip merge commits.

## Format
Group by feat/fix. SECRET-BODY-MARKER
`;

it('finds skills by description, loads one, loads one section; bodies stay out of context until loaded', async () => {
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  mkdirSync(join(dataDir, 'skills', 'release-notes'), { recursive: true });
  writeFileSync(join(dataDir, 'skills', 'release-notes', 'SKILL.md'), SKILL);
  mkdirSync(join(work, '.deskhand', 'skills', 'lint'), { recursive: true });
  writeFileSync(join(work, '.deskhand', 'skills', 'lint', 'SKILL.md'), '---\nname: lint\ndescription: Run the linters of this repo\n---\n## Steps\nnpm run lint\n');
  runtime = makeRuntime(dataDir);
  model.enqueue(
    reply().tool('find_skills', {}).tool('find_skills', { query: 'git log' }),
    reply().tool('load_skill', { name: 'release-notes' }),
    reply().tool('load_skill_section', { name: 'release-notes', section: 'Gather' }).tool('load_skill_section', { name: 'release-notes', section: 'Nope' }),
    reply().text('done'),
  );
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  runtime.setFamilies(conv.id, ['skills', 'custom', 'mcp'], true); // loaded from the first request, as a person enabling them would
  expect((await runtime.sendMessage(conv.id, 'notes', { provider: providerFor(model), interactive: false })).status).toBe('finished');
  const [all, found] = toolResults(model, 1);
  // A listing that holds a workspace skill is the workspace's content: untrusted. One of the person's own is not.
  expect(all).toMatch(/^<untrusted source="workspace skill [^"]*lint\/SKILL\.md"/);
  expect(all).toContain('lint (workspace): Run the linters of this repo\nrelease-notes (user): Write release notes from the git log, grouped by kind');
  expect(found).toBe('release-notes (user): Write release notes from the git log, grouped by kind');
  expect(JSON.stringify(model.requests[1]!.body)).not.toContain('SECRET-BODY-MARKER');
  const loaded = toolResults(model, 2).at(-1)!;
  expect(loaded).toContain('Sections:\n- Release notes\n  - Gather\n    - Filters\n  - Format');
  expect(loaded).toContain('SECRET-BODY-MARKER');
  const [section, missing] = toolResults(model, 3).slice(-2);
  expect(section).toBe('## Gather\nRun git log since the last tag.\n\n### Filters\nSkip merge commits.');
  expect(missing).toContain('Skill release-notes has no section "Nope". Sections: Release notes, Gather, Filters, Format');
});

it('parses front matter and sections (headings inside code fences are not sections)', () => {
  const { meta, body } = parseSkill('---\nname: x\ndescription: \'quoted\'\n---\n## A\n```\n## not a heading\n```\n## B\n');
  expect(meta).toEqual({ name: 'x', description: 'quoted' });
  expect(sections(body).map((s) => s.title)).toEqual(['A', 'B']);
});

it('a custom tool passes `; rm -rf ~` as one literal argument: nothing else runs', async () => {
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  const home = tempDir('deskhand-home-');
  writeFileSync(join(home, 'canary'), 'alive');
  const dump = join(work, 'argv-dump.mjs');
  writeFileSync(dump, "import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], JSON.stringify(process.argv.slice(3)));\nconsole.log('wrote', process.argv.length - 3, 'arguments');\n");
  writeFileSync(
    join(dataDir, 'custom-tools.json'),
    JSON.stringify({
      tools: [
        {
          name: 'note_args',
          description: 'Record the arguments it gets.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' }, more: { type: 'array', items: { type: 'string' } } }, required: ['text'] },
          command: [process.execPath, dump, join(work, 'argv.json'), '{text}', '--', '{more}'],
          tier: 'low-risk',
        },
      ],
    }),
  );
  const evil = '; rm -rf ~';
  const oldHome = process.env.HOME;
  process.env.HOME = home;
  try {
    runtime = makeRuntime(dataDir);
    model.enqueue(reply().tool('note_args', { text: evil, more: ['$(touch pwned)', "it's `x`"] }), reply().text('done'));
    const conv = runtime.createConversation({ folder: work, policy: 'low-risk' });
    runtime.setFamilies(conv.id, ['skills', 'custom', 'mcp'], true); // loaded from the first request, as a person enabling them would
    const outcome = await runtime.sendMessage(conv.id, 'note', { provider: providerFor(model), interactive: false });
    expect(outcome.status).toBe('finished');
    expect(offeredTools(model, 0).find((t) => t.name === 'note_args')!.description).toContain('Record the arguments it gets.');
    const result = toolResults(model, 1).at(-1)!;
    expect(result).toMatch(/exit code: 0[\s\S]*sandbox: [\s\S]*wrote 4 arguments/);
    expect(JSON.parse(readFileSync(join(work, 'argv.json'), 'utf8'))).toEqual([evil, '--', '$(touch pwned)', "it's `x`"]);
    expect(readFileSync(join(home, 'canary'), 'utf8')).toBe('alive');
    expect(existsSync(join(work, 'pwned'))).toBe(false);
  } finally {
    process.env.HOME = oldHome;
  }
}, 30_000);

it('custom tool commands are quoted whole and classified by the shell classifier (a sensitive path asks)', async () => {
  expect(commandLine(buildArgv(['cat', '{path}'], { path: "a'b; rm -rf ~" }))).toBe(`'cat' 'a'\\''b; rm -rf ~'`);
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  writeFileSync(join(dataDir, 'custom-tools.json'), JSON.stringify({ tools: [{ name: 'show', description: 'Show a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } }, command: ['cat', '{path}'], tier: 'read-only' }] }));
  runtime = makeRuntime(dataDir);
  // (A private key itself, ~/.ssh/id_rsa, is refused outright by the command denylist: test/security/command-denylist.test.ts.)
  model.enqueue(reply().tool('show', { path: `${process.env.HOME}/.aws/credentials` }), reply().text('done'));
  const conv = runtime.createConversation({ folder: work, policy: 'high-risk' });
  runtime.setFamilies(conv.id, ['skills', 'custom', 'mcp'], true); // loaded from the first request, as a person enabling them would
  const outcome = await runtime.sendMessage(conv.id, 'show', { provider: providerFor(model), interactive: false });
  expect(outcome.status).toBe('parked');
  const approval = runtime.store.getApproval(outcome.approvalIds[0]!)!;
  expect(approval.tool).toBe('show');
  expect(approval.reasons).toMatch(/aws|sensitive|outside/i);
});

it('a project .deskhand/mcp.json starts its servers only after the person approved that exact file', async () => {
  const dataDir = tempDir('deskhand-data-');
  const work = tempDir('deskhand-work-');
  mkdirSync(join(work, '.deskhand'));
  const file = join(work, '.deskhand', 'mcp.json');
  // The server's script lives in the workspace: a project server runs in the OS sandbox, which has its own /tmp and
  // shows the workspace, so a script from this repository's checkout (which may itself sit under /tmp) is not there.
  const script = join(work, 'fake-mcp-server.mjs');
  copyFileSync(FAKE, script);
  writeFileSync(file, JSON.stringify({ mcpServers: { proj: { command: process.execPath, args: [script, 'ok'], tier: 'read-only' } } }));
  runtime = makeRuntime(dataDir);
  await runtime.startMcp(work);
  expect(runtime.mcp.server('proj')).toBeUndefined(); // not trusted yet: nothing started
  model.enqueue(reply().tool('enable_project_mcp_servers', { folder: work }), reply().tool('mcp__proj__probe', {}), reply().text('done'));
  const conv = runtime.createConversation({ folder: work, policy: 'read-only' });
  runtime.setFamilies(conv.id, ['skills', 'custom', 'mcp'], true); // loaded from the first request, as a person enabling them would
  const parked = await runtime.sendMessage(conv.id, 'use the project servers', { provider: providerFor(model), interactive: false });
  expect(parked.status).toBe('parked');
  const request = runtime.store.getApproval(parked.approvalIds[0]!)!;
  expect(request.kind).toBe('mcp_project');
  expect(JSON.stringify(request)).toContain(`runs ${process.execPath} ${script} ok`);
  let done = (await runtime.answerRequest(request.id, { approved: true }, { provider: providerFor(model), interactive: false }))!;
  // The project server's tool is egress after an untrusted result: it asks once more.
  while (done.status === 'parked') done = (await runtime.decideApproval(done.approvalIds[0]!, { approved: true }, { provider: providerFor(model), interactive: false }))!;
  expect(done.status).toBe('finished');
  expect(toolResults(model, 1).at(-1)).toMatch(/proj: connected, 1 tools/);
  expect(toolResults(model, 2).at(-1)).toMatch(/<untrusted source="mcp proj probe"[\s\S]*fine/);

  // Another process over the same data starts the trusted file's servers itself; a changed file is untrusted again.
  await runtime.mcp.close();
  const second = makeRuntime(dataDir);
  try {
    await second.startMcp(work);
    expect(second.mcp.server('proj')?.health.status).toBe('connected');
    await second.mcp.close();
    writeFileSync(file, JSON.stringify({ mcpServers: { proj: { command: '/bin/sh', args: ['-c', 'evil'] } } }));
    await second.startMcp(work);
    expect(second.mcp.server('proj')).toBeUndefined();
    expect(second.mcp.projectFile(work).trusted).toBe(false);
  } finally {
    await second.mcp.close();
    second.store.close();
  }
}, 30_000);
