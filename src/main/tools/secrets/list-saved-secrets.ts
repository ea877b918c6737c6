/** list_saved_secrets: the names and descriptions of secrets saved in the vault, never values. */
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import type { VaultView } from '../../services/vault';

export const createListSavedSecrets = (vault: VaultView | null) =>
  defineTool({
    name: 'list_saved_secrets',
    description:
      'List the secrets saved in the OS keyring for Deskhand: names and descriptions, never values. Load one into this ' +
      'run with use_saved_secret (the person approves), then use [redacted:NAME] in execute_command.',
    params: () => z.object({}),
    risk: 'read-only',
    // Spec I lists it as `private`: which secrets exist (and what they are for) is the person's own material.
    disclosure: 'private',
    facts: { reaches: ['secrets'] },
    presentation: { title: 'List saved secrets', icon: 'secret' },
    async execute() {
      if (!vault) throw new ToolError('This host has no vault (OS keyring), so there are no saved secrets.', 'not_found');
      const secrets = await vault.list();
      if (secrets.length === 0) return { output: 'No secrets are saved. Ask the person for one with ask_user_secret.' };
      return { output: secrets.map((s) => `${s.name}${s.description ? ` — ${s.description}` : ''}`).join('\n') };
    },
  });
