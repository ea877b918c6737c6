/**
 * The contract's computer-use methods (a handler group): app grants (Settings → App grants), the
 * live sessions behind the "Deskhand is using: <app>" banner, the kill switch (the banner's Stop, the tray item and the
 * global shortcut all end here), and the screenshots tool cards show — only PNGs under the data folder's `computer/`.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep, isAbsolute } from 'node:path';
import type { MethodResult } from '../../../../shared/contract';
import { DeskhandError } from '../../../../shared/errors';
import type { HandlerGroup } from '../handler-groups';
import { viewAppGrant } from '../app-grants-view';

type ComputerMethods = 'listAppGrants' | 'revokeAppGrant' | 'getComputerUse' | 'stopComputerUse' | 'readScreenshot';

/** Computer use's contract methods: a handler group (handler-groups.ts). */
export const computerGroup: HandlerGroup<ComputerMethods> = ({ runtime, dataDir, emit, onShutdown }) => {
  const { computer, store } = runtime;
  const sessions = (): MethodResult<'getComputerUse'>['sessions'] =>
    computer.sessions().map((s) => ({ runId: s.runId, conversationId: store.getRun(s.runId)?.conversation_id ?? null, apps: s.apps, lastAction: s.lastAction }));
  onShutdown(computer.onSessionsChanged(() => emit({ event: 'computerChanged', payload: { sessions: sessions() } })));
  const listAppGrants = async (): Promise<MethodResult<'listAppGrants'>> => ({ grants: computer.grants.list().map(viewAppGrant) });
  return {
    listAppGrants,
    async revokeAppGrant(p) {
      if (!computer.grants.revoke(p.app)) throw new DeskhandError('not_found', `No app grant for "${p.app}".`);
      return listAppGrants();
    },
    async getComputerUse() {
      return { missing: await computer.missing().catch((e: unknown) => String(e)), sessions: sessions() };
    },
    /** The kill switch: every session stops at once and its runs are stopped. */
    async stopComputerUse() {
      return { stopped: computer.kill('stopped by the person') };
    },
    /** A screenshot a tool card shows: a PNG inside `<data>/computer/`, nothing else. */
    async readScreenshot(p) {
      const root = join(dataDir, 'computer');
      let real: string;
      let rootReal: string;
      // A session's shot (`computer/<run>/<file>.png`) moves to `computer/kept/<run>/` when the session ends.
      const rel0 = relative(root, p.path).split(sep);
      const kept = rel0.length === 2 && /^[\w-]+$/.test(rel0[0]!) && /^[\w-]+\.png$/.test(rel0[1]!) ? join(root, 'kept', rel0[0]!, rel0[1]!) : null;
      try {
        real = realpathSync(kept && !existsSync(p.path) ? kept : p.path);
        rootReal = realpathSync(root);
      } catch {
        throw new DeskhandError('not_found', 'That screenshot is gone (kept screenshots are deleted after the log retention set in Settings).');
      }
      const rel = relative(rootReal, real);
      if (!real.endsWith('.png') || rel.startsWith('..') || isAbsolute(rel) || rel.startsWith(`..${sep}`)) {
        throw new DeskhandError('usage', 'Only computer-use screenshots can be shown.');
      }
      return { dataUrl: `data:image/png;base64,${readFileSync(real).toString('base64')}` };
    },
  };
};
