/**
 * `deskhand grants add-url PATTERN | list | revoke ID|PATTERN` (URL grants: matching requests run unattended; a
 * private destination only when the pattern names its exact host and port) and `deskhand search show | set BACKEND
 * [--url URL] [--key-secret NAME] | clear` (web_search's backend, kept in settings.json; keys stay in the vault).
 */
import { searchBackendSchema, type SearchSettings } from '../../../shared/contract';
import { parseUrlPattern } from '../../../shared/url-guard';
import { resolveDataDir } from '../assembly/data-dir';
import { SettingsFile } from '../assembly/settings-file';
import { grantCoverage } from '../app/web-settings';
import { revokeRule, ruleViews } from '../app/rules-view';
import { appGrantBook, listAppGrants } from '../app/app-grants-view';
import { parseSubcommand, usage, withRecords } from './common';

export async function grantsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, {});
  return withRecords(values['data-dir'], (store) => {
    switch (sub) {
      case 'add-url': {
        const raw = positionals[0];
        if (!raw) throw usage('grants add-url needs a PATTERN, e.g. https://api.example.com/v1/*');
        let pattern;
        try {
          pattern = parseUrlPattern(raw);
        } catch (err) {
          throw usage(err instanceof Error ? err.message : String(err));
        }
        const row = store.urlGrants.add(pattern.raw);
        // Said in the same words as Settings → URL grants.
        const note = `covers ${grantCoverage(pattern).covers}`;
        if (values.json) process.stdout.write(`${JSON.stringify({ ...row, note })}\n`);
        else process.stdout.write(`${row.id}  ${row.pattern}\n  ${note}\n`);
        return 0;
      }
      case 'list': {
        const rows = store.urlGrants.list();
        const apps = listAppGrants(store);
        if (values.json) process.stdout.write(`${JSON.stringify([...rows.map((r) => ({ type: 'url', ...r })), ...apps.map((a) => ({ type: 'app', ...a }))])}\n`);
        else {
          if (!rows.length) process.stdout.write('No URL grants.\n');
          else for (const r of rows) process.stdout.write(`${r.id}  ${r.pattern}\n`);
          for (const a of apps) process.stdout.write(`app ${a.app}  ${a.covers}\n`);
        }
        return 0;
      }
      case 'revoke': {
        const what = positionals[0];
        if (!what) throw usage('grants revoke needs an ID or the PATTERN of a URL grant, or the APP of an app grant.');
        // A URL grant by id or pattern, else an app grant by the app's name (computer use).
        const had = store.urlGrants.revoke(what) || appGrantBook(store).revoke(what);
        process.stderr.write(had ? `Revoked ${what}.\n` : `No URL or app grant ${what} (see deskhand grants list).\n`);
        return had ? 0 : 1;
      }
      default:
        throw usage('grants needs add-url PATTERN, list or revoke ID|PATTERN|APP.');
    }
  });
}

/** `deskhand rules list [--json] | rm RULE_ID`: the always-allow rules, where they apply and how often they matched. */
export async function rulesCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, {});
  return withRecords(values['data-dir'], (store) => {
    switch (sub) {
      case 'list': {
        const rules = ruleViews(store);
        if (values.json) process.stdout.write(`${JSON.stringify(rules)}\n`);
        else if (!rules.length) process.stdout.write('No always-allow rules. They are saved by answering "Always allow" on an approval.\n');
        else {
          for (const r of rules) {
            const last = r.lastMatchedAt ? `, last ${new Date(r.lastMatchedAt).toISOString()}` : '';
            const ends = r.expired ? 'EXPIRED (asks again)' : r.scope === 'task' ? 'until the run ends' : r.expiresAt ? `until ${new Date(r.expiresAt).toISOString()}` : 'until revoked';
            process.stdout.write(`${r.id}  ${r.tool}  ${r.pattern}\n  covers ${r.covers}, ${r.where}, ${ends}; matched ${r.matchCount} time${r.matchCount === 1 ? '' : 's'}${last}\n  from ${r.source ?? 'unknown'}\n`);
          }
        }
        return 0;
      }
      case 'rm':
      case 'revoke': {
        const id = positionals[0];
        if (!id) throw usage('rules rm needs a RULE_ID (see `deskhand rules list`).');
        revokeRule(store, id);
        process.stderr.write(`Removed ${id}; those calls ask again.\n`);
        return 0;
      }
      default:
        throw usage('rules needs list or rm RULE_ID.');
    }
  });
}

export async function searchCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, { url: { type: 'string' }, 'key-secret': { type: 'string' } });
  const file = new SettingsFile(resolveDataDir(values['data-dir']));
  const settings = file.read();
  switch (sub) {
    case 'show': {
      const search = settings.search ?? null;
      if (values.json) process.stdout.write(`${JSON.stringify(search)}\n`);
      else if (!search) process.stdout.write('No web search backend configured (deskhand search set searxng --url URL | brave --key-secret NAME | tavily --key-secret NAME).\n');
      else process.stdout.write(`${search.backend}${search.url ? ` at ${search.url}` : ''}${search.keySecret ? `, key from the vault secret ${search.keySecret}` : ''}\n`);
      return 0;
    }
    case 'set': {
      const backend = searchBackendSchema.safeParse(positionals[0]);
      if (!backend.success) throw usage('search set needs a BACKEND: searxng, brave or tavily.');
      const url = values.url ?? null;
      if (url !== null) {
        try {
          const u = new URL(url);
          if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
        } catch {
          throw usage(`--url must be an http(s) URL (got "${url}").`);
        }
      }
      if (backend.data === 'searxng' && !url) throw usage('SearXNG needs --url, the address of your instance (e.g. http://127.0.0.1:8888).');
      const keySecret = values['key-secret'] ?? null;
      if (backend.data !== 'searxng' && !keySecret) throw usage(`${backend.data} needs --key-secret NAME: the vault secret holding its API key (save it with deskhand secrets set NAME).`);
      const search: SearchSettings = { backend: backend.data, url, keySecret };
      file.write({ ...settings, search });
      process.stdout.write(`web_search now uses ${backend.data}${url ? ` at ${url}` : ''}.\n`);
      return 0;
    }
    case 'clear':
      file.write({ ...settings, search: null });
      process.stdout.write('web_search has no backend now.\n');
      return 0;
    default:
      throw usage('search needs show, set BACKEND or clear.');
  }
}
