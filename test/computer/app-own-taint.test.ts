/**
 * An app's own outline does not taint input back into that same app (issue 46): a run tainted only by what
 * "zenity" shows (computer_observe's source `app zenity`) may type and click in "zenity" as a clean run may, so its
 * grant, a saved rule and the policy decide; any other source, another spelling of the app, or a second source keeps
 * the taint rule, and the reason then speaks of app grants, not URL grants. Many spellings, as a table.
 */
import { describe, expect, it } from 'vitest';
import { decideCall } from '../../src/main/runtime/decision/approval-engine';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import type { SavedRule } from '../../src/shared/rules';
import type { Policy } from '../../src/shared/tools';
import { ComputerUseService } from '../../src/main/services/computer/computer-use';
import { StoreGrantBook } from '../../src/main/services/computer/grant-book';
import { MissingOperator } from '../../src/main/services/computer/operators';
import { appGrantsModule } from '../../src/main/services/store/modules/app-grants';
import { Store } from '../../src/main/services/store/store';
import { createComputerFamily } from '../../src/main/tools/computer';
import { tempDir } from '../support/tool-context';

const dir = tempDir('deskhand-app-own-taint-');
const store = new Store(dir);
const grants = new StoreGrantBook(store.module(appGrantsModule));
// Until revoked (no time-limited grant: that one clears tainted calls on its own, grant-approval.test.ts).
for (const app of ['zenity', 'Zenity', 'gedit', 'zenity.exe']) grants.grant(app, ['observe', 'pointer', 'input', 'foreground'], null);
const computer = new ComputerUseService({ operator: new MissingOperator('test', 'no desktop'), grants, dataDir: dir });
const tools = createComputerFamily({ computer }).tools as ToolDefinition[];

const decide = (tool: string, args: Record<string, unknown>, taintOnly: string | null, o: { policy?: Policy; rules?: SavedRule[]; held?: string[]; present?: boolean } = {}) =>
  decideCall({
    tool: tools.find((t) => t.name === tool)!,
    args: tools.find((t) => t.name === tool)!.params.parse(args),
    policy: o.policy ?? 'high-risk',
    tainted: true,
    taintOnly,
    ctx: { cwd: dir, workspaceRoots: [dir], dataDir: dir },
    grants,
    heldSecrets: new Set(o.held ?? []),
    rules: o.rules ?? [],
    personPresent: o.present ?? true,
  });

const type = (app: string) => ['computer_input', { app, text: 'Ada Lovelace' }] as const;
const click = (app: string) => ['computer_pointer', { app, x: 5, y: 5, action: 'click' }] as const;
const front = (app: string) => ['computer_foreground', { app, text: 'x', key: 'Return' }] as const;

describe('the app\'s own content is not a third party\'s for input back into it', () => {
  it.each([
    // [what, call, the conversation's one source (null: several)]
    ['typing into zenity after reading zenity', type('zenity'), 'app zenity'],
    ['a click in zenity after reading zenity', click('zenity'), 'app zenity'],
    ['bringing zenity to the front and typing, after reading it', front('zenity'), 'app zenity'],
    ['the app named with spaces around (the schema trims it to the same app)', type('  zenity '), 'app zenity'],
    ['an app whose name differs only in case, read and typed alike', type('Zenity'), 'app Zenity'],
  ] as const)('%s: the taint does not ask', async (_what, [tool, args], only) => {
    const d = await decide(tool, args, only);
    expect(d.decision).toBe('allow');
    const taint = d.inspectors.find((r) => r.inspector === 'taint')!;
    expect(taint.verdict).toBe('pass');
    expect(taint.reasons.join(' ')).toMatch(/tainted only by what "[^"]+" itself shows/);
  });

  it.each([
    ['another app\'s outline', type('zenity'), 'app gedit'],
    ['the same name in another case (another app to the grant book)', type('zenity'), 'app Zenity'],
    ['the same name with an extension', type('zenity'), 'app zenity.exe'],
    ['a name that starts the same', type('zenity'), 'app zen'],
    ['a name that continues', type('zenity'), 'app zenity-helper'],
    ['a source that merely ends with the app', type('zenity'), 'peer zenity'],
    ['the app listing (every window title)', type('zenity'), 'computer_apps (window titles)'],
    ['a web page', type('zenity'), 'web_fetch https://zenity.example/'],
    ['command output', click('zenity'), 'command output'],
    ['several sources (no one source is known)', type('zenity'), null],
    ['an older spelling of the source', type('zenity'), 'computer_observe zenity'],
    ['a source with a trailing space', type('zenity'), 'app zenity '],
  ] as const)('%s: asks, and says it is about app grants', async (_what, [tool, args], only) => {
    const d = await decide(tool, args, only);
    expect(d.decision).toBe('ask');
    const why = d.reasons.join('\n');
    expect(why).toMatch(/this run has read untrusted content.*so a call that sends input into "[^"]+" asks at every tier/);
    expect(why).toMatch(/granted for a limited time/);
    expect(why).not.toMatch(/URL grant/);
    expect(why).not.toMatch(/neither sends data out/);
    expect(d.rulePattern).toBeNull();
  });

  it('with nobody present (scheduled, a wake-up, unattended) it still asks, as before', async () => {
    const d = await decide('computer_input', { app: 'zenity', text: 'x' }, 'app zenity', { present: false });
    expect(d.decision).toBe('ask');
    expect(d.reasons.join(' ')).toMatch(/untrusted content/);
  });

  it('under the default policy a saved rule for the app clears it after reading the app; a secret still asks', async () => {
    const rule: SavedRule = { id: 'r1', tool: 'computer_input', pattern: 'app:zenity' };
    const asked = await decide('computer_input', { app: 'zenity', text: 'x' }, 'app zenity', { policy: 'read-only' });
    expect(asked.decision).toBe('ask');
    // Asks only because the policy does not clear it: "always allow" offers the app's rule.
    expect(asked.rulePattern).toBe('app:zenity');
    expect(asked.reasons.join(' ')).not.toMatch(/untrusted content|neither sends data out/);
    expect((await decide('computer_input', { app: 'zenity', text: 'x' }, 'app zenity', { policy: 'read-only', rules: [rule] })).decision).toBe('allow');
    expect((await decide('computer_input', { app: 'zenity', text: 'x' }, 'app gedit', { policy: 'read-only', rules: [rule] })).decision).toBe('ask');
    const secret = await decide('computer_input', { app: 'zenity', text: '[redacted:PIN]' }, 'app zenity', { rules: [rule], held: ['PIN'] });
    expect(secret.decision).toBe('ask');
    expect(secret.reasons.join(' ')).toMatch(/every use of a secret/);
  });

  it.each(['computer_input', 'computer_pointer', 'computer_foreground'])('%s names the source its app\'s outline carries (computer-runtime.test.ts proves observe wraps it so)', (name) => {
    const tool = tools.find((t) => t.name === name)!;
    expect(tool.effects!({ app: 'zenity', text: 'x' } as never, { cwd: dir, workspaceRoots: [dir], dataDir: dir })).toMatchObject({ actsOnSource: 'app zenity' });
  });
});
