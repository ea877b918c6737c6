/** Per-conversation tool state (cwd, file snapshots, todos, work state), serialized into the conversation row. */
import type { ConversationState, FileSnapshot, TodoItem } from './tool';

interface Serialized {
  cwd?: string;
  roots?: string[];
  snapshots?: Record<string, FileSnapshot>;
  todos?: TodoItem[];
  workState?: Record<string, unknown>;
}

export class PersistentConversationState implements ConversationState {
  cwd: string;
  workspaceRoots: string[];
  todos: TodoItem[];
  workState: Record<string, unknown>;
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
    };
    return JSON.stringify(data);
  }
}
