/** Where a host keeps its data (a module of its own: every command needs it, few need the runtime). */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `--data-dir`, else DESKHAND_HOME, else the OS app-data folder (the same one the desktop app uses). */
export function resolveDataDir(flag?: string): string {
  if (flag) return resolve(flag);
  if (process.env.DESKHAND_HOME) return resolve(process.env.DESKHAND_HOME);
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Deskhand');
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Deskhand');
  return join(process.env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Deskhand');
}
