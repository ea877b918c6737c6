/**
 * The host's groups stack (issue 32; eslint.config.js HOST_GROUPS, docs/architecture.md "The host"): assembly →
 * background → app → peers → web → acp → cli, each importing only the groups below it, type imports included. These feed ESLint
 * source placed in each group and check every upward import is refused, every downward one accepted, and that the
 * group rules did not drop the Electron rule every host file has.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function restricted(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

// The groups, bottom first (as eslint.config.js and docs/architecture.md stack them), and one real module of each.
const HOST_GROUPS = ['assembly', 'background', 'app', 'peers', 'web', 'acp', 'cli'];
const MODULE: Record<string, string> = {
  assembly: 'open-runtime',
  background: 'task-wakes',
  app: 'app-service',
  peers: 'peers-serve',
  web: 'web-host',
  acp: 'acp-agent',
  cli: 'flags',
};

describe('host groups', () => {
  const pairs = HOST_GROUPS.flatMap((from, i) => HOST_GROUPS.map((to, j) => ({ from, to, upward: j > i })).filter((p) => p.from !== p.to));

  it.each(pairs.filter((p) => p.upward))('refuse host/$from/ importing host/$to/ (value and type imports)', async ({ from, to }) => {
    const file = `src/main/host/${from}/example.ts`;
    const value = await restricted(file, `import { x } from '../${to}/${MODULE[to]}';\nvoid x;\n`);
    expect(value.join('\n')).toMatch(new RegExp(`host/${from}/ sits below .*host/${to}/`));
    const type = await restricted(file, `import type { X } from '../${to}/${MODULE[to]}';\nexport type Y = X;\n`);
    expect(type.join('\n')).toMatch(/sits below/);
    const reexport = await restricted(file, `export { x } from '../${to}/${MODULE[to]}';\n`);
    expect(reexport.join('\n')).toMatch(/sits below/);
  });

  it.each(pairs.filter((p) => !p.upward))('accept host/$from/ importing host/$to/', async ({ from, to }) => {
    expect(await restricted(`src/main/host/${from}/example.ts`, `import { x } from '../${to}/${MODULE[to]}';\nvoid x;\n`)).toEqual([]);
  });

  it('accept a group importing its own files and the layers below (a tool family named like a group is no group)', async () => {
    expect(await restricted('src/main/host/assembly/example.ts', "import { NEEDS_KEY } from '../../tools/web/search-backends';\nimport { x } from './open-runtime';\nvoid NEEDS_KEY; void x;\n")).toEqual([]);
    expect(await restricted('src/main/host/background/example.ts', "import { x } from '../../services/tasks/task-text';\nvoid x;\n")).toEqual([]);
  });

  it('keep the Electron rule in every group', async () => {
    for (const group of HOST_GROUPS) {
      expect((await restricted(`src/main/host/${group}/example.ts`, "import { app } from 'electron';\nvoid app;\n")).join('\n'), group).toMatch(/Only src\/main\/electron may import electron/);
    }
  });

  it('hold for the tree as it stands', async () => {
    const results = await new ESLint({ cwd: process.cwd(), ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports' }).lintFiles(['src/main/host']);
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}:${m.line} ${m.message}`))).toEqual([]);
  }, 120_000);
});
