/**
 * Plugin commands and agents are namespaced as Claude Code does (issue 47, docs/plugins.md "Names"): plugin kit's
 * `hello` is `/kit:hello`; the bare `/hello` runs it too while no one else's command has that name. A clash — with
 * the person's or the project's command, or between two plugins — resolves the same way every time (the person's,
 * then the project's, then plugins in label order) and is reported. Proved by what each typed name expands to.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { GuardedContentReader } from '../../src/main/runtime/context/content-reader';
import { CommandCatalog } from '../../src/main/services/commands';
import { AgentCatalog } from '../../src/main/services/agents';
import { SUBAGENT_TYPE_NAME } from '../../src/main/services/subagents/profiles';
import { tempDir } from '../support/tool-context';

let dataDir: string;
let work: string;
let kit: string;
let tools: string;

const put = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

beforeEach(() => {
  dataDir = tempDir('deskhand-ns-data-');
  work = tempDir('deskhand-ns-work-');
  kit = tempDir('deskhand-ns-kit-');
  tools = tempDir('deskhand-ns-tools-');
});

describe('commands', () => {
  const catalog = () =>
    new CommandCatalog({
      dataDir,
      reader: new GuardedContentReader({ dataDir }),
      // Given out of label order: the catalog orders them itself.
      folders: () => [
        { dir: join(tools, 'commands'), plugin: 'tools@beta' },
        { dir: join(kit, 'commands'), plugin: 'kit@acme' },
      ],
    });
  /** Which file a typed name runs: its body's marker, or null when it is sent as typed. */
  const runs = (typed: string) => catalog().expand(`/${typed} x`, [work])?.text.split('\n')[0] ?? null;

  it.each([
    // typed, what it runs, the situation
    ['kit:hello', 'KIT-HELLO', 'a plugin command by its full name'],
    ['hello', 'KIT-HELLO', 'its bare name, shared with another plugin: the first in label order (kit@acme before tools@beta)'],
    ['tools:hello', 'TOOLS-HELLO', 'the other plugin\'s by its full name'],
    ['only', 'TOOLS-ONLY', 'a bare name only one plugin has'],
    ['tools:only', 'TOOLS-ONLY', 'the same by its full name'],
    ['review', 'MY-REVIEW', 'the person\'s name wins the bare name over a plugin\'s'],
    ['kit:review', 'KIT-REVIEW', 'the plugin\'s stays reachable by its full name'],
    ['ship', 'PROJECT-SHIP', 'the project\'s name wins the bare name over a plugin\'s'],
    ['kit:ship', 'KIT-SHIP', 'and the plugin\'s by its full name'],
    ['kit:deploy:prod', 'KIT-DEPLOY', 'a plugin subfolder command: plugin:folder:name'],
    ['deploy:prod', 'KIT-DEPLOY', 'its bare name'],
    ['KIT:HELLO', null, 'names are case-sensitive'],
    ['kit', null, 'a plugin\'s name alone is no command'],
    ['nobody:hello', null, 'a namespace no plugin has'],
  ] as [string, string | null, string][])('/%s runs %s (%s)', (typed, marker) => {
    put(join(kit, 'commands', 'hello.md'), 'KIT-HELLO\n');
    put(join(kit, 'commands', 'review.md'), 'KIT-REVIEW\n');
    put(join(kit, 'commands', 'ship.md'), 'KIT-SHIP\n');
    put(join(kit, 'commands', 'deploy', 'prod.md'), 'KIT-DEPLOY\n');
    put(join(tools, 'commands', 'hello.md'), 'TOOLS-HELLO\n');
    put(join(tools, 'commands', 'only.md'), 'TOOLS-ONLY\n');
    put(join(dataDir, 'commands', 'review.md'), 'MY-REVIEW\n');
    put(join(work, '.deskhand', 'commands', 'ship.md'), 'PROJECT-SHIP\n');
    expect(runs(typed)).toBe(marker);
  });

  it('lists plugin commands by their full names, with the bare name where it works, and reports each clash', () => {
    put(join(kit, 'commands', 'hello.md'), 'KIT-HELLO\n');
    put(join(kit, 'commands', 'review.md'), 'KIT-REVIEW\n');
    put(join(tools, 'commands', 'hello.md'), 'TOOLS-HELLO\n');
    put(join(dataDir, 'commands', 'review.md'), 'MY-REVIEW\n');
    // A project subfolder kit/ spells the plugin's full name: the plugin's (the person's install) is used.
    put(join(work, '.deskhand', 'commands', 'kit', 'hello.md'), 'PROJECT-KIT-HELLO\n');
    const { commands, notes } = catalog().scan([work]);
    expect(commands.map((c) => `${c.name}${c.alias ? `=${c.alias}` : ''}`)).toEqual(['kit:hello=hello', 'kit:review', 'review', 'tools:hello']);
    expect(notes).toEqual([
      `/kit:hello: plugin kit@acme's is used; ${join(work, '.deskhand', 'commands', 'kit', 'hello.md')} is not`,
      '/review: yours is used; plugin kit@acme\'s is /kit:review',
      '/hello: plugin kit@acme\'s is used; plugin tools@beta\'s is /tools:hello',
    ]);
    expect(catalog().expand('/kit:hello x', [work])?.text).toContain('KIT-HELLO');
  });
});

describe('a plugin whose name holds a dot (plugin names allow letters, digits, ., _ and -)', () => {
  const catalog = () =>
    new CommandCatalog({ dataDir, reader: new GuardedContentReader({ dataDir }), folders: () => [{ dir: join(kit, 'commands'), plugin: 'acme.kit@acme' }] });

  it.each([
    ['acme.kit:hello', 'DOT-HELLO', 'its full name, dot and all'],
    ['acme.kit:deploy:prod', 'DOT-DEPLOY', 'a subfolder command by its full name'],
    ['hello', 'DOT-HELLO', 'the bare name'],
    ['acme.kit', null, 'the plugin\'s name alone is no command'],
    ['acme:hello', null, 'half its name is another namespace'],
    ['.kit:hello', null, 'a name cannot start with a dot'],
  ] as [string, string | null, string][])('/%s runs %s (%s)', (typed, marker) => {
    put(join(kit, 'commands', 'hello.md'), 'DOT-HELLO\n');
    put(join(kit, 'commands', 'deploy', 'prod.md'), 'DOT-DEPLOY\n');
    expect(catalog().expand(`/${typed} x`, [work])?.text.split('\n')[0] ?? null).toBe(marker);
    expect(catalog().scan([work]).commands.map((c) => c.name)).toEqual(['acme.kit:deploy:prod', 'acme.kit:hello']);
  });

  it('its agent definitions are types the spawn tools take: acme.kit:helper', () => {
    put(join(kit, 'agents', 'helper.md'), '---\nname: helper\ndescription: DOT-HELPER\n---\nDOT-HELPER\n');
    const agents = new AgentCatalog({ dataDir, reader: new GuardedContentReader({ dataDir }), folders: () => [{ dir: join(kit, 'agents'), origin: 'plugin', plugin: 'acme.kit@acme' }] });
    expect(agents.get('acme.kit:helper', [work])?.prompt).toBe('DOT-HELPER');
    for (const ok of ['acme.kit:helper', 'helper', 'kit:helper']) expect(SUBAGENT_TYPE_NAME.test(ok), ok).toBe(true);
    for (const bad of ['.kit:helper', 'acme.kit:hel.per', 'acme kit:helper', 'a:b:c']) expect(SUBAGENT_TYPE_NAME.test(bad), bad).toBe(false);
  });

  it('a path typed as a message is not taken for a command', () => {
    put(join(kit, 'commands', 'hello.md'), 'DOT-HELLO\n');
    for (const typed of ['/etc/hosts has a typo', '/hello.md', '/acme.kit:hello.md x']) expect(catalog().expand(typed, [work])).toBeNull();
  });
});

describe('agents', () => {
  const catalog = () =>
    new AgentCatalog({
      dataDir,
      reader: new GuardedContentReader({ dataDir }),
      folders: () => [
        { dir: join(tools, 'agents'), origin: 'plugin', plugin: 'tools@beta' },
        { dir: join(kit, 'agents'), origin: 'plugin', plugin: 'kit@acme' },
      ],
    });
  const agent = (name: string, marker: string) => `---\nname: ${name}\ndescription: ${marker}\n---\n${marker}\n`;

  it.each([
    ['kit:helper', 'KIT-HELPER'],
    ['helper', 'KIT-HELPER'],
    ['tools:helper', 'TOOLS-HELPER'],
    ['reviewer', 'MY-REVIEWER'],
    ['kit:reviewer', 'KIT-REVIEWER'],
    ['kit:explore', 'KIT-EXPLORE'],
    ['explore', null],
    ['nobody:helper', null],
  ] as [string, string | null][])('type %s is %s', (type, marker) => {
    put(join(kit, 'agents', 'helper.md'), agent('helper', 'KIT-HELPER'));
    put(join(kit, 'agents', 'reviewer.md'), agent('reviewer', 'KIT-REVIEWER'));
    put(join(kit, 'agents', 'explore.md'), agent('explore', 'KIT-EXPLORE'));
    put(join(tools, 'agents', 'helper.md'), agent('helper', 'TOOLS-HELPER'));
    put(join(dataDir, 'agents', 'reviewer.md'), agent('reviewer', 'MY-REVIEWER'));
    // 'explore' alone stays the built-in type (the catalog has no definition by that name).
    expect(catalog().get(type, [work])?.prompt ?? null).toBe(marker);
  });

  it('reports the bare names a plugin\'s definition cannot have', () => {
    put(join(kit, 'agents', 'helper.md'), agent('helper', 'KIT-HELPER'));
    put(join(kit, 'agents', 'explore.md'), agent('explore', 'KIT-EXPLORE'));
    put(join(tools, 'agents', 'helper.md'), agent('helper', 'TOOLS-HELPER'));
    const { agents, notes } = catalog().scan([work]);
    expect(agents.map((a) => `${a.name}${a.alias ? `=${a.alias}` : ''}`)).toEqual(['kit:explore', 'kit:helper=helper', 'tools:helper']);
    expect(notes).toEqual([
      `${join(kit, 'agents', 'explore.md')}: "explore" is the built-in type; give "kit:explore" for plugin kit@acme's`,
      `${join(tools, 'agents', 'helper.md')}: "helper" is plugin kit@acme's; give "tools:helper" for plugin tools@beta's`,
    ]);
  });
});
