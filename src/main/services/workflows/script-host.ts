/**
 * The isolated script host for workflows: the script runs in a worker thread, inside a `node:vm` context of its own
 * (a null-prototype global, code generation from strings disabled, no dynamic import callback). Nothing of Node is in
 * that context — no `require`, `process`, timers, file system or network — only the workflow API, built inside the
 * context so no object of another realm (whose constructor would lead back to `Function` and `process`) is reachable.
 * Every API call crosses as a JSON string to this side, where the host answers it (spawning subagents, the
 * blackboard, the person). Stopping the run terminates the worker, whatever the script is doing (a busy loop too).
 */
import { Worker } from 'node:worker_threads';

/** The API the script sees, as globals (also all together as `workflow`). */
export const SCRIPT_API = ['args', 'phase', 'progress', 'log', 'agent', 'spawn', 'wait', 'map', 'steer', 'cancel', 'blackboard', 'ask', 'sleep', 'budget'] as const;

// The worker's code (plain JavaScript, run with `eval`): it builds the context and relays calls.
const WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const vm = require('node:vm');
const sandbox = Object.create(null);
sandbox.__send = (text) => { try { parentPort.postMessage({ type: 'call', text: String(text) }); } catch {} };
const context = vm.createContext(sandbox, { name: 'workflow', codeGeneration: { strings: false, wasm: false } });
const setup = ${'`'}'use strict';
(function () {
  const send = globalThis.__send;
  delete globalThis.__send;
  const pending = new Map();
  let next = 1;
  const call = (method, args) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    send(JSON.stringify({ id, method, args: args === undefined ? null : args }));
  });
  const tell = (method, args) => { send(JSON.stringify({ id: 0, method, args })); };
  const text = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
  const api = {
    args: ARGS,
    phase: async (name, fn) => {
      if (typeof name !== 'string' || !name) throw new TypeError('phase(name, fn?) needs a name');
      tell('phase', { name });
      if (typeof fn !== 'function') return undefined;
      const value = await fn();
      tell('phase_output', { name, output: value === undefined ? null : text(value) });
      return value;
    },
    progress: (message) => tell('progress', { message: text(message) }),
    log: (...parts) => tell('log', { message: parts.map(text).join(' ') }),
    agent: (prompt, opts) => call('agent', Object.assign({}, opts || {}, { prompt })),
    spawn: (prompt, opts) => call('spawn', Object.assign({}, opts || {}, { prompt })),
    wait: (ids, opts) => call('wait', Object.assign({}, opts || {}, { ids: [].concat(ids).map((h) => (h && typeof h === 'object' ? h.id : h)) })),
    map: (items, template, opts) => call('map', Object.assign({}, opts || {}, { items, template })),
    steer: (id, message) => call('steer', { id: id && typeof id === 'object' ? id.id : id, message }),
    cancel: (id) => call('cancel', { id: id && typeof id === 'object' ? id.id : id }),
    blackboard: Object.freeze({
      post: (topic, body) => call('post', { topic, body: text(body) }),
      read: (opts) => call('read', opts || {}),
    }),
    ask: (question, options) => call('ask', { question, options: options || null }),
    sleep: (ms) => call('sleep', { ms }),
    budget: () => call('budget', null),
  };
  Object.freeze(api);
  for (const key of Object.keys(api)) Object.defineProperty(globalThis, key, { value: api[key], enumerable: true });
  Object.defineProperty(globalThis, 'workflow', { value: api, enumerable: true });
  return (id, ok, payload) => {
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (ok) p.resolve(payload === null ? undefined : JSON.parse(payload));
    else p.reject(new Error(payload));
  };
})();${'`'};
let deliver;
try {
  deliver = vm.runInContext(setup.replace('ARGS', () => JSON.stringify(workerData.args)), context, { filename: 'workflow-api.js' });
} catch (err) {
  parentPort.postMessage({ type: 'end', ok: false, error: 'the script host could not start: ' + (err && err.message) });
}
parentPort.on('message', (m) => {
  if (m && m.type === 'reply') deliver(m.id, m.ok, m.payload);
  // Handled after every reply before it and the script's reactions to them (microtasks): the calls those made came first.
  else if (m && m.type === 'ping') parentPort.postMessage({ type: 'pong', n: m.n });
});
const report = (ok, value) => {
  let payload;
  try { payload = ok ? (value === undefined ? null : (typeof value === 'string' ? value : JSON.stringify(value))) : String(value); } catch (e) { payload = String(value); }
  parentPort.postMessage({ type: 'end', ok, [ok ? 'value' : 'error']: payload });
};
if (deliver) {
  try {
    const script = new vm.Script('(async () => {\n' + workerData.script + '\n})()', { filename: 'workflow.js', lineOffset: -1 });
    const done = script.runInContext(context, { timeout: workerData.syncTimeoutMs });
    Promise.resolve(done).then((v) => report(true, v), (e) => report(false, e && e.stack ? String(e.stack).split('\n').slice(0, 4).join('\n') : String(e)));
  } catch (e) {
    report(false, e && e.message ? (e.name || 'Error') + ': ' + e.message : String(e));
  }
}
`;

export interface ScriptCall {
  method: string;
  args: Record<string, unknown> | null;
  /** The call's place in the order the script made its calls (1, 2, …; notices have none). */
  seq?: number;
}

export interface ScriptOutcome {
  ok: boolean;
  /** The script's return value as text (JSON for values that are not strings), or its error. */
  value?: string | null;
  error?: string;
}

export interface RunScriptOptions {
  script: string;
  args: string;
  /** Answers one API call (a rejection reaches the script as an Error with the message). */
  handle(call: ScriptCall): Promise<unknown>;
  /** Fire-and-forget notices: phase, phase_output, progress, log. */
  notice(call: ScriptCall): void;
  signal: AbortSignal;
  /** A synchronous stretch longer than this (the first run of the script body) is stopped. */
  syncTimeoutMs?: number;
  /** Heap ceiling of the worker. */
  maxHeapMb?: number;
  /**
   * Given once the worker runs: `idle()` resolves when the script has reacted to every answer sent so far (it has no
   * timers, so whatever it does next after an answer is done by then, its new calls already received).
   */
  onStart?(controls: { idle(): Promise<void> }): void;
}

/** Runs a workflow script to its end, its throw, or the signal (which terminates the worker). */
export function runScript(opts: RunScriptOptions): Promise<ScriptOutcome> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      env: {},
      argv: [],
      execArgv: [],
      stdout: true,
      stderr: true,
      workerData: { script: opts.script, args: opts.args, syncTimeoutMs: opts.syncTimeoutMs ?? 10_000 },
      resourceLimits: { maxOldGenerationSizeMb: opts.maxHeapMb ?? 128 },
    });
    let settled = false;
    const settle = (outcome: ScriptOutcome) => {
      if (settled) return;
      settled = true;
      for (const done of pongs.values()) done();
      pongs.clear();
      opts.signal.removeEventListener('abort', stop);
      void worker.terminate();
      resolve(outcome);
    };
    const pongs = new Map<number, () => void>();
    let pings = 0;
    opts.onStart?.({
      idle: () =>
        new Promise<void>((resolvePong) => {
          if (settled) return resolvePong();
          const n = ++pings;
          pongs.set(n, resolvePong);
          worker.postMessage({ type: 'ping', n });
        }),
    });
    const stop = () => settle({ ok: false, error: String(opts.signal.reason instanceof Error ? opts.signal.reason.message : (opts.signal.reason ?? 'stopped')) });
    opts.signal.addEventListener('abort', stop, { once: true });
    if (opts.signal.aborted) return stop();
    worker.on('message', (m: { type: string; text?: string; ok?: boolean; value?: string | null; error?: string; n?: number }) => {
      if (m.type === 'pong') {
        pongs.get(m.n ?? 0)?.();
        pongs.delete(m.n ?? 0);
        return;
      }
      if (m.type === 'end') return settle(m.ok ? { ok: true, value: m.value ?? null } : { ok: false, error: m.error ?? 'the script failed' });
      if (m.type !== 'call' || typeof m.text !== 'string') return;
      let call: { id: number; method: string; args: Record<string, unknown> | null };
      try {
        call = JSON.parse(m.text) as typeof call;
      } catch {
        return;
      }
      if (call.id === 0) {
        try {
          opts.notice({ method: call.method, args: call.args });
        } catch {
          // a notice is best effort
        }
        return;
      }
      opts.handle({ method: call.method, args: call.args, seq: call.id }).then(
        (value) => !settled && worker.postMessage({ type: 'reply', id: call.id, ok: true, payload: value === undefined ? null : JSON.stringify(value) }),
        (err: unknown) => !settled && worker.postMessage({ type: 'reply', id: call.id, ok: false, payload: err instanceof Error ? err.message : String(err) }),
      );
    });
    worker.on('error', (err) => settle({ ok: false, error: `the script host stopped: ${err.message}` }));
    worker.on('exit', (code) => settle({ ok: false, error: `the script host exited (code ${code}) before the script ended` }));
  });
}

/** The phases a script names (`phase('Research', …)`), in order, for the approval preview. */
export function phasesOf(script: string): string[] {
  const names: string[] = [];
  for (const m of script.matchAll(/\bphase\(\s*(['"`])([^'"`\n]{1,80})\1/g)) if (!names.includes(m[2]!)) names.push(m[2]!);
  return names;
}
