/**
 * computer_observe_ms: computer_observe (outline only) of a real window on a private Xvfb + openbox + AT-SPI world —
 * zenity's entry dialog, and gtk3-widget-factory's main window (a large tree) — through the tool, the service (grant
 * re-check, refs, the session file) and the Linux operator (EWMH window lookup, the AT-SPI walk).
 * observe_vs_raw_atspi_ratio: the same against walking the same window's tree with dbus-next directly (find the app by
 * name in the registry and its showing window, then role, name, states and children of every node, in parallel),
 * paired rounds in the same run. observe_fixed_cost_ms: what an observation costs besides the read (tool, grant check,
 * refs, outline, session file), with the read replaced by the tree it returned.
 */
import { AtspiClient } from '../src/main/services/computer/atspi';
import type { ElementHandle } from '../src/main/services/computer/index';
import { ComputerUseService } from '../src/main/services/computer/computer-use';
import { StoreGrantBook } from '../src/main/services/computer/grant-book';
import { appGrantsModule } from '../src/main/services/store/modules/app-grants';
import { Store } from '../src/main/services/store/store';
import { LinuxX11Operator } from '../src/main/services/computer/linux-x11';
import { createComputerFamily } from '../src/main/tools/computer';
import type { ToolDefinition } from '../src/main/runtime/tool';
import { makeContext, tempDir } from '../test/support/tool-context';
import { startWorld, worldMissing } from '../test/computer/world';
import { figure, paired, ratio, timed, type BenchResult } from './lib';

/** The small window's rounds are cheap (~10–20 ms each) and its ratio is the noisy one on a loaded machine: more of them. */
const ROUNDS = { small: 80, large: 30 };
const WARMUP = 3;

async function rawWalk(c: AtspiClient, h: ElementHandle): Promise<number> {
  const [, , kids] = await Promise.all([
    c.call(h, 'org.a11y.atspi.Accessible', 'GetRoleName'),
    c.prop(h, 'org.a11y.atspi.Accessible', 'Name'),
    c.children(h),
    c.call(h, 'org.a11y.atspi.Accessible', 'GetState'),
  ]);
  const counts = await Promise.all(kids.map((k) => rawWalk(c, k)));
  return 1 + counts.reduce((a, b) => a + b, 0);
}

export default async function computerObserveBench(): Promise<BenchResult> {
  const missing = worldMissing();
  if (missing) return { computer_observe_ms: `skipped: ${missing}` };
  const world = await startWorld();
  process.env.DISPLAY = world.display;
  const dataDir = tempDir('deskhand-bench-computer-');
  const operator = new LinuxX11Operator(world.env);
  // The real grant book over a real store, as the app has it: each observation re-checks the grant in SQLite.
  const store = new Store(tempDir('deskhand-bench-computer-data-'));
  const grants = new StoreGrantBook(store.module(appGrantsModule));
  for (const app of ['zenity', 'gtk3-widget-factory']) grants.grant(app, ['observe'], null);
  const computer = new ComputerUseService({ operator, grants, dataDir, thumbnails: false });
  const observe = createComputerFamily({ computer }).tools.find((t) => t.name === 'computer_observe') as ToolDefinition;
  const client = await AtspiClient.connect(world.env.DBUS_SESSION_BUS_ADDRESS);
  const out: BenchResult = {};
  try {
    for (const [label, cmd, args] of [
      ['', 'zenity', ['--entry', '--title', 'Bench', '--text', 'Name?']],
      ['_widget_factory', 'gtk3-widget-factory', []],
    ] as const) {
      world.spawnApp(cmd, [...args]);
      await world.waitForApp(cmd, 60_000); // gtk3-widget-factory can take 20-30 s to join the accessibility bus on a fresh session
      await new Promise((r) => setTimeout(r, 1500)); // let the window finish mapping and settle
      // The raw client does what any client must: find the app by name in the registry, its showing window, and walk it.
      const raw = async (): Promise<number> => {
        const apps = await client.applications();
        const names = await Promise.all(apps.map((h) => client.name(h)));
        const app = apps[names.indexOf(cmd)]!;
        const tops = await client.children(app);
        const states = await Promise.all(tops.map((t) => client.states(t)));
        const top = tops.filter((_, i) => states[i]![0] & (1 << 25)).at(-1) ?? tops[0]!;
        return rawWalk(client, top);
      };
      const nodes = await raw();
      const ctx = { ...makeContext(dataDir), runId: 'run_bench' };
      const viaTool = async () => {
        const r = await observe.execute(observe.params.parse({ app: cmd }), ctx);
        if (!r.output.includes('refs;')) throw new Error(`observe failed: ${r.output}`);
      };
      const rounds = label ? ROUNDS.large : ROUNDS.small;
      const t = await paired(rounds, WARMUP, viaTool, raw);
      // Where the difference lies: the operator's read alone (no tool, grants, refs or session file) against the same.
      const o = await paired(rounds, WARMUP, () => operator.readWindow(cmd), raw);
      out[`operator_read${label}_vs_raw_ratio`] = ratio(o.a, o.b, { baseline: 'the raw walk, paired again' });
      out[`computer_observe${label}_ms`] = figure(t.a, { unit: 'ms', baseline: `raw dbus-next walk of the same ${nodes}-node tree`, ...(label ? {} : { target: '≤ 150' }) });
      out[`raw_atspi_walk${label}_ms`] = figure(t.b, { unit: 'ms' });
      out[`observe_vs_raw_atspi${label}_ratio`] = ratio(t.a, t.b, { baseline: `raw_atspi_walk${label}_ms`, ...(label ? {} : { target: '≤ 1.3' }) });
      if (!label) {
        // The fixed cost of an observation besides the read: the tool, the grant check, refs, the outline and the
        // session file, with the operator's read replaced by the tree it just returned (no D-Bus at all).
        const tree = await operator.readWindow(cmd);
        const recorded = new ComputerUseService({ operator: Object.assign(Object.create(operator) as LinuxX11Operator, { readWindow: async () => structuredClone(tree) }), grants, dataDir, thumbnails: false });
        const fixedObserve = createComputerFamily({ computer: recorded }).tools.find((x) => x.name === 'computer_observe') as ToolDefinition;
        const fixed = await timed(ROUNDS.small, WARMUP, () => fixedObserve.execute(fixedObserve.params.parse({ app: cmd }), ctx));
        out.observe_fixed_cost_ms = figure(fixed, { unit: 'ms', baseline: `raw_atspi_walk_ms (${tree.nodes.length} outline lines from the same window, no D-Bus)` });
      }
    }
  } finally {
    client.close();
    computer.close();
    store.close();
    await world.close();
  }
  return out;
}
