/**
 * Agent profiles: named configurations a conversation is started with — instructions added to the system prompt, a
 * model, which tools it may see (allowed and denied, `*` at the end matches a prefix such as `mcp__github__*`), and
 * the default policy and sandbox of its conversations, and custom tools of its own (offered only in its conversations,
 * besides the global custom-tools.json). Stored in the extensions store module.
 */
import { z } from 'zod';
import { POLICIES } from '../../../shared/tools';
import { SANDBOX_MODES } from '../../../shared/sandbox';
import { customToolSchema } from '../../../shared/custom-tools';
import { extensionsModule } from '../store/modules/extensions';
import type { Store } from '../store/store';

export const profileSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/, { error: 'a profile name is 1–64 letters, digits, spaces, dots, dashes or underscores' }),
  description: z.string().max(500).optional(),
  systemPrompt: z.string().max(20_000).optional(),
  provider: z.enum(['anthropic', 'openai', 'openai-compatible']).optional(),
  model: z.string().max(200).optional(),
  allowedTools: z.array(z.string().min(1)).optional(),
  deniedTools: z.array(z.string().min(1)).optional(),
  policy: z.enum(POLICIES).optional(),
  sandbox: z.enum(SANDBOX_MODES).optional(),
  /** Tool families loaded in its conversations from their first request (`browser`, `computer`…; tool-families.ts). */
  enableFamilies: z.array(z.string().regex(/^[a-z][a-z-]{0,39}$/)).max(40).optional(),
  /** Custom tools of this profile only (Spec I `customTools`): offered in its conversations, besides the global file's. */
  customTools: z
    .array(customToolSchema)
    .max(50)
    .refine((tools) => new Set(tools.map((t) => t.name)).size === tools.length, { error: 'two custom tools of the profile have the same name' })
    .optional(),
});
export type AgentProfile = z.infer<typeof profileSchema>;

export function matchesTool(patterns: readonly string[], tool: string): boolean {
  return patterns.some((p) => (p.endsWith('*') ? tool.startsWith(p.slice(0, -1)) : p === tool));
}

/** Why a profile hides a tool, or null. */
export function profileHides(profile: AgentProfile, tool: string): string | null {
  if (profile.deniedTools && matchesTool(profile.deniedTools, tool)) return `the agent profile "${profile.name}" denies it`;
  // The profile's own custom tools are its tools: allowedTools need not list them.
  if (profile.customTools?.some((t) => t.name === tool)) return null;
  if (profile.allowedTools && !matchesTool(profile.allowedTools, tool)) return `it is not among the tools of the agent profile "${profile.name}"`;
  return null;
}

export class ProfileStore {
  private readonly q;

  constructor(store: Store) {
    this.q = store.module(extensionsModule);
  }

  list(): AgentProfile[] {
    return this.q.profiles().flatMap((row) => {
      const parsed = profileSchema.safeParse({ ...JSON.parse(row.config), name: row.name });
      return parsed.success ? [parsed.data] : [];
    });
  }

  get(name: string): AgentProfile | null {
    const row = this.q.profile(name);
    if (!row) return null;
    const parsed = profileSchema.safeParse({ ...JSON.parse(row.config), name: row.name });
    return parsed.success ? parsed.data : null;
  }

  put(profile: AgentProfile): AgentProfile {
    const parsed = profileSchema.parse(profile);
    // A custom tool's name is one tool in the registry: two profiles cannot each mean something else by it.
    for (const other of this.list()) {
      if (other.name === parsed.name) continue;
      const clash = parsed.customTools?.find((t) => other.customTools?.some((o) => o.name === t.name));
      if (clash) throw new Error(`The agent profile "${other.name}" already has a custom tool named "${clash.name}". Give this profile's tool another name.`);
    }
    this.q.putProfile(parsed.name, JSON.stringify(parsed));
    return parsed;
  }

  remove(name: string): boolean {
    return this.q.removeProfile(name);
  }

  forConversation(conversationId: string): AgentProfile | null {
    const name = this.q.conversationProfile(conversationId);
    return name ? this.get(name) : null;
  }

  assign(conversationId: string, name: string): void {
    if (!this.get(name)) throw new Error(`There is no agent profile "${name}". Profiles: ${this.list().map((p) => p.name).join(', ') || 'none'}.`);
    this.q.setConversationProfile(conversationId, name);
  }
}
