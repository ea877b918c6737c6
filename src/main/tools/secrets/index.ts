/**
 * The secrets family: ask the person for a secret, list saved ones, load one into a run — and the `secret` input
 * kind, which saves what the person typed into the keyring and teaches the redactor the value.
 */
import { z } from 'zod';
import type { InputKind } from '../../runtime/loop/input-kinds';
import type { ToolDefinition } from '../../runtime/tool';
import type { SecretSaver } from '../../services/vault';
import { createAskUserSecret } from './ask-user-secret';
import { createListSavedSecrets } from './list-saved-secrets';
import { createUseSavedSecret } from './use-saved-secret';
import { DeskhandError } from '../../../shared/errors';

export interface SecretDeps {
  /** The vault (names and descriptions; saving what a person typed); null where the host has no keyring. */
  vault: SecretSaver | null;
  /** Teaches every sink's redactor a value, so it is hidden from then on. */
  learn(name: string, value: string): void;
}

export function createSecretFamily(deps: SecretDeps): { tools: ToolDefinition[]; inputKinds: InputKind[] } {
  const secretKind: InputKind<{ value: string }> = {
    kind: 'secret',
    answer: z.strictObject({ value: z.string().min(1, 'The secret is empty.').max(10_000) }),
    async accept({ value }, data) {
      const { name, description } = (data ?? {}) as { name?: string; description?: string };
      if (typeof name !== 'string') throw new DeskhandError('usage', 'This request does not name the secret it asks for.');
      if (!deps.vault) throw new DeskhandError('internal', 'This host has no vault (OS keyring), so a secret cannot be saved here.');
      await deps.vault.set(name, value, description);
      deps.learn(name, value);
      // What is stored as the answer: that it was saved, never the value.
      return { saved: name };
    },
    example: '{"value": "…"} (better: `deskhand secrets set NAME`, which reads it without echo)',
    label: (data) => `a request for the secret ${String((data as { name?: unknown })?.name ?? '')}`,
  };
  return {
    tools: [createAskUserSecret(deps.vault), createListSavedSecrets(deps.vault), createUseSavedSecret(deps.vault)] as ToolDefinition[],
    inputKinds: [secretKind as InputKind],
  };
}
