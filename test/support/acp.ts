/**
 * `deskhand acp` driven by an editor no one here wrote: the ACP SDK's own client side, over the real stdio of the
 * built binary. `startAcp` spawns it against the test's scripted model server and data folder, connects a client
 * that records every session update and answers permission requests with the test's `onPermission`, and sends
 * `initialize` as an editor would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { BIN, cliEnv } from './cli';
import type { CliWorld } from './cli';

export interface AcpSession {
  readonly child: ChildProcess;
  readonly agent: acp.ClientContext;
  readonly initialized: acp.InitializeResponse;
  /** Every session/update received, in order. */
  readonly updates: acp.SessionNotification[];
  /** Every session/request_permission received, in order. */
  readonly permissions: acp.RequestPermissionRequest[];
  readonly stderr: () => string;
  /** The text of every agent_message_chunk so far. */
  agentText(): string;
  /** Closes stdin (the editor went away) and resolves with the exit code once the process ended. */
  close(): Promise<number | null>;
}

export interface AcpOptions {
  onPermission?: (request: acp.RequestPermissionRequest) => Promise<acp.RequestPermissionResponse> | acp.RequestPermissionResponse;
  clientName?: string;
  env?: NodeJS.ProcessEnv;
  /** Offer the editor's file system (fs/read_text_file, fs/write_text_file) with these handlers. */
  fs?: { read?: (path: string) => string; write?: (path: string, content: string) => void };
}

export function acpArgs(world: Pick<CliWorld, 'server' | 'dataDir'>): string[] {
  return ['acp', '--provider', 'openai', '--base-url', world.server.baseURL, '--model', 'm', '--data-dir', world.dataDir];
}

export async function startAcp(world: Pick<CliWorld, 'server' | 'dataDir' | 'work' | 'home'>, opts: AcpOptions = {}): Promise<AcpSession> {
  const child = spawn(process.execPath, [BIN, ...acpArgs(world)], { cwd: world.work, env: cliEnv({ HOME: world.home, ...opts.env }), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const updates: acp.SessionNotification[] = [];
  const permissions: acp.RequestPermissionRequest[] = [];
  const app = acp
    .client({ name: opts.clientName ?? 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params))
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      permissions.push(params);
      if (!opts.onPermission) return { outcome: { outcome: 'cancelled' } };
      return opts.onPermission(params);
    });
  if (opts.fs?.read) {
    const read = opts.fs.read;
    app.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: read(params.path) }));
  }
  if (opts.fs?.write) {
    const write = opts.fs.write;
    app.onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => (write(params.path, params.content), {}));
  }
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  const agent = connection.agent;
  const initialized = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: !!opts.fs?.read, writeTextFile: !!opts.fs?.write }, terminal: false },
    clientInfo: { name: opts.clientName ?? 'test-editor', version: '1.0.0' },
  });
  return {
    child,
    agent,
    initialized,
    updates,
    permissions,
    stderr: () => stderr,
    agentText: () =>
      updates
        .map((u) => u.update)
        .filter((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text')
        .map((u) => (u as { content: { text: string } }).content.text)
        .join(''),
    async close() {
      connection.close();
      child.stdin!.end();
      return exited;
    },
  };
}

/** The updates of one kind, typed. */
export function updatesOf<K extends acp.SessionUpdate['sessionUpdate']>(session: AcpSession, kind: K): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
  return session.updates.map((u) => u.update).filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);
}
