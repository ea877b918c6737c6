/** The protocol rules that need no model: scope globs, overlap, plan checks, and the approval engine's scope inspector. */
import { afterEach, describe, expect, it } from 'vitest';
import { globsOverlap, inScope, relativeTo } from '../../src/main/services/tower/scope';
import { missionScopeHold } from '../../src/main/tools/tower/hold';
import { TowerService } from '../../src/main/services/tower/tower-service';
import { Store } from '../../src/main/services/store/store';
import { tempDir } from '../support/tool-context';
import type { DecisionInput, Facts } from '../../src/main/runtime/decision/approval-engine';

describe('scope globs', () => {
  it('match paths inside one mission', () => {
    expect(inScope('src/api/x.ts', ['src/api/**'])).toBe(true);
    expect(inScope('src/api/deep/x.ts', ['src/api/**'])).toBe(true);
    expect(inScope('src/apix/x.ts', ['src/api/**'])).toBe(false);
    expect(inScope('docs/a.md', ['docs/*.md'])).toBe(true);
    expect(inScope('docs/sub/a.md', ['docs/*.md'])).toBe(false);
    expect(inScope('src/x.ts', ['**/*.ts'])).toBe(true);
  });

  it('overlap when some path could match both', () => {
    expect(globsOverlap('src/**', 'src/api/**')).toBe(true);
    expect(globsOverlap('src/a/**', 'src/b/**')).toBe(false);
    expect(globsOverlap('src/*.ts', 'src/*.css')).toBe(false);
    expect(globsOverlap('README.md', '*.md')).toBe(true);
    expect(globsOverlap('README.md', 'src/**')).toBe(false);
  });

  it('relates absolute paths to a root', () => {
    expect(relativeTo('/w/t', '/w/t/src/a.ts')).toBe('src/a.ts');
    expect(relativeTo('/w/t', '/w/other/a.ts')).toBeNull();
  });
});

describe('tower plans', () => {
  let store: Store | null = null;
  afterEach(() => store?.close());
  const tower = () => {
    const dataDir = tempDir('deskhand-data-');
    store = new Store(dataDir);
    return new TowerService({ store, subagents: {} as never, dataDir });
  };

  it('refuses overlapping scopes, unknown and cyclic dependencies, whole-repository scopes, with what to fix', () => {
    const t = tower();
    const m = (id: string, scope: string[], depends?: string[]) => ({ id, title: id, scope, tasks: ['x'], ...(depends ? { depends } : {}) });
    expect(() => t.checkPlan([m('a', ['src/**']), m('b', ['src/b/**'])])).toThrow(/missions a and b overlap: "src\/\*\*" and "src\/b\/\*\*"/);
    expect(() => t.checkPlan([m('a', ['src/a/**'], ['z'])])).toThrow(/depends on "z", which is not another mission/);
    expect(() => t.checkPlan([m('a', ['src/a/**'], ['b']), m('b', ['src/b/**'], ['a'])])).toThrow(/cycle/);
    expect(() => t.checkPlan([m('a', ['**'])])).toThrow(/whole repository/);
    expect(() => t.checkPlan([m('a', ['../x/**'])])).toThrow(/may not contain \.\./);
    expect(t.checkPlan([m('a', ['src/a/**']), m('b', ['src/b/**'], ['a'])])).toContain('after: a');
  });

  it('tower tools need a session, and only the tower may plan', () => {
    const t = tower();
    expect(() => t.plan('conv-x', [])).toThrow(/No active Tower session here/);
  });
});

describe('the mission-scope inspector', () => {
  it('denies writes outside the held scope and passes those inside, for the held conversation only', () => {
    const held = { root: '/tmp/wt', globs: ['src/a/**'], mission: 'a' };
    const facts = { paths: [] } as unknown as Facts;
    const hold = missionScopeHold({ scopeOf: (id) => (id === 'worker-conv' ? held : null) });
    const missionScopeInspector = { inspect: (input: DecisionInput, f: Facts) => hold.inspect!(input, f, hold.stateOf({ conversationId: input.ctx.conversationId!, slots: {} })) };
    const input = (conversationId: string, path: string) =>
      ({ effects: { paths: { write: [path] } }, ctx: { cwd: '/tmp/wt', workspaceRoots: ['/tmp/wt'], dataDir: '/d', conversationId } }) as unknown as DecisionInput;
    expect(missionScopeInspector.inspect(input('worker-conv', 'src/a/x.ts'), facts).verdict).toBe('pass');
    const denied = missionScopeInspector.inspect(input('worker-conv', 'src/b/x.ts'), facts);
    expect(denied.verdict).toBe('deny');
    expect(denied.reasons[0]).toMatch(/mission a may change only src\/a\/\*\*/);
    expect(missionScopeInspector.inspect(input('worker-conv', '/etc/passwd'), facts).verdict).toBe('deny');
    expect(missionScopeInspector.inspect(input('worker-conv', '.git/config'), facts).verdict).toBe('deny');
    expect(missionScopeInspector.inspect(input('other-conv', 'src/b/x.ts'), facts).verdict).toBe('pass');
  });
});
