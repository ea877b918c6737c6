/** A real ToolContext over an in-memory ConversationState, for tool tests in fresh temp folders. */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import type { ConversationState, FileSnapshot, StateUpdate, ToolContext, TodoItem } from '../../src/main/runtime/tool';

export interface TestContext extends ToolContext {
  outputs: { stream: 'stdout' | 'stderr'; chunk: string }[];
  published: StateUpdate[];
  /** The data dir a test built its tools with (rm and mv refuse to touch it). */
  dataDir: string;
  abort(): void;
}

export function tempDir(prefix = 'deskhand-test-', parent = tmpdir()): string {
  return realpathSync(mkdtempSync(join(parent, prefix)));
}

export function makeState(cwd: string, roots: string[] = [cwd]): ConversationState {
  const snapshots = new Map<string, FileSnapshot>();
  const readableRoots: string[] = [];
  const revealedTools: string[] = [];
  return {
    cwd,
    workspaceRoots: roots,
    readableRoots,
    addReadableRoots: (paths) => void readableRoots.push(...paths),
    revealedTools,
    revealTools: (names) => void revealedTools.push(...names),
    getFileSnapshot: (path) => snapshots.get(path),
    recordFileSnapshot: (s) => void snapshots.set(s.path, s),
    todos: [] as TodoItem[],
    workState: {},
    slots: {},
  };
}

export function makeContext(cwd: string, opts: { dataDir?: string; state?: ConversationState } = {}): TestContext {
  const controller = new AbortController();
  const outputs: TestContext['outputs'] = [];
  const published: StateUpdate[] = [];
  const redactor = new SecretRedactor();
  return {
    runId: 'run_test',
    conversationId: 'conv_test',
    callId: 'call_test',
    signal: controller.signal,
    state: opts.state ?? makeState(cwd),
    dataDir: opts.dataDir ?? tempDir('deskhand-data-'),
    progress: (stream, chunk) => void outputs.push({ stream, chunk }),
    publish: (update) => void published.push(update),
    redact: (text) => redactor.redact(text),
    published,
    usage: { inputTokens: 0, outputTokens: 0, contextWindow: 200_000, messages: 0 },
    outputs,
    abort: () => controller.abort(),
  };
}
