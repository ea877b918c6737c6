/**
 * What a call will do, as one sentence a person reads on its approval card in a second (issue 46): generated from
 * what the tool declared it touches (its effects), the path checks its decision used, and its one-line summary —
 * never from a list of tool names. "Runs `npm test` in the sandbox, network off.", "Writes notes.md in calc/.",
 * "Sends a request to collect.example.", "Types into "zenity".". Null when the call declares nothing to put in words
 * (the card's title and summary say it then). Pure: the same facts give the same sentence (test/runtime/call-sentence.test.ts).
 */
import { basename, dirname, isAbsolute, relative, sep } from 'node:path';
import type { SandboxMode } from '../../../shared/sandbox';
import type { RiskTier } from '../../../shared/tools';
import type { PathCheck } from './path-guard';
import type { Effects, ToolDefinition } from '../tool';

export interface SentenceFacts {
  tool: Pick<ToolDefinition, 'kind'>;
  /** The call's one-line summary (the tool's presentation: the command, the URL…), or null. */
  summary: string | null;
  effects: Effects;
  paths: readonly PathCheck[];
  network: boolean;
  egress: boolean;
  /** The decision's tier for the call. */
  risk: RiskTier;
  secrets: readonly string[];
  sandbox: SandboxMode | undefined;
  workspaceRoots: readonly string[];
}

const APP_VERBS: Record<string, (app: string) => string> = {
  input: (app) => `types into "${app}"`,
  pointer: (app) => `clicks in "${app}"`,
  foreground: (app) => `brings "${app}" to the front`,
  observe: (app) => `reads the windows of "${app}"`,
};

/** A path as the person knows it: relative to the workspace root that holds it (with that root's name), else whole. */
function shown(p: PathCheck, roots: readonly string[]): string {
  const abs = p.resolved || p.path;
  for (const root of roots) {
    const rel = relative(root, abs);
    if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  }
  return abs;
}

function listed(items: readonly string[], noun: string): string {
  const unique = [...new Set(items)];
  if (unique.length <= 2) return unique.join(' and ');
  const folders = [...new Set(unique.map((x) => dirname(x)))];
  return folders.length === 1 && folders[0] !== '.' ? `${unique.length} ${noun}s in ${folders[0]}/` : `${unique.length} ${noun}s (${unique.slice(0, 2).map((x) => basename(x)).join(', ')}…)`;
}

/** The host of a declared URL (`POST https://a.example/x` or a bare URL), or the text itself when it is none. */
function hostOf(url: string): string {
  const last = url.trim().split(/\s+/).pop() ?? url;
  try {
    return new URL(last).host || last;
  } catch {
    return last;
  }
}

const clip = (text: string, max = 120) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

export function callSentence(f: SentenceFacts): string | null {
  const e = f.effects;
  const clauses: string[] = [];
  const writes = f.paths.filter((p) => p.access === 'write' && !p.error);
  const outsideReads = f.paths.filter((p) => p.access === 'read' && !p.error && !p.root);
  const kind = f.tool.kind ?? 'builtin';
  if (kind !== 'builtin') clauses.push(`calls ${kind === 'mcp' ? 'an MCP server\'s tool' : 'a custom tool'}${f.summary ? ` (${clip(f.summary, 80)})` : ''}, whose effects Deskhand cannot see in advance`);
  // A command: a call its family's classifier judged (the shell, background jobs, a custom tool's command line).
  const command = !!e.processes && !!e.assessment;
  if (command) {
    const what = f.summary ? `\`${clip(f.summary)}\`` : 'a command';
    const where = f.sandbox === 'off' ? ' without the sandbox (it can change files anywhere)' : f.network ? ' in the sandbox with the network on' : ' in the sandbox, network off';
    clauses.push(`runs ${what}${where}`);
  }
  const inside = writes.filter((w) => w.root).map((w) => shown(w, f.workspaceRoots));
  const outside = writes.filter((w) => !w.root).map((w) => shown(w, f.workspaceRoots));
  if (!command) {
    if (inside.length) clauses.push(`writes ${listed(inside, 'file')}`);
    if (outside.length) clauses.push(`writes ${listed(outside, 'file')} outside your folders`);
  } else if (outside.length) clauses.push(`writes ${listed(outside, 'file')} outside your folders`);
  if (outsideReads.length) clauses.push(`reads ${listed(outsideReads.map((p) => shown(p, f.workspaceRoots)), 'file')} outside your folders`);
  const hosts = [...new Set([...(e.urls ?? []).map(hostOf), ...(e.hosts ?? [])])];
  // A request that can change or carry something (its tier is above read-only, or it names such a method) sends; a
  // read-only one fetches.
  const sends = f.risk !== 'read-only' || (e.urls ?? []).some((u) => /^\s*(POST|PUT|PATCH|DELETE)\s/i.test(u));
  if (hosts.length) clauses.push(`${sends ? 'sends a request to' : 'fetches from'} ${listed(hosts, 'host')}`);
  else if (f.egress && !e.apps?.length) clauses.push('sends data out of Deskhand');
  else if (e.network && !command) clauses.push('contacts other machines');
  const apps = e.apps ?? [];
  const seen = new Set<string>();
  for (const a of apps) {
    const verb = APP_VERBS[a.capability];
    const clause = verb ? verb(a.app) : `uses "${a.app}"`;
    if (!seen.has(clause)) clauses.push(clause);
    seen.add(clause);
  }
  if (e.screens?.length) clauses.push('takes a screenshot');
  if (e.wakesLater) clauses.push('schedules the agent to run again later');
  if (!clauses.length) return null;
  const used = f.secrets.length ? `, using the saved secret${f.secrets.length > 1 ? 's' : ''} ${f.secrets.join(', ')}` : '';
  const joined = clauses.length === 1 ? clauses[0]! : `${clauses.slice(0, -1).join(', ')} and ${clauses.at(-1)!}`;
  return `${joined[0]!.toUpperCase()}${joined.slice(1)}${used}.`;
}
