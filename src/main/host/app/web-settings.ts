/**
 * Settings → Web search and Settings → URL grants, for AppService: web_search's backend (kept in settings.json, its
 * API key a vault secret that a UI may write but never read back) and the URL grants store module, with each grant's
 * coverage in words. The CLI (`deskhand search …`, `deskhand grants …`) keeps the same files and the same rules.
 */
import type { MethodResult, ParsedParams, SearchSettings, UrlGrantView, WebSearchView } from '../../../shared/contract';
import { DeskhandError, errorMessage } from '../../../shared/errors';
import { classifyHost, parseUrlPattern, type UrlPattern } from '../../../shared/url-guard';
import type { Vault } from '../../services/vault/vault';
import { NEEDS_KEY } from '../../tools/web/search-backends';
import { SettingsFile } from '../assembly/settings-file';
import { type Records, type UrlGrantRow } from '../../runtime/records';

const LABEL: Record<SearchSettings['backend'], string> = { searxng: 'SearXNG', brave: 'Brave Search', tavily: 'Tavily' };
/** The vault secret a typed key is saved under when no name is given. */
export const DEFAULT_KEY_SECRET: Record<'brave' | 'tavily', string> = { brave: 'BRAVE_API_KEY', tavily: 'TAVILY_API_KEY' };

export const NO_SEARCH_BACKEND =
  'No web search backend is set: web_search tells the model that searching is not configured. Choose SearXNG (your own instance, no key), Brave Search or Tavily (an API key) and save.';

/** What a URL grant pattern covers, in words (private destinations only by exact host and port). */
export function grantCoverage(p: UrlPattern): { private: boolean; covers: string } {
  const local = classifyHost(p.host);
  if (local) {
    return { private: true, covers: `${p.scheme}//${p.host}:${p.port}${p.path} only — a private destination (${local.detail}), covered because the pattern names that exact host and port` };
  }
  if (p.wildcardHost) return { private: false, covers: `${p.scheme}//*.${p.host}:${p.port}${p.path} — public hosts under ${p.host} only (a wildcard never covers a private destination)` };
  return { private: false, covers: `${p.scheme}//${p.host}:${p.port}${p.path}` };
}

export interface WebSettingsOptions {
  dataDir: string;
  store: Records;
  /** The vault (OS keyring); null when this host has none. */
  vault: Vault | null;
  env: NodeJS.ProcessEnv;
}

export class WebSettings {
  private readonly file: SettingsFile;

  constructor(private readonly opts: WebSettingsOptions) {
    this.file = new SettingsFile(opts.dataDir, opts.env);
  }

  // ── Web search ──

  async searchView(): Promise<WebSearchView> {
    const search = this.file.read().search ?? null;
    let vault: WebSearchView['vault'] = this.opts.vault ? { available: true, message: null } : { available: false, message: 'This Deskhand has no vault (OS keyring).' };
    let keySaved: boolean | null = null;
    if (search && NEEDS_KEY[search.backend]) {
      keySaved = false;
      if (search.keySecret && this.opts.vault) {
        try {
          keySaved = await this.opts.vault.has(search.keySecret);
        } catch (err) {
          vault = { available: false, message: errorMessage(err) };
        }
      }
    }
    return { search, keySaved, vault, message: this.describe(search, keySaved) };
  }

  async setSearch(p: ParsedParams<'setWebSearch'>): Promise<WebSearchView> {
    const settings = this.file.read();
    if (p.backend === 'none') {
      if (p.key) throw new DeskhandError('usage', 'No backend is chosen, so the API key was not saved. Choose Brave Search or Tavily first.');
      this.file.write({ ...settings, search: null });
      return this.searchView();
    }
    if (p.backend === 'searxng') {
      if (!p.url) throw new DeskhandError('usage', 'SearXNG needs the address of your instance (e.g. http://127.0.0.1:8888).');
      if (p.key) throw new DeskhandError('usage', 'SearXNG takes no API key; the key was not saved. Leave the key field empty.');
      this.file.write({ ...settings, search: { backend: 'searxng', url: p.url, keySecret: null } });
      return this.searchView();
    }
    const keySecret = p.keySecret ?? (p.key ? DEFAULT_KEY_SECRET[p.backend] : null);
    if (!keySecret) {
      throw new DeskhandError('usage', `${LABEL[p.backend]} needs an API key: type it (it goes to the OS keyring), or name the vault secret that holds it.`);
    }
    if (p.key) await this.saveKey(keySecret, p.key, `${LABEL[p.backend]} API key (web_search)`);
    this.file.write({ ...settings, search: { backend: p.backend, url: p.url, keySecret } });
    return this.searchView();
  }

  private async saveKey(name: string, key: string, description: string): Promise<void> {
    if (!this.opts.vault) throw new DeskhandError('usage', 'This Deskhand has no vault (OS keyring), so the key cannot be saved here; nothing was changed.');
    try {
      await this.opts.vault.set(name, key, description);
    } catch (err) {
      // Whatever failed (the keyring, most likely) says so without the key.
      const scrub = (text: string) => text.split(key).join('[the key]');
      throw new DeskhandError(DeskhandError.isInstance(err) ? err.code : 'internal', `The key was not saved, and the backend was not changed: ${scrub(errorMessage(err))}`);
    }
  }

  private describe(search: SearchSettings | null, keySaved: boolean | null): string {
    if (!search) return NO_SEARCH_BACKEND;
    const at = search.url ? ` at ${search.url}` : '';
    if (keySaved === false) return `web_search uses ${LABEL[search.backend]}${at}, but the vault has no secret ${search.keySecret ?? ''}: type the API key and save, or run deskhand secrets set ${search.keySecret ?? 'NAME'}.`;
    return `web_search uses ${LABEL[search.backend]}${at}${search.keySecret ? `, with the API key from the vault secret ${search.keySecret}` : ''}.`;
  }

  // ── URL grants ──

  listGrants(): MethodResult<'listUrlGrants'> {
    return { grants: this.opts.store.urlGrants.list().map(project) };
  }

  addGrant(p: ParsedParams<'addUrlGrant'>): MethodResult<'addUrlGrant'> {
    let pattern: UrlPattern;
    try {
      pattern = parseUrlPattern(p.pattern);
    } catch (err) {
      throw new DeskhandError('usage', errorMessage(err));
    }
    const grant = project(this.opts.store.urlGrants.add(pattern.raw));
    return { grant, ...this.listGrants() };
  }

  revokeGrant(p: ParsedParams<'revokeUrlGrant'>): MethodResult<'revokeUrlGrant'> {
    if (!this.opts.store.urlGrants.revoke(p.id)) throw new DeskhandError('not_found', 'That URL grant is not there any more (it may have been revoked from the CLI). The list has been refreshed.');
    return this.listGrants();
  }
}

function project(row: UrlGrantRow): UrlGrantView {
  let coverage: { private: boolean; covers: string };
  try {
    coverage = grantCoverage(parseUrlPattern(row.pattern));
  } catch (err) {
    coverage = { private: false, covers: `nothing: the pattern no longer parses (${errorMessage(err)})` };
  }
  return { id: row.id, pattern: row.pattern, createdAt: row.created_at, ...coverage };
}
