/**
 * A custom tool's configuration (Spec I agent-config `customTools`): in `custom-tools.json` in the data dir for every
 * conversation, or in an agent profile for that profile's conversations only. The tool itself is built by the
 * extensions family (tools/extensions/custom-tools.ts).
 */
import { z } from 'zod';

export const customToolSchema = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, { error: 'a custom tool name is snake_case (a–z, digits, _), starting with a letter' }),
  description: z.string().min(1).max(4000),
  inputSchema: z.record(z.string(), z.unknown()).default({ type: 'object', properties: {} }),
  /** argv: the program, then its arguments; `{param}` is replaced inside one element, never split. */
  command: z.array(z.string()).min(1),
  /** The tier the person declares (default: what the shell classifier says of the command). */
  tier: z.enum(['read-only', 'low-risk', 'high-risk']).optional(),
  network: z.boolean().optional(),
  timeoutMs: z.number().int().positive().max(900_000).optional(),
});
export type CustomToolConfig = z.infer<typeof customToolSchema>;
