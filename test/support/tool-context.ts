/** A real ToolContext over an in-memory ConversationState, for tool tests in fresh temp folders. */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConversationState, FileSnapshot, ToolContext, TodoItem } from '../../src/main/runtime/tool';

export interface TestContext extends ToolContext {
  outputs: { stream: 'stdout' | 'stderr'; chunk: string }[];
  abort(): void;
}

export function tempDir(prefix = 'deskhand-test-', parent = tmpdir()): string {
  return realpathSync(mkdtempSync(join(parent, prefix)));
}

export function makeState(cwd: string, roots: string[] = [cwd]): ConversationState {
  const snapshots = new Map<string, FileSnapshot>();
  return {
    cwd,
    workspaceRoots: roots,
    getFileSnapshot: (path) => snapshots.get(path),
    recordFileSnapshot: (s) => void snapshots.set(s.path, s),
    todos: [] as TodoItem[],
    workState: {},
  };
}

export function makeContext(cwd: string, opts: { dataDir?: string; state?: ConversationState } = {}): TestContext {
  const controller = new AbortController();
  const outputs: TestContext['outputs'] = [];
  return {
    runId: 'run_test',
    conversationId: 'conv_test',
    callId: 'call_test',
    signal: controller.signal,
    state: opts.state ?? makeState(cwd),
    dataDir: opts.dataDir ?? tempDir('deskhand-data-'),
    emitOutput: (stream, chunk) => void outputs.push({ stream, chunk }),
    usage: { inputTokens: 0, outputTokens: 0, contextWindow: 200_000, messages: 0 },
    outputs,
    abort: () => controller.abort(),
  };
}
