/**
 * The script host's isolation, proved by what a script can reach: nothing of Node (process, require, import(), the
 * Function constructor through any object it holds), only the API, and a busy script is stopped by its signal.
 */
import { describe, expect, it } from 'vitest';
import { phasesOf, runScript, type ScriptCall } from '../../src/main/services/workflows/script-host';

async function run(script: string, handle: (c: ScriptCall) => Promise<unknown> = async () => 'ok', signal = new AbortController().signal) {
  const calls: ScriptCall[] = [];
  const notices: ScriptCall[] = [];
  const out = await runScript({ script, args: 'the args', signal, notice: (c) => notices.push(c), handle: (c) => (calls.push(c), handle(c)) });
  return { out, calls, notices };
}

describe('script host isolation', () => {
  it('has no process, require, timers or Buffer: only the workflow API', async () => {
    const { out } = await run(`return [typeof process, typeof require, typeof setTimeout, typeof Buffer, typeof fetch, typeof module, typeof agent, typeof blackboard.post, args]`);
    expect(out).toEqual({ ok: true, value: JSON.stringify(['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'function', 'function', 'the args']) });
  });

  it.each([
    ['process', 'return process.env', /ReferenceError: process is not defined/],
    ['require', "return require('node:fs').readdirSync('/')", /ReferenceError: require is not defined/],
    ['import()', "return (await import('node:fs')).readdirSync('/')", /dynamic import callback was not specified/],
    ['globalThis.constructor.constructor', "return globalThis.constructor.constructor('return process')()", /EvalError: Code generation from strings disallowed/],
    ['an API function\'s constructor', "return agent.constructor.constructor('return process')()", /EvalError: Code generation from strings disallowed/],
    ['a returned value\'s constructor', "const r = await agent('x'); return r.constructor.constructor('return process')()", /EvalError: Code generation from strings disallowed/],
    ['eval', "return eval('process')", /EvalError/],
    ['the hidden bridge', 'return typeof __send === "undefined" ? __send : __send', /ReferenceError: __send is not defined/],
  ])('refuses %s', async (_name, script, error) => {
    const { out } = await run(script, async () => ({ nested: 'a host answer' }));
    expect(out.ok).toBe(false);
    expect(out.error).toMatch(error);
  });

  it('relays API calls as data and gets answers (and rejections) back as values of its own realm', async () => {
    const { out, calls, notices } = await run(
      `phase('One'); progress('half'); const a = await agent('task A', { description: 'A' });
       let msg = ''; try { await spawn('bad'); } catch (e) { msg = e instanceof Error ? e.message : 'not an Error'; }
       return { a, msg, isArray: Array.isArray(a.list) }`,
      async (c) => {
        if (c.method === 'spawn') throw new Error('no more agents');
        return { list: [1, 2], echo: c.args };
      },
    );
    expect(calls.map((c) => c.method)).toEqual(['agent', 'spawn']);
    expect(calls[0]!.args).toEqual({ description: 'A', prompt: 'task A' });
    expect(notices).toEqual([{ method: 'phase', args: { name: 'One' } }, { method: 'progress', args: { message: 'half' } }]);
    const value = JSON.parse(out.value!) as { a: { list: number[] }; msg: string; isArray: boolean };
    expect(value).toEqual({ a: { list: [1, 2], echo: { description: 'A', prompt: 'task A' } }, msg: 'no more agents', isArray: true });
  });

  it('stops a script stuck in a busy loop when its signal aborts (the worker is terminated)', async () => {
    const ctl = new AbortController();
    const started = run(`await agent('x'); while (true) {}`, async () => {
      setTimeout(() => ctl.abort(new Error('budget spent')), 200);
      return 'ok';
    }, ctl.signal);
    const { out } = await started;
    expect(out).toEqual({ ok: false, error: 'budget spent' });
  });

  it('reports a syntax error and a throw with the message', async () => {
    expect((await run('this is not javascript(')).out.error).toMatch(/SyntaxError/);
    expect((await run("throw new Error('gave up')")).out.error).toMatch(/Error: gave up/);
  });

  it('names the phases a script declares, in order, for the approval', () => {
    expect(phasesOf(`await phase('Plan', f); await phase("Build", g); phase('Plan'); phase(\`Ship\`)`)).toEqual(['Plan', 'Build', 'Ship']);
  });
});
