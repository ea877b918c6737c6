/**
 * Two Deskhands on loopback for the peer tests: `deskhand peers add` in a data dir, `deskhand peers serve` as a child
 * process on 127.0.0.1 (its address read from its first line), and the SDK's own client (@a2a-js/sdk/client) with a
 * Bearer token, the way a client Deskhand did not write calls it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { BIN, cliEnv, runCli } from './cli';

export interface Served {
  url: string;
  child: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

export async function addPeer(dataDir: string, name: string, flags: string[] = [], input?: string): Promise<{ inboundToken: string; [k: string]: unknown }> {
  const r = await runCli(['peers', 'add', name, ...flags, '--data-dir', dataDir, '--json'], input !== undefined ? { input } : {});
  if (r.code !== 0) throw new Error(`peers add ${name} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { inboundToken: string };
}

/** `deskhand peers serve` on the scripted model server; resolves once it prints its address. */
export function servePeers(dataDir: string, folder: string, modelBaseURL: string, env: NodeJS.ProcessEnv = {}, extra: string[] = []): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'peers', 'serve', '--data-dir', dataDir, '--folder', folder, '--provider', 'openai', '--base-url', modelBaseURL, '--model', 'm', '--json', ...extra], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    child.once('exit', (code) => reject(new Error(`peers serve exited ${code} before it listened: ${stderr}`)));
    lines.once('line', (line) => {
      const { url } = JSON.parse(line) as { url: string };
      resolve({
        url,
        child,
        stderr: () => stderr,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

export { bearer, sdkClient, sdkSampleServer, textMessage } from './a2a';
