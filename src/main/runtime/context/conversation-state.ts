/** Per-conversation tool state (cwd, file snapshots, todos, work state), serialized into the conversation row. */
import type { ConversationState, FileSnapshot, TodoItem } from '../tool';

interface Serialized {
  cwd?: string;
  roots?: string[];
  readable?: string[];
  revealed?: string[];
  snapshots?: Record<string, FileSnapshot>;
  todos?: TodoItem[];
  workState?: Record<string, unknown>;
  slots?: Record<string, unknown>;
}

export class PersistentConversationState implements ConversationState {
  cwd: string;
  workspaceRoots: string[];
  todos: TodoItem[];
  workState: Record<string, unknown>;
  readableRoots: string[];
  revealedTools: string[];
  /** Families' own per-conversation state (scratchpad, plan mode, the pinned plan): kept outside the messages. */
  slots: Record<string, unknown>;
  private readonly snapshots: Map<string, FileSnapshot>;

  constructor(folder: string, json: string) {
    let data: Serialized = {};
    try {
      data = JSON.parse(json) as Serialized;
    } catch {
      // A damaged state blob must not make the conversation unusable: start from the folder again.
    }
    this.cwd = typeof data.cwd === 'string' ? data.cwd : folder;
    this.workspaceRoots = Array.isArray(data.roots) && data.roots.length ? data.roots : [folder];
    this.snapshots = new Map(Object.entries(data.snapshots ?? {}));
    this.todos = Array.isArray(data.todos) ? data.todos : [];
    this.workState = data.workState && typeof data.workState === 'object' ? data.workState : {};
    this.readableRoots = strings(data.readable);
    this.revealedTools = strings(data.revealed);
    this.slots = data.slots && typeof data.slots === 'object' && !Array.isArray(data.slots) ? data.slots : {};
  }

  /** Adds a workspace root (the person's "always allow" for a change outside the roots). */
  addWorkspaceRoot(path: string): void {
    if (!this.workspaceRoots.includes(path)) this.workspaceRoots.push(path);
  }

  addReadableRoots(paths: readonly string[]): void {
    for (const p of paths) if (!this.readableRoots.includes(p)) this.readableRoots.push(p);
  }

  revealTools(names: readonly string[]): void {
    for (const n of names) if (!this.revealedTools.includes(n)) this.revealedTools.push(n);
  }

  getFileSnapshot(path: string): FileSnapshot | undefined {
    return this.snapshots.get(path);
  }

  recordFileSnapshot(snapshot: FileSnapshot): void {
    this.snapshots.set(snapshot.path, snapshot);
  }

  serialize(): string {
    const data: Serialized = {
      cwd: this.cwd,
      roots: this.workspaceRoots,
      snapshots: Object.fromEntries(this.snapshots),
      todos: this.todos,
      workState: this.workState,
      ...(this.readableRoots.length ? { readable: this.readableRoots } : {}),
      ...(this.revealedTools.length ? { revealed: this.revealedTools } : {}),
      ...(Object.keys(this.slots).length ? { slots: this.slots } : {}),
    };
    return JSON.stringify(data);
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
