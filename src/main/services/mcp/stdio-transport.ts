/**
 * An MCP stdio transport Deskhand owns end to end: the server is started through the process launcher, in its own
 * process group with a filtered environment (a project server also inside the OS sandbox), so stopping it ends
 * everything it started; every line it writes is checked (a line that is not JSON-RPC closes the connection with that
 * error instead of leaving a request hanging); a message over the size limit is answered for the server with an
 * error naming the limit, so a 20 MB result never reaches memory whole.
 */
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { launchForModel, type ChildProcess, type LaunchedProcess } from '../processes/launcher';
import type { SandboxPlan } from '../sandbox/sandbox';

// 8 MB: an MCP App's view travels as one resources/read answer (server-pdf's is 4.4 MB of single-file HTML).
export const DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
const STDERR_TAIL_BYTES = 4096;

/**
 * The only variables a server inherits from Deskhand's own environment (after the launcher's credential filter);
 * everything else it gets is named in its configuration.
 */
export const SERVER_INHERITED: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'TZ', 'DISPLAY', 'XDG_RUNTIME_DIR'];

export interface OwnedStdioOptions {
  command: string;
  args: readonly string[];
  /** Variables the configuration sets for this server (literal values and the saved secrets it names), as given. */
  env: Record<string, string>;
  cwd?: string | undefined;
  /** How the server runs: the OS sandbox for a project server, as it is (the person's own choice) otherwise. */
  sandbox: SandboxPlan;
  maxMessageBytes?: number;
}

export class OwnedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Why the connection ended, in words (exit code, malformed output), once it has. */
  endReason: string | null = null;
  private child: (ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable }) | null = null;
  private launched: LaunchedProcess | null = null;
  private chunks: Buffer[] = [];
  private pending = 0;
  /** Past the size limit: the start of the oversized message (for its id) while the rest is skipped. */
  private skipping: { head: string; bytes: number } | null = null;
  private stderrText = '';
  private closed = false;
  private readonly max: number;
  /** The SDK's message schema, loaded at start (the SDK is large; hosts without MCP servers never load it). */
  private schema: { parse(value: unknown): unknown } | null = null;

  constructor(private readonly opts: OwnedStdioOptions) {
    this.max = opts.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * The server's stderr stream. Also how the SDK knows this is a stdio transport (it looks for `stderr` and `pid`):
   * over stdio a server that does not answer the version probe is an older one, not an outage.
   */
  get stderr(): Readable | null {
    return this.child?.stderr ?? null;
  }

  /** The last few KB the server wrote to stderr. */
  stderrTail(): string {
    return this.stderrText;
  }

  async start(): Promise<void> {
    const { parseJSONRPCMessage } = await import('@modelcontextprotocol/client');
    this.schema = { parse: parseJSONRPCMessage };
    return new Promise((resolve, reject) => {
      // Through the launcher: its own process group (stopping it stops whatever it started), the sandbox plan, and
      // Deskhand's environment filtered down to SERVER_INHERITED plus what the configuration names.
      const launched = launchForModel({
        file: this.opts.command,
        args: this.opts.args,
        sandbox: this.opts.sandbox,
        cwd: this.opts.cwd ?? process.cwd(),
        inherit: SERVER_INHERITED,
        env: this.opts.env,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      this.launched = launched;
      const child = launched.child as ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable };
      this.child = child;
      child.once('error', (err) => {
        this.end(`could not start ${this.opts.command}: ${err.message}`);
        reject(err);
      });
      child.once('spawn', () => resolve());
      // Its last words on stderr arrive after the exit: wait for the pipe to close (briefly) so the tail has them.
      let stderrClosed = false;
      child.stderr.once('close', () => (stderrClosed = true));
      child.once('exit', (code, signal) => {
        const why = `the server exited (${code !== null ? `code ${code}` : `signal ${signal}`})`;
        if (stderrClosed) return this.end(why);
        const timer = setTimeout(() => this.end(why), 200);
        child.stderr.once('close', () => {
          clearTimeout(timer);
          this.end(why);
        });
      });
      child.stdin.on('error', () => undefined);
      child.stdout.on('data', (chunk: Buffer) => this.feed(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        this.stderrText = (this.stderrText + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return Promise.reject(new Error(this.endReason ?? 'the server is not running'));
    return new Promise((resolve) => {
      if (child.stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else child.stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    this.end(this.endReason ?? 'closed by Deskhand');
    await this.launched?.stop(1500).catch(() => undefined);
  }

  /** Whether the OS sandbox confines the server. */
  get sandboxed(): boolean {
    return this.launched?.sandboxed ?? false;
  }

  private end(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.endReason = reason;
    // Whatever the server left in its group (and its tagged descendants) goes with it.
    void this.launched?.stop(1500).catch(() => undefined);
    this.onclose?.();
  }

  private feed(chunk: Buffer): void {
    let rest = chunk;
    while (rest.length && !this.closed) {
      const nl = rest.indexOf(0x0a);
      const part = nl === -1 ? rest : rest.subarray(0, nl);
      rest = nl === -1 ? Buffer.alloc(0) : rest.subarray(nl + 1);
      if (this.skipping) {
        this.skipping.bytes += part.length;
        if (nl !== -1) this.oversized();
        continue;
      }
      this.chunks.push(part);
      this.pending += part.length;
      if (this.pending > this.max) {
        const head = Buffer.concat(this.chunks).subarray(0, 256).toString('utf8');
        this.skipping = { head, bytes: this.pending };
        this.chunks = [];
        this.pending = 0;
        if (nl !== -1) this.oversized();
        continue;
      }
      if (nl !== -1) {
        const line = Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
        this.chunks = [];
        this.pending = 0;
        if (line.trim()) this.line(line);
      }
    }
  }

  private line(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = this.schema!.parse(JSON.parse(line)) as JSONRPCMessage;
    } catch {
      const shown = line.length > 120 ? `${line.slice(0, 120)}…` : line;
      const err = new Error(`the server wrote a line that is not JSON-RPC: ${JSON.stringify(shown)}`);
      this.onerror?.(err);
      this.endReason = err.message;
      void this.close();
      return;
    }
    this.onmessage?.(message);
  }

  /** Answers an oversized message's request for the server: an error naming the size and the limit. */
  private oversized(): void {
    const { head, bytes } = this.skipping!;
    this.skipping = null;
    const id = /"id"\s*:\s*(\d+|"(?:[^"\\]|\\.){0,200}")/.exec(head)?.[1];
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    const text = `the server sent a message of at least ${mb(bytes)}, over Deskhand's limit of ${mb(this.max)}; it was discarded`;
    if (id === undefined) {
      this.onerror?.(new Error(text));
      return;
    }
    this.onerror?.(new Error(text));
    this.onmessage?.({ jsonrpc: '2.0', id: JSON.parse(id) as string | number, error: { code: -32001, message: `${text}. Ask for less (a narrower request).` } });
  }
}
