/**
 * ask_user_secret: the person types a password, token or passphrase, hidden (a masked field in the app, a no-echo
 * prompt in a terminal, or `deskhand secrets set NAME` when nobody was there to answer and the run parked). The value
 * is saved in the OS keyring under the name the agent gives; the agent only ever gets `[redacted:NAME]`.
 */
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import { SECRET_NAME_RE } from '../../runtime/decision/secret-args';
import type { VaultView } from '../../services/vault';

const params = () => z.object({
  name: z
    .string()
    .regex(SECRET_NAME_RE, { error: 'name must be 1–64 letters, digits, "_", "-" or ".", starting with a letter (e.g. GITHUB_TOKEN)' })
    .describe('Name to save the secret under, e.g. GITHUB_TOKEN. The placeholder [redacted:NAME] stands for it afterwards.'),
  description: z.string().min(1).max(200).describe('What the secret is for, shown to the person and in list_saved_secrets (e.g. "GitHub token for pushing to acme/app").'),
  prompt: z.string().max(500).optional().describe('The question shown to the person (default: asks for the description).'),
});

export const createAskUserSecret = (vault: VaultView | null) =>
  defineTool({
    name: 'ask_user_secret',
    description:
      'Ask the person to type a password, token or passphrase, hidden. You never see the value: the result gives you ' +
      'the placeholder [redacted:NAME], which execute_command puts back into its command just before running it (each ' +
      'such command is approved by the person). The secret is saved in the OS keyring under NAME for later runs ' +
      '(load it again with use_saved_secret). Use list_saved_secrets first: do not ask for a secret that is already saved.',
    params,
    risk: 'read-only',
    disclosure: 'private',
    facts: { reaches: ['secrets'] },
    presentation: { title: 'Enter a secret', icon: 'secret', summary: (args) => args.name },
    input: (args) => ({
      kind: 'secret',
      description: `Type the secret ${args.name}${args.description ? ` (${args.description})` : ''}; it is saved in the OS keyring and the agent only sees [redacted:${args.name}]`,
      prompt: args.prompt?.trim() || `Enter ${args.name} (${args.description})`,
      data: { name: args.name, description: args.description },
    }),
    holdsSecret: (args) => args.name,
    async execute(args) {
      if (vault && !(await vault.has(args.name))) {
        throw new ToolError(`No value was saved for ${args.name}; the person did not provide it. Ask them again or continue without it.`, 'not_found');
      }
      return {
        output:
          `The person provided ${args.name}; it is saved in the OS keyring. Refer to it as [redacted:${args.name}] in ` +
          "execute_command's command: the value is put in just before the command runs, and the person approves each use. " +
          'Never try to print or store the value.',
      };
    },
  });
