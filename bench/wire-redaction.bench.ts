/**
 * What the one redactor at the wire (src/main/runtime/context/wire-redaction.ts) costs a model step: the whole built-in tool
 * set, a 20 KB system prompt and a 400-message history of about 1 MB (frozen, as history-cache.ts keeps it), through a
 * redactor holding five vault secrets and this machine's credential-named environment.
 * - `wire_redaction_first_ms`: a request nothing was cached for (the first step of a conversation in this process).
 * - `wire_redaction_next_step_ms`: the next step's request — the same history plus one new message, the same tools
 *   and system text — which is what every later step pays.
 */
import { createAppRuntime } from '../src/main/host/assembly/open-runtime';
import { SecretRedactor } from '../src/main/runtime/context/redaction';
import { redactRequest } from '../src/main/runtime/context/wire-redaction';
import { tempDir } from '../test/support/tool-context';
import { figure, timed, type BenchResult } from './lib';

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as object)) deepFreeze(x);
  }
  return v;
}

export default async function bench(): Promise<BenchResult> {
  const runtime = createAppRuntime({ dataDir: tempDir('deskhand-bench-wire-'), vault: null });
  try {
    const tools = runtime.registry.modelTools().map((t) => ({ type: 'function' as const, name: t.name, description: t.description, inputSchema: t.inputSchema }));
    const system = 'You are Deskhand. '.repeat(1100);
    const line = 'src/app.ts:42: const total = items.reduce((a, b) => a + b.price, 0); // sum of the order\n';
    const history = Array.from({ length: 400 }, (_, i) =>
      deepFreeze(
        i % 2 === 0
          ? { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${i}`, toolName: 'read_file', input: { path: `src/file${i}.ts` } }] }
          : { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i - 1}`, toolName: 'read_file', output: { type: 'text', value: line.repeat(30) } }] },
      ),
    );
    const secrets = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`VAULT_${i}`, `Vault-Secret-${i}-${Math.random().toString(36).slice(2, 14)}`]));
    let redactor = new SecretRedactor({ secrets });
    const request = (n: number) => ({ prompt: [{ role: 'system', content: system }, ...history.slice(0, n)], tools });
    const first = await timed(20, 2, async () => {
      redactor = new SecretRedactor({ secrets });
      redactRequest(redactor, request(399));
    });
    redactor = new SecretRedactor({ secrets });
    redactRequest(redactor, request(399));
    let extra = 0;
    const next = await timed(50, 5, async () => {
      // One more message than the cached request: a new frozen object, as the next step's history brings.
      const added = deepFreeze({ role: 'user', content: [{ type: 'text', text: `step ${extra++}: ${line}` }] });
      redactRequest(redactor, { prompt: [...request(399).prompt, added], tools });
    });
    return {
      wire_redaction_first_ms: figure(first, { unit: 'ms' }),
      wire_redaction_next_step_ms: figure(next, { unit: 'ms', headline: true }),
    };
  } finally {
    runtime.store.close();
  }
}
