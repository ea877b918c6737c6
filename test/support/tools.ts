/** Every family assembled as a host assembles them, over real services, for tests that need the whole tool set. */
import type { ToolRegistry } from '../../src/main/runtime/registry';
import { assembleTools } from '../../src/main/host/assembly/assemble';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { osSandbox } from '../../src/main/services/sandbox';
import type { TaskService } from '../../src/main/services/tasks';
import type { SecretSaver } from '../../src/main/services/vault';
import type { Schedules } from '../../src/main/services/scheduler';
import { PinnedHttpClient } from '../../src/main/services/http/pinned-client';
import { CompositionFiles } from '../../src/main/services/compositions/composition-files';
import { PublishTargets } from '../../src/main/services/compositions/publish';
import { FfmpegAv } from '../../src/main/services/media/av';
import { JimpMedia } from '../../src/main/services/media/images';
import { CompanionModel } from '../../src/main/services/media/companion';
import { ChromiumPdfPrinter } from '../../src/main/services/pdf/print';
import { PdfJsReader } from '../../src/main/services/pdf/read';
import { Store } from '../../src/main/services/store/store';
import { StorePresence } from '../../src/main/services/presence/store-presence';

export function builtinTools(deps: { dataDir: string; tasks?: TaskService; vault?: SecretSaver | null; redactor?: SecretRedactor; goals?: object }): ToolDefinition[] {
  return builtinRegistry(deps).all();
}

/** The registry the assembly builds over every builtin family (each tool filed under its loading family). */
export function builtinRegistry(deps: Parameters<typeof builtinTools>[0]): ToolRegistry {
  const writes = (name: string): boolean => registry.lookup(name)?.facts?.writes === true;
  const registry = assembleTools({
    dataDir: deps.dataDir,
    tasks: deps.tasks ?? noTasks,
    sandbox: osSandbox,
    vault: deps.vault ?? null,
    redactor: deps.redactor ?? new SecretRedactor(),
    http: new PinnedHttpClient(),
    urlGrants: () => [],
    searchSettings: () => null,
    secretValues: null,
    // Memory, plan mode and goals: listed with their schemas; any use of their services fails loudly here.
    memory: { memory: noService('memory'), goals: (deps.goals as never) ?? noService('goals'), quotes: noService('quotes'), evidence: noService('evidence'), folderOf: () => deps.dataDir },
    schedules: noSchedules,
    // Workflows: the tool with its schema; any use of the service fails loudly here.
    workflows: noService<import('../../src/main/services/workflows/index').Workflows>('workflows'),
    tower: noService<import('../../src/main/services/tower/index').Tower>('tower'),
    peers: { caller: noService<import('../../src/main/services/peers/index').PeerCaller>('peers'), clarifier: noService<import('../../src/main/services/peers/index').PeerClarifier>('clarifier') },
    // Compositions keep rows in a store of their own data dir (opened lazily by the tests that use them).
    compositions: {
      store: lazyCompositions(deps.dataDir),
      publisher: new PublishTargets(deps.dataDir),
      printer: new ChromiumPdfPrinter(),
      reader: new PdfJsReader(),
      media: new JimpMedia(deps.dataDir),
      av: new FfmpegAv(),
      companion: new CompanionModel(deps.dataDir),
      presence: { activeRuns: (windowMs: number) => new StorePresence(lazyStore(deps.dataDir), writes).activeRuns(windowMs) },
    },
  }).registry;
  return registry;
}

/** One tool of the assembled set, by name. */
export function builtinTool(name: string, deps: Parameters<typeof builtinTools>[0]): ToolDefinition {
  const tool = builtinTools(deps).find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

function noService<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get(_t, prop) {
      throw new Error(`this test built its tools without the ${name} service (used ${String(prop)})`);
    },
  });
}

/** For tests whose tools never reach background tasks: any use fails loudly. */
const noTasks = new Proxy({} as TaskService, {
  get(_t, prop) {
    throw new Error(`this test built its tools without background tasks (used ${String(prop)})`);
  },
});

/** For tests whose tools never reach the schedule: any use fails loudly. */
const noSchedules = new Proxy({} as Schedules, {
  get(_t, prop) {
    throw new Error(`this test built its tools without the schedule service (used ${String(prop)})`);
  },
});
/** A compositions service whose store opens on first use (most tool tests never touch compositions). */
function lazyCompositions(dataDir: string): CompositionFiles {
  let real: CompositionFiles | null = null;
  const get = () => (real ??= new CompositionFiles(lazyStore(dataDir), dataDir));
  return new Proxy({} as CompositionFiles, { get: (_t, prop) => (get() as unknown as Record<string | symbol, unknown>)[prop] && ((...a: unknown[]) => (get() as unknown as Record<string | symbol, (...x: unknown[]) => unknown>)[prop]!(...a)) });
}

const stores = new Map<string, Store>();
const lazyStore = (dataDir: string): Store => stores.get(dataDir) ?? stores.set(dataDir, new Store(dataDir)).get(dataDir)!;

/**
 * The whole catalog: every family `builtinTools` assembles plus subagents, summarize_context's compactor, the browser
 * and computer use, each over a service any use of which fails loudly (for tests that read names and schemas only).
 */
export function catalogTools(deps: { dataDir: string }): ToolDefinition[] {
  const base = builtinTools(deps);
  const extra = assembleTools({
    dataDir: deps.dataDir,
    tasks: noTasks,
    sandbox: osSandbox,
    vault: null,
    redactor: new SecretRedactor(),
    http: new PinnedHttpClient(),
    urlGrants: () => [],
    searchSettings: () => null,
    secretValues: null,
    subagents: noService<import('../../src/main/services/subagents/index').Subagents>('subagents'),
    compactor: noService<import('../../src/main/tools/context/summarize-context').Compactor>('compactor'),
    browser: noService<import('../../src/main/services/browser/index').BrowserService>('browser'),
    computer: noService<import('../../src/main/services/computer/index').ComputerUse>('computer'),
  }).registry.all();
  const names = new Set(base.map((t) => t.name));
  return [...base, ...extra.filter((t) => !names.has(t.name))];
}
