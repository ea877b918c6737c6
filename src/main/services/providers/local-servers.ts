/**
 * Local model servers that are already running (Ollama on 11434, LM Studio on 1234), found with one short request
 * each so the first-run panel can offer them before any cloud provider. Nothing is sent but a GET for the model list.
 */

export interface LocalServer {
  kind: 'ollama' | 'lmstudio';
  label: string;
  /** The OpenAI-compatible base URL to save (…/v1). */
  baseURL: string;
  models: string[];
}

export interface LocalServerProbe {
  kind: LocalServer['kind'];
  label: string;
  /** Where the server listens, without /v1 (http://127.0.0.1:11434). */
  url: string;
  /** Model-list endpoints to try in order; the first that answers with a list wins. */
  paths: string[];
}

export const DEFAULT_PROBES: readonly LocalServerProbe[] = [
  { kind: 'ollama', label: 'Ollama', url: 'http://127.0.0.1:11434', paths: ['/api/tags', '/v1/models'] },
  { kind: 'lmstudio', label: 'LM Studio', url: 'http://127.0.0.1:1234', paths: ['/v1/models'] },
];

/**
 * The probes for this host: the defaults, with their addresses replaceable through the environment
 * (DESKHAND_OLLAMA_URL, DESKHAND_LMSTUDIO_URL) for a server elsewhere, and for tests.
 */
export function probesFromEnv(env: NodeJS.ProcessEnv): LocalServerProbe[] {
  const override: Record<LocalServer['kind'], string | undefined> = { ollama: env.DESKHAND_OLLAMA_URL, lmstudio: env.DESKHAND_LMSTUDIO_URL };
  return DEFAULT_PROBES.map((p) => {
    const url = override[p.kind]?.trim();
    return url && /^https?:\/\//.test(url) ? { ...p, url: url.replace(/\/+$/, '').replace(/\/v1$/, '') } : { ...p };
  });
}

/**
 * How long a listening server may take to list its models. Nothing running costs nothing (the port refuses at once);
 * only a server that accepted the connection is waited for, and a loaded machine's Ollama can take seconds to answer
 * while it loads a model: a short bound would report it as not running.
 */
export const PROBE_TIMEOUT_MS = 8_000;

/** The servers that answered within `timeoutMs` (probed in parallel). */
export async function detectLocalServers(probes: readonly LocalServerProbe[], timeoutMs = PROBE_TIMEOUT_MS): Promise<LocalServer[]> {
  const found = await Promise.all(probes.map((p) => probe(p, timeoutMs)));
  return found.filter((s): s is LocalServer => s !== null);
}

async function probe(p: LocalServerProbe, timeoutMs: number): Promise<LocalServer | null> {
  const signal = AbortSignal.timeout(timeoutMs);
  for (const path of p.paths) {
    try {
      const res = await fetch(`${p.url}${path}`, { signal, headers: { accept: 'application/json' }, redirect: 'error' });
      if (!res.ok) continue;
      const models = modelNames(await res.json());
      if (models) return { kind: p.kind, label: p.label, baseURL: `${p.url}/v1`, models };
    } catch {
      if (signal.aborted) return null;
      // refused, not JSON, not a model list: try the next endpoint
    }
  }
  return null;
}

/** `{models: [{name}]}` (Ollama's /api/tags) or `{data: [{id}]}` (OpenAI's /v1/models); null for anything else. */
function modelNames(body: unknown): string[] | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as { models?: unknown; data?: unknown };
  const list = Array.isArray(b.models) ? b.models : Array.isArray(b.data) ? b.data : null;
  if (!list) return null;
  const names = list
    .map((m) => (m && typeof m === 'object' ? ((m as { name?: unknown; model?: unknown; id?: unknown }).name ?? (m as { model?: unknown }).model ?? (m as { id?: unknown }).id) : null))
    .filter((n): n is string => typeof n === 'string' && n.length > 0 && n.length <= 200);
  return [...new Set(names)].slice(0, 50);
}
