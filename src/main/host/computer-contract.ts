/**
 * The contract's computer-use methods, for AppService (which extends this): app grants (Settings → App grants), the
 * live sessions behind the "Deskhand is using: <app>" banner, the kill switch (the banner's Stop, the tray item and the
 * global shortcut all end here), and the screenshots tool cards show — only PNGs under the data folder's `computer/`.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep, isAbsolute } from 'node:path';
import type { ContractEvent, MethodResult, ParsedParams } from '../../shared/contract';
import { DeskhandError } from '../../shared/errors';
import type { AppRuntime } from './open-runtime';
import { viewAppGrant } from './app-grants-view';

/** Computer use's contract methods (AppService extends CompositionHandlers, which extends this). */
export abstract class ComputerContract {
  constructor(
    private readonly computerRuntime: AppRuntime,
    private readonly computerDataDir: string,
  ) {
    computerRuntime.computer.onSessionsChanged(() => this.emit({ event: 'computerChanged', payload: { sessions: this.computerSessions() } }));
  }

  protected abstract emit(event: ContractEvent): void;

  private computerSessions(): MethodResult<'getComputerUse'>['sessions'] {
    return this.computerRuntime.computer.sessions().map((s) => ({
      runId: s.runId,
      conversationId: this.computerRuntime.store.getRun(s.runId)?.conversation_id ?? null,
      apps: s.apps,
      lastAction: s.lastAction,
    }));
  }

  async listAppGrants(): Promise<MethodResult<'listAppGrants'>> {
    return { grants: this.computerRuntime.computer.grants.list().map(viewAppGrant) };
  }

  async revokeAppGrant(p: ParsedParams<'revokeAppGrant'>): Promise<MethodResult<'revokeAppGrant'>> {
    if (!this.computerRuntime.computer.grants.revoke(p.app)) throw new DeskhandError('not_found', `No app grant for "${p.app}".`);
    return this.listAppGrants();
  }

  async getComputerUse(): Promise<MethodResult<'getComputerUse'>> {
    return { missing: await this.computerRuntime.computer.missing().catch((e: unknown) => String(e)), sessions: this.computerSessions() };
  }

  /** The kill switch: every session stops at once and its runs are stopped. */
  async stopComputerUse(): Promise<MethodResult<'stopComputerUse'>> {
    return { stopped: this.computerRuntime.computer.kill('stopped by the person') };
  }

  /** A screenshot a tool card shows: a PNG inside `<data>/computer/`, nothing else. */
  async readScreenshot(p: ParsedParams<'readScreenshot'>): Promise<MethodResult<'readScreenshot'>> {
    const root = join(this.computerDataDir, 'computer');
    let real: string;
    let rootReal: string;
    try {
      real = realpathSync(p.path);
      rootReal = realpathSync(root);
    } catch {
      throw new DeskhandError('not_found', 'That screenshot is gone (computer_end deletes a run\'s screenshots).');
    }
    const rel = relative(rootReal, real);
    if (!real.endsWith('.png') || rel.startsWith('..') || isAbsolute(rel) || rel.startsWith(`..${sep}`)) {
      throw new DeskhandError('usage', 'Only computer-use screenshots can be shown.');
    }
    return { dataUrl: `data:image/png;base64,${readFileSync(real).toString('base64')}` };
  }
}
