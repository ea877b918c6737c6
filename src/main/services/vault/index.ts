/** The vault as the secrets family sees it: names and descriptions (never values), and saving what a person typed. */
export type { SecretInfo, VaultView } from './vault';
import type { VaultView } from './vault';

/** What the secrets family needs: the view, plus saving a value the person typed into the keyring. */
export interface SecretSaver extends VaultView {
  set(name: string, value: string, description?: string): Promise<void>;
}
