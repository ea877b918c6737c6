import { describe, expect, it } from 'vitest';
import { manageTodos } from '../../src/main/tools/todos/manage-todos';
import { listTodos } from '../../src/main/tools/todos/list-todos';
import { updateWorkState } from '../../src/main/tools/todos/update-work-state';
import { getTime } from '../../src/main/tools/context/get-time';
import { contextInfo } from '../../src/main/tools/context/context-info';
import { makeContext, tempDir } from '../support/tool-context';

describe('todos and work state', () => {
  it('replaces the whole list and reads it back', async () => {
    const ctx = makeContext(tempDir());
    const args = manageTodos.params.parse({ todos: [{ title: 'read', status: 'done' }, { title: 'write', status: 'in_progress', priority: 'high' }] });
    await manageTodos.execute(args, ctx);
    const out = (await listTodos.execute({}, ctx)).output;
    expect(out).toBe('1/2 done\n[x] t1: read\n[~] t2: write (high)');
    await manageTodos.execute(manageTodos.params.parse({ todos: [] }), ctx);
    expect((await listTodos.execute({}, ctx)).output).toBe('The todo list is empty.');
  });

  it('rejects duplicate ids and bad statuses with readable errors', async () => {
    const ctx = makeContext(tempDir());
    await expect(manageTodos.execute(manageTodos.params.parse({ todos: [{ id: 'a', title: 'x', status: 'pending' }, { id: 'a', title: 'y', status: 'pending' }] }), ctx)).rejects.toThrow(/Duplicate todo id "a"/);
    expect(manageTodos.params.safeParse({ todos: [{ title: 'x', status: 'finished' }] }).success).toBe(false);
  });

  it('patches work state and deletes keys with null', async () => {
    const ctx = makeContext(tempDir());
    await updateWorkState.execute({ patch: { goal: 'ship', next: 'tests' } }, ctx);
    const out = await updateWorkState.execute({ patch: { next: null, found: 3 } }, ctx);
    expect(JSON.parse(out.output)).toEqual({ goal: 'ship', found: 3 });
    await expect(updateWorkState.execute({ patch: { big: 'x'.repeat(20_000) } }, ctx)).rejects.toThrow(/limit is 16384/);
  });

  it('tells the time with the zone and reports context use', async () => {
    const ctx = makeContext(tempDir());
    const t = JSON.parse((await getTime.execute({}, ctx)).output) as { utc: string; timeZone: string; local: string };
    expect(Math.abs(Date.parse(t.utc) - Date.now())).toBeLessThan(5000);
    expect(t.local).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    const c = JSON.parse((await contextInfo.execute({}, { ...ctx, usage: { inputTokens: 50_000, outputTokens: 10, contextWindow: 200_000, messages: 4 } })).output);
    expect(c).toMatchObject({ percentUsed: 25, messages: 4 });
  });
});
