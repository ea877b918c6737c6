/**
 * `deskhand stop [--data-dir DIR] [--json]`: the computer-use kill switch from a terminal. It adds the same store row
 * the banner's Stop, the tray and the shortcut add (`ComputerUse.kill` raises it), so every Deskhand process on the
 * data folder — a `deskhand run`, the desktop app, `deskhand web` — stops its computer-use sessions before its next
 * action or typed chunk, and those runs end stopped. Opens only the store: pressing Stop must not wait for a runtime.
 */
import { StoreStopFlag } from '../../services/computer/stop-flag';
import { out, parseSubcommand, usage, withStore } from './common';

export async function stopCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseSubcommand(args, { reason: { type: 'string' } });
  if (positionals.length) throw usage(`stop takes no arguments (got "${positionals.join(' ')}"); it stops computer use on the data folder (--data-dir DIR).`);
  const reason = values.reason ?? 'stopped by the person (deskhand stop)';
  const at = await withStore(values['data-dir'], (store) => {
    const flag = new StoreStopFlag(store);
    flag.raise(reason);
    return flag.latest();
  });
  if (values.json) out(JSON.stringify({ stopped: true, at }));
  else out('Computer use stopped: every Deskhand process on this data folder stops before its next action.');
  return 0;
}
