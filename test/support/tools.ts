/** Every family assembled as a host assembles them, over real services, for tests that need the whole tool set. */
import { assembleTools } from '../../src/main/host/assemble';
import { SecretRedactor } from '../../src/main/runtime/redaction';
import type { ToolDefinition } from '../../src/main/runtime/tool';
import { osSandbox } from '../../src/main/services/sandbox';
import type { TaskService } from '../../src/main/services/tasks';
import type { SecretSaver } from '../../src/main/services/vault';
import type { Schedules } from '../../src/main/services/scheduler';
import { PinnedHttpClient } from '../../src/main/services/http/pinned-client';

export function builtinTools(deps: { dataDir: string; tasks?: TaskService; vault?: SecretSaver | null; redactor?: SecretRedactor }): ToolDefinition[] {
  return assembleTools({
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
    memory: { memory: noService('memory'), goals: noService('goals'), quotes: noService('quotes'), evidence: noService('evidence'), folderOf: () => deps.dataDir },
    schedules: noSchedules,
  }).registry.all();
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
