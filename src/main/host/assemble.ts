/**
 * The one place every tool family is assembled: each family's factory gets the service implementations it needs
 * (as interfaces), and its tools and input kinds go into the live registry. A new family is added here.
 */
import type { InputKind } from '../runtime/input-kinds';
import { ToolRegistry } from '../runtime/registry';
import type { SecretRedactor } from '../runtime/redaction';
import type { SandboxService } from '../services/sandbox';
import type { HttpService } from '../services/http/index';
import type { SearchSettings } from '../../shared/contract';
import type { TaskService } from '../services/tasks';
import type { SecretSaver } from '../services/vault';
import { createContextFamily } from '../tools/context';
import { createFileFamily } from '../tools/files';
import { createInteractionFamily } from '../tools/interaction';
import { createSecretFamily } from '../tools/secrets';
import { createShellFamily } from '../tools/shell';
import { createTaskFamily } from '../tools/tasks';
import { createTodoFamily } from '../tools/todos';
import { createWebFamily } from '../tools/web';
import { createComputerFamily } from '../tools/computer';
import type { ComputerUse } from '../services/computer/index';

export interface HostServices {
  dataDir: string;
  tasks: TaskService;
  sandbox: SandboxService;
  vault: SecretSaver | null;
  redactor: Pick<SecretRedactor, 'addSecret' | 'matches'>;
  /** The pinned HTTP client of the web family. */
  http: HttpService;
  urlGrants: () => readonly string[];
  searchSettings: () => SearchSettings | null;
  /** Vault values for search API keys (null: no vault). */
  secretValues: { get(name: string): Promise<string | null> } | null;
  webFetchTimeoutMs?: number;
  /** Computer use: the operator for this desktop behind the session service. */
  computer?: ComputerUse;
}

export interface Assembly {
  registry: ToolRegistry;
  inputKinds: InputKind[];
}

export function assembleTools(services: HostServices, registry = new ToolRegistry()): Assembly {
  const shell = createShellFamily({ tasks: services.tasks, sandbox: services.sandbox, dataDir: services.dataDir });
  const secrets = createSecretFamily({ vault: services.vault, learn: (name, value) => services.redactor.addSecret(name, value) });
  const interaction = createInteractionFamily({ tasks: services.tasks });
  const families = [
    createFileFamily({ dataDir: services.dataDir, secrets: services.redactor }),
    shell,
    createTaskFamily({ tasks: services.tasks, commands: shell.commands, dataDir: services.dataDir }),
    createContextFamily({ catalog: registry }),
    createTodoFamily(),
    interaction,
    secrets,
    createWebFamily({
      http: services.http,
      urlGrants: services.urlGrants,
      search: services.searchSettings,
      keys: services.secretValues ? { get: (name) => services.secretValues!.get(name), learn: (name, value) => services.redactor.addSecret(name, value) } : null,
      ...(services.webFetchTimeoutMs ? { fetchTimeoutMs: services.webFetchTimeoutMs } : {}),
    }),
  ];
  const computer = services.computer ? createComputerFamily({ computer: services.computer }) : null;
  if (computer) families.push(computer);
  for (const family of families) registry.add(family.tools);
  return { registry, inputKinds: [...secrets.inputKinds, ...interaction.inputKinds, ...(computer?.inputKinds ?? [])] };
}
