/**
 * The assembled tool set against the reference catalog: Spec I's disclosure table, and descriptions and hints that
 * name only tools that are registered (a model told to call a missing tool wastes a step on an unknown-tool error).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toJSONSchema } from 'zod';
import { makeContext, tempDir } from '../support/tool-context';
import { builtinTools } from '../support/tools';

const tools = builtinTools({ dataDir: tempDir('deskhand-data-') });
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
    'ask_file_picker', 'ask_user_question', 'ask_user_secret', 'cancel_reminder', 'edit_file', 'execute_command', 'grep', 'http_request', 'list_reminders',
    'list_saved_secrets', 'list_subagents', 'list_todos', 'manage_memory', 'manage_scratchpad', 'manage_todos', 'map_subagents', 'post_to_blackboard',
    'propose_lesson', 'read_blackboard', 'read_file', 'read_pdf', 'retrieve_tool_result', 'run_background_jobs', 'spawn_subagent', 'steer_subagent',
    'summarize_context', 'update_work_state', 'use_saved_secret', 'view_memory', 'view_scratchpad', 'wait_for', 'wait_subagents',
  ],
};

/** Every tool name of the catalog (TOOLS.md), registered or not yet. */
const CATALOG = [
  'read_file', 'write_file', 'edit_file', 'ls', 'stat', 'find', 'glob', 'grep', 'mkdir', 'cp', 'mv', 'rm', 'pwd', 'cd', 'read_pdf', 'pdf_page_count',
  'read_media_file', 'who_is_here', 'execute_command', 'wait_for', 'cancel_wait_for', 'run_background_jobs', 'list_background_jobs',
  'cancel_background_jobs', 'task_output', 'wait_tasks', 'web_search', 'web_fetch', 'http_request', 'list_todos', 'manage_todos', 'update_work_state',
  'view_memory', 'manage_memory', 'propose_lesson', 'view_scratchpad', 'manage_scratchpad', 'enter_plan_mode', 'exit_plan_mode', 'propose_goal',
  'get_goal', 'set_goal_budget', 'report_goal_cycle', 'end_loop', 'add_reminder', 'list_reminders', 'cancel_reminder', 'register_trigger',
  'list_triggers', 'cancel_trigger', 'context_info', 'get_time', 'retrieve_tool_result', 'summarize_context', 'search_tools', 'spawn_subagent',
  'map_subagents', 'list_subagents', 'wait_subagents', 'steer_subagent', 'post_to_blackboard', 'read_blackboard', 'ask_user_question',
  'ask_file_picker', 'ask_user_secret', 'list_saved_secrets', 'use_saved_secret', 'analyze_media', 'generate_media', 'create_composition',
  'create_pdf', 'publish_composition', 'find_skills', 'load_skill', 'load_skill_section',
];

const registered = new Set(tools.flatMap((t) => [t.name, ...(t.aliases ?? [])]));
const missing = CATALOG.filter((n) => !registered.has(n));

/** Catalog tools named in `text` that are not registered. */
function unregisteredIn(text: string): string[] {
  return missing.filter((n) => new RegExp(`\\b${n}\\b`).test(text));
}

describe('the assembled tool set against the reference catalog', () => {
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
