/**
 * The tool registry: what the model sees (names, descriptions, JSON Schemas) and the one lookup path every call goes
 * through. Hidden `execute_*` halves are registered but never offered to the model and never callable by it.
 */
import { z } from 'zod';
import { ToolError } from '../../shared/errors';
import type { ToolDefinition } from './tool';

export interface ModelToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export class ToolRegistry {
  /** Model-callable names (canonical and aliases) → definition. A null-prototype map: no `__proto__` surprises. */
  private readonly callable = new Map<string, ToolDefinition>();
  private readonly hidden = new Map<string, ToolDefinition>();
  private readonly schemas = new Map<ToolDefinition, Record<string, unknown>>();

  constructor(tools: readonly ToolDefinition[]) {
    for (const tool of tools) this.register(tool);
  }

  private register(tool: ToolDefinition): void {
    if (tool.risk === 'unknown' && !tool.classify) throw new Error(`tool ${tool.name}: risk 'unknown' needs classify()`);
    for (const name of [tool.name, ...(tool.aliases ?? [])]) {
      if (this.callable.has(name) || this.hidden.has(name)) throw new Error(`tool name registered twice: ${name}`);
      this.callable.set(name, tool);
    }
    if (tool.pair) {
      if (this.callable.has(tool.pair.executeName)) throw new Error(`hidden name clashes: ${tool.pair.executeName}`);
      this.hidden.set(tool.pair.executeName, tool);
    }
    this.schemas.set(tool, z.toJSONSchema(tool.params, { target: 'draft-7', io: 'input' }) as Record<string, unknown>);
  }

  /** The model-facing tool list, in registration order (aliases included, hidden halves excluded). */
  modelTools(): ModelToolSpec[] {
    return [...this.callable.entries()].map(([name, tool]) => ({
      name,
      description: tool.description,
      inputSchema: this.schemas.get(tool)!,
    }));
  }

  names(): string[] {
    return [...this.callable.keys()];
  }

  /** Looks up a name the model sent. Hidden halves and unknown names get the same model-readable error. */
  resolve(name: string): ToolDefinition {
    const tool = typeof name === 'string' ? this.callable.get(name) : undefined;
    if (!tool) {
      const suggestion = this.closest(String(name));
      throw new ToolError(
        `Unknown tool "${String(name).slice(0, 100)}".${suggestion ? ` Did you mean "${suggestion}"?` : ''} Available tools: ${this.names().join(', ')}.`,
        'unknown_tool',
      );
    }
    return tool;
  }

  /** Parses arguments with the tool's zod schema; failures become a message the model can correct from. */
  parseArgs(tool: ToolDefinition, args: unknown): unknown {
    const result = tool.params.safeParse(args ?? {});
    if (result.success) return result.data;
    const problems = result.error.issues
      .slice(0, 10)
      .map((issue) => `- ${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`)
      .join('\n');
    throw new ToolError(`Invalid arguments for ${tool.name}:\n${problems}\nFix the arguments and call ${tool.name} again.`, 'invalid_args');
  }

  private closest(name: string): string | undefined {
    let best: string | undefined;
    let bestScore = Infinity;
    for (const candidate of this.callable.keys()) {
      const d = distance(name.toLowerCase(), candidate);
      if (d < bestScore) [best, bestScore] = [candidate, d];
    }
    return bestScore <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
  }
}

function distance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Infinity;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
