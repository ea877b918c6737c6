/**
 * Contract methods live in handler groups, one file per family, so app-service.ts keeps only the core (conversations
 * and runs). A group is a function from the host's context to the methods it implements; AppService
 * installs every group in its constructor, and the type below makes AppService carry their methods, so one object
 * still implements the whole contract for both transports (dispatch.ts) and for tests.
 *
 * Adding a family's methods: write `export const fooGroup: HandlerGroup<'fooList' | …> = (ctx) => ({ async fooList(p)
 * {…} })` in the family's host file, then add it to the `installGroups` call and to the `Installed` type in
 * app-service.ts. A method implemented twice throws when the service is built.
 */
import type { ContractEvent, ContractHandlers, MethodName, MethodResult, ParsedParams, PendingApproval } from '../../../shared/contract';
import type { AppRuntime } from '../assembly/open-runtime';
import type { ProviderConfig } from '../../services/providers/providers';

export interface HandlerContext {
  readonly runtime: AppRuntime;
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly log: { warn(message: string, details?: Record<string, unknown>): void };
  /** Sends an event to every UI. */
  emit(event: ContractEvent): void;
  /** Marks a list changed; UIs hear of it once per tick. */
  markChanged(what: 'conversations' | 'approvals'): void;
  /** The pending requests as every UI is shown them (kept from the runtime's events: approval-list.ts). */
  pendingApprovals(): PendingApproval[];
  /** Sends a message as the person (starts a run); throws 'conflict' while the conversation is working. */
  sendMessage(p: ParsedParams<'sendMessage'>): Promise<MethodResult<'sendMessage'>>;
  /** The provider a parked or woken run continues with. */
  providerForRun(run: { provider: string; model: string; base_url: string | null }): Promise<ProviderConfig>;
  /** Runs `fn` when the service shuts down (unsubscribe listeners, stop loops). */
  onShutdown(fn: () => void | Promise<void>): void;
}

/** The methods a group implements. */
export type HandlerGroup<M extends MethodName> = (ctx: HandlerContext) => Pick<ContractHandlers, M>;

/** Copies each group's methods onto the service (own properties, so `service.method(p)` and dispatch both see them). */
export function installGroups(service: object, ctx: HandlerContext, groups: readonly ((ctx: HandlerContext) => object)[]): void {
  for (const group of groups) {
    for (const [name, fn] of Object.entries(group(ctx))) {
      if (name in service) throw new Error(`contract method ${name} is implemented twice`);
      Object.defineProperty(service, name, { value: fn, writable: false, enumerable: false, configurable: true });
    }
  }
}
