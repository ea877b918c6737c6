/**
 * The CLI's memo of built-in tools' JSON schemas (runtime/tool-schema-memo.ts), kept in this build's folder of the
 * compile cache (compile-cache.ts): `tool-schemas.json`, under the same rules — a private folder (0700, the user's
 * own), files 0600, nothing read or written otherwise, one folder per build so a rebuilt CLI never meets another
 * build's schemas. A tool is kept by its name and a digest of its description. The file is read once, when the first
 * schema is asked for; a process that converted schemas the file lacked adds them at its exit (the file read again and
 * merged, written whole, then renamed: CLI processes run side by side). A damaged or foreign file is ignored and
 * replaced. Anything that fails here only costs the memo: the schema is converted as without it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { debuglog } from 'node:util';
import type { ToolDefinition } from '../../runtime/tool';
import type { ToolSchemaMemo } from '../../runtime/tool-schema-memo';
import { ensurePrivate, privateFolder } from './compile-cache';

const debug = debuglog('deskhand_compile_cache');

const SCHEMA_FILE = 'tool-schemas.json';
const VERSION = 1;
/** More entries than any build has tools (≈ 110): a file past it is started again from what this process made. */
const MAX_ENTRIES = 1000;

type Schemas = Record<string, Record<string, unknown>>;

function keyOf(tool: ToolDefinition): string {
  return `${tool.name}\n${createHash('sha256').update(tool.description).digest('hex').slice(0, 16)}`;
}

function readSchemas(file: string): Schemas {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown; tools?: unknown };
    if (parsed?.version !== VERSION || !parsed.tools || typeof parsed.tools !== 'object' || Array.isArray(parsed.tools)) return {};
    const out: Schemas = {};
    for (const [key, schema] of Object.entries(parsed.tools as Record<string, unknown>)) {
      if (schema && typeof schema === 'object' && !Array.isArray(schema)) out[key] = schema as Record<string, unknown>;
    }
    return out;
  } catch {
    return {};
  }
}

/** A memo backed by `folder`/tool-schemas.json; its additions are written when the process exits. */
export function fileSchemaMemo(folder: string): ToolSchemaMemo {
  const file = join(folder, SCHEMA_FILE);
  let kept: Schemas | null = null;
  const fresh: Schemas = {};
  let writing = false;
  const load = (): Schemas => (kept ??= privateFolder(folder) ? readSchemas(file) : {});
  const write = (): void => {
    if (!ensurePrivate(folder)) {
      debug('tool schemas not written: %s is not a private folder', folder);
      return;
    }
    const merged = { ...readSchemas(file), ...fresh };
    const tools = Object.keys(merged).length > MAX_ENTRIES ? fresh : merged;
    const part = `${file}.${process.pid}.part`;
    try {
      writeFileSync(part, JSON.stringify({ version: VERSION, tools }), { mode: 0o600 });
      renameSync(part, file);
      debug('wrote %d tool schemas to %s', Object.keys(fresh).length, file);
    } catch (err) {
      debug('tool schemas not written: %s (%s)', file, String(err));
    }
  };
  return {
    get(tool) {
      const schema = load()[keyOf(tool)];
      // A copy: each registry entry gets an object of its own, as a conversion would give it.
      return schema ? (JSON.parse(JSON.stringify(schema)) as Record<string, unknown>) : undefined;
    },
    put(tool, schema) {
      const key = keyOf(tool);
      if (load()[key]) return;
      fresh[key] = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
      if (!writing) {
        writing = true;
        process.once('exit', write);
      }
    },
  };
}
