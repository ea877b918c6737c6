/**
 * The system prompt, assembled from one file per section so it can be read and reviewed like code. Its stable part
 * (identity, how to work, approvals, untrusted content, asking, reporting, style, tools) comes first and stays the
 * same from step to step — prompt caching marks the system prompt, so a change there costs the whole cached prefix;
 * the environment (folder, directory, date) follows, then project instructions and what families add per turn.
 */
import type { Policy } from '../../../shared/tools';
import { approvalsSection } from './approvals';
import { ASKING } from './asking';
import { environmentSection } from './environment';
import { IDENTITY } from './identity';
import { providerFamilyOf, providerSection } from './provider';
import { REPORTING } from './reporting';
import { toolsSection } from './tools';
import { UNTRUSTED } from './untrusted';
import { WORKING } from './working';

export interface PromptInput {
  folder: string;
  cwd: string;
  policy: Policy;
  sandbox: string;
  /** The provider id (`anthropic.messages`, `openai.chat`, an OpenAI-compatible server's name…). */
  provider?: string;
  /** The registry's list of families not loaded (registry.catalogText), or null. */
  catalog: string | null;
  platform?: string;
  date?: string;
}

export function basePromptSections(input: PromptInput): string[] {
  return [
    IDENTITY,
    WORKING,
    approvalsSection(input.policy, input.sandbox),
    UNTRUSTED,
    ASKING,
    REPORTING,
    providerSection(providerFamilyOf(input.provider)),
    toolsSection(input.catalog),
    environmentSection({
      folder: input.folder,
      cwd: input.cwd,
      platform: input.platform ?? process.platform,
      date: input.date ?? new Date().toISOString().slice(0, 10),
      shell: 'bash',
    }),
  ];
}
