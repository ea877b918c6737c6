/**
 * The assembled tool set against the reference catalog: every catalog tool's parameters (names, required or optional,
 * types and enum values) against the table derived from the specs (spec-params.ts: each parameter's origin, each
 * deviation with its reason, what a spec asks for that is still missing), Spec I's disclosure table, and descriptions
 * and hints that name only tools that are registered (a model told to call a missing tool wastes a step on an
 * unknown-tool error).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toJSONSchema } from 'zod';
import { makeContext, tempDir } from '../support/tool-context';
import { catalogTools } from '../support/tools';
import { BEYOND_CATALOG, NOT_BUILT, SPEC_PARAMS } from './spec-params';

const tools = catalogTools({ dataDir: tempDir('deskhand-data-') });
const byName = new Map(tools.map((t) => [t.name, t]));

/** Spec I, "What each tool reveals". */
const DISCLOSURE: Record<'public' | 'internal' | 'private', string[]> = {
  public: ['add_reminder', 'cp', 'end_loop', 'mkdir', 'mv', 'propose_goal', 'report_goal_cycle', 'rm', 'web_fetch', 'web_search', 'write_file'],
  internal: [
    'analyze_media', 'cancel_background_jobs', 'cancel_trigger', 'cancel_wait_for', 'cd', 'context_info', 'create_composition', 'create_pdf', 'find',
    'generate_media', 'get_time', 'list_background_jobs', 'list_triggers', 'ls', 'pdf_page_count', 'publish_composition', 'pwd', 'register_trigger',
    'search_tools', 'stat', 'who_is_here',
  ],
  private: [
    'ask_file_picker', 'ask_user_question', 'ask_user_secret', 'browser_act', 'browser_back', 'browser_close', 'browser_navigate', 'browser_screenshot',
    'browser_snapshot', 'browser_tabs', 'cancel_reminder', 'computer_acknowledge_driver', 'computer_apps', 'computer_end', 'computer_foreground',
    'computer_grant_app', 'computer_handoff', 'computer_input', 'computer_install_driver', 'computer_observe', 'computer_pointer', 'computer_wait', 'edit_file', 'execute_command', 'grep', 'http_request', 'list_reminders',
    'list_saved_secrets', 'list_subagents', 'list_todos', 'manage_memory', 'manage_scratchpad', 'manage_todos', 'map_subagents', 'post_to_blackboard',
    'propose_lesson', 'read_blackboard', 'read_file', 'read_pdf', 'retrieve_tool_result', 'run_background_jobs', 'spawn_subagent', 'steer_subagent',
    'summarize_context', 'update_work_state', 'use_saved_secret', 'view_memory', 'view_scratchpad', 'wait_for', 'wait_subagents',
  ],
};

/** Every tool name of the catalog (TOOLS.md's 93), registered or deliberately not. */
const CATALOG = [...Object.keys(SPEC_PARAMS), ...Object.keys(NOT_BUILT)];

/** A parameter as the table spells it: `name`, `?` when optional, `:type` (`enum:a|b`, `union`, `const`, `any`). */
function paramKeys(tool: { params: unknown }): string[] {
  const schema = toJSONSchema(tool.params as never, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const type = Array.isArray(p.enum)
      ? `enum:${(p.enum as unknown[]).join('|')}`
      : p.const !== undefined
        ? 'const'
        : typeof p.type === 'string'
          ? p.type
          : p.anyOf || p.oneOf
            ? 'union'
            : 'any';
    return `${name}${required.has(name) ? '' : '?'}:${type}`;
  });
}

const registered = new Set(tools.flatMap((t) => [t.name, ...(t.aliases ?? [])]));
const missing = CATALOG.filter((n) => !registered.has(n));

/** Catalog tools named in `text` that are not registered. */
function unregisteredIn(text: string): string[] {
  return missing.filter((n) => new RegExp(`\\b${n}\\b`).test(text));
}

describe('the assembled tool set against the reference catalog', () => {
  it('has 93 catalog tools: each registered with its table row, or deliberately not built with the reason', () => {
    expect(new Set(CATALOG).size).toBe(93);
    for (const name of Object.keys(SPEC_PARAMS)) expect(registered.has(name), `${name} is in the table but not registered`).toBe(true);
    for (const [name, why] of Object.entries(NOT_BUILT)) {
      expect(registered.has(name), `${name} is registered now: give it a row in spec-params.ts`).toBe(false);
      expect(why.length).toBeGreaterThan(20);
    }
    // Everything registered is a catalog tool or listed beyond it with its source.
    const unlisted = tools.map((t) => t.name).filter((n) => !(n in SPEC_PARAMS) && !(n in BEYOND_CATALOG));
    expect(unlisted).toEqual([]);
    expect(byName.get('find')?.aliases).toContain('glob');
  });

  it.each(Object.keys(SPEC_PARAMS))('%s takes exactly the parameters of its table row', (name) => {
    const row = SPEC_PARAMS[name]!;
    const actual = paramKeys(byName.get(name)!);
    const expected = Object.keys(row.params);
    const stale = Object.keys(row.missing ?? {}).filter((k) => actual.some((a) => a.split(/\??:/)[0] === k.split(/\??:/)[0]));
    expect(stale, `now in the schema: move from \`missing\` into \`params\` in spec-params.ts`).toEqual([]);
    expect({ extra: actual.filter((k) => !expected.includes(k)), absent: expected.filter((k) => !actual.includes(k)) }, `${name}: update its row (or the tool)`).toEqual({ extra: [], absent: [] });
    for (const [key, origin] of Object.entries(row.params)) expect(origin, `${name}.${key}`).toMatch(/^(I|II|I\+II|D: .{8,})$/);
    for (const [key, why] of Object.entries({ ...row.missing, ...row.notTaken, ...row.pending })) expect(why.length, `${name}.${key}`).toBeGreaterThan(8);
    for (const key of Object.keys(row.pending ?? {})) expect(expected, `${name}: pending names a key of params`).toContain(key);
  });

  it('lists what the specs ask for and is not built yet: nothing, since issue 33', () => {
    const gap = Object.entries(SPEC_PARAMS).flatMap(([name, row]) => Object.keys(row.missing ?? {}).map((k) => `${name}.${k}`));
    // Every parameter the specs ask for is built (issue 33); a new row's missing parameter shows up here.
    expect(gap).toEqual([]);
  });

  it('has the disclosure level of Spec I for every tool the table lists', () => {
    const wrong: string[] = [];
    for (const [level, names] of Object.entries(DISCLOSURE)) {
      for (const name of names) {
        const tool = byName.get(name);
        if (tool && tool.disclosure !== level) wrong.push(`${name}: ${tool.disclosure}, Spec I says ${level}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(byName.get('list_saved_secrets')?.disclosure).toBe('private');
  });

  it('names only registered tools in descriptions', () => {
    expect(missing.length).toBeGreaterThan(0); // the check means something only while some are missing
    const offenders: string[] = [];
    for (const tool of tools) {
      const text = `${tool.description}\n${JSON.stringify(toJSONSchema(tool.params as never, { io: 'input', unrepresentable: 'any' }))}`;
      for (const n of unregisteredIn(text)) offenders.push(`${tool.name} names ${n}`);
    }
    expect(offenders).toEqual([]);
  });

  it('names only registered tools in read_file hints for media, PDFs and binary files', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'photo.png'), 'not really a png');
    writeFileSync(join(dir, 'doc.pdf'), Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01]));
    writeFileSync(join(dir, 'blob.bin'), Buffer.from([0x41, 0x00, 0x42]));
    const read = byName.get('read_file')!;
    for (const path of ['photo.png', 'doc.pdf', 'blob.bin']) {
      const err = await read.execute({ path }, makeContext(dir)).then(
        () => null,
        (e: Error) => e.message,
      );
      expect(err, path).toBeTruthy();
      expect(unregisteredIn(err!), `${path}: ${err}`).toEqual([]);
    }
  });
});
