/**
 * `deskhand web` keeps its address: the port and token of the last launch are kept in `web-address.json` in the data
 * folder (mode 0600: the token is the only credential of the page), so a restart prints the same URL and an open tab
 * reconnects. `--port N` moves it; `--new-address` makes a new token (and port) and forgets the old one.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface WebAddress {
  port: number;
  token: string;
}

const FILE = 'web-address.json';
const TOKEN_RE = /^[A-Za-z0-9_-]{32,128}$/;

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

/** The saved address, or null when none is saved or the file is unreadable (a new one is made then). */
export function readWebAddress(dataDir: string): WebAddress | null {
  const file = join(dataDir, FILE);
  if (!existsSync(file)) return null;
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<WebAddress>;
    if (typeof v.token !== 'string' || !TOKEN_RE.test(v.token)) return null;
    if (typeof v.port !== 'number' || !Number.isInteger(v.port) || v.port < 1 || v.port > 65535) return null;
    return { port: v.port, token: v.token };
  } catch {
    return null;
  }
}

export function writeWebAddress(dataDir: string, address: WebAddress): void {
  const file = join(dataDir, FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(address)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/**
 * What to listen on: an explicit port wins; else the saved one. The token is the saved one unless `fresh`.
 * `port` 0 means "any free port".
 */
export function plannedWebAddress(dataDir: string, opts: { port?: number; fresh?: boolean }): { port: number; token: string; reused: boolean } {
  const saved = opts.fresh ? null : readWebAddress(dataDir);
  return {
    port: opts.port ?? saved?.port ?? 0,
    token: saved?.token ?? newToken(),
    reused: saved !== null,
  };
}
