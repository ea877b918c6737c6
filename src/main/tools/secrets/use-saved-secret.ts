/**
 * use_saved_secret (approval pair `execute_use_saved_secret`): load a saved secret into this run as its placeholder.
 * Always asks a person, under every policy: a secret is only ever used with someone's say-so.
 */
import { z } from 'zod';
import { ToolError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import { SECRET_NAME_RE } from '../../runtime/decision/secret-args';
import type { VaultView } from '../../services/vault';

const params = () => z.object({
  name: z.string().regex(SECRET_NAME_RE, { error: 'name must be the name of a saved secret (see list_saved_secrets)' }).describe('Name of the saved secret (see list_saved_secrets).'),
});

export const createUseSavedSecret = (vault: VaultView | null) =>
  defineTool({
    name: 'use_saved_secret',
    description:
      'Load a saved secret (see list_saved_secrets) into this run. You get the placeholder [redacted:NAME], never the ' +
      "value; execute_command puts the value into its command just before it runs. Always asks the person first.",
    params,
    risk: 'high-risk',
    effects: (args) => ({
      assessment: {
        risk: 'high-risk',
        reasons: [`loads the saved secret ${args.name} into this run`],
        rulePattern: null,
        alwaysAsk: 'use_saved_secret gives the run a saved secret',
      },
    }),
    disclosure: 'private',
    facts: { reaches: ['secrets'] },
    presentation: { title: 'Use a saved secret', icon: 'secret', summary: (args) => args.name },
    holdsSecret: (args) => args.name,
    pair: {
      executeName: 'execute_use_saved_secret',
      async propose(args) {
        const info = (await vault?.list().catch(() => []))?.find((s) => s.name === args.name);
        return {
          description: `Let the agent use the saved secret ${args.name}${info?.description ? ` (${info.description})` : ''} in this run, as [redacted:${args.name}]`,
          preview: null,
        };
      },
    },
    async execute(args) {
      if (!vault) throw new ToolError('This host has no vault (OS keyring).', 'not_found');
      if (!(await vault.has(args.name))) {
        throw new ToolError(`No saved secret is named ${args.name}. See list_saved_secrets, or ask the person with ask_user_secret.`, 'not_found');
      }
      return {
        output: `${args.name} is loaded. Use [redacted:${args.name}] in execute_command's command; the value is put in just before it runs and the person approves each use.`,
      };
    },
  });
